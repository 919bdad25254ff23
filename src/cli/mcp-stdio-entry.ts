import { runMcpStdio } from "./mcp-stdio";

/*
 * The stdio MCP server alone, for tests and for an MCP client's config without the CLI:
 *   GB_URL=http://localhost:3000 GB_API_KEY=gb_… node --import tsx src/cli/mcp-stdio-entry.ts
 */
runMcpStdio({ url: process.env.GB_URL ?? "http://localhost:3000", apiKey: process.env.GB_API_KEY || undefined }).catch((e: unknown) => {
  process.stderr.write(`gligabao mcp: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
