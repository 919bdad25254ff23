import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../server/auth/keys";
import { handleMcp, MCP_ENDPOINT } from "../server/mcp/http";
import { TEST_OWNER } from "../test/callers";
import { describeEachDriver, freshDataset } from "../test/db";
import { serve } from "../test/http-server";

/*
 * `gligabao mcp` as a desktop MCP client runs it: a child process on stdio (the entry script),
 * driven by the SDK's StdioClientTransport, relaying to a running server's /api/mcp. stdout holds
 * nothing but the protocol (the client would report any other line as an error); a refused key
 * and a server that is not there are tool errors saying so; the process ends with its stdin.
 */

const ENTRY = ["--import", "tsx", "src/cli/mcp-stdio-entry.ts"];

describeEachDriver("gligabao mcp (stdio relay)", (ctx) => {
  let url = "";
  let close = async () => undefined as void;
  let key = "";
  let dataset = "";

  async function stdio(env: Record<string, string>) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ENTRY,
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    await client.connect(transport);
    return { client, errors, stderr: () => stderr };
  }

  const textOf = (r: CallToolResult) => (r.content[0]?.type === "text" ? r.content[0].text : "");

  beforeAll(async () => {
    const { app } = ctx();
    key = (await createApiKey({ db: app.database.db, caller: TEST_OWNER, input: { name: "stdio", role: "member" } })).secret;
    dataset = (await freshDataset(app, "stdio")).name;
    const server = await serve((path) => (path === MCP_ENDPOINT ? (req) => handleMcp(req, ctx().app) : undefined));
    url = server.url;
    close = server.close;
  });

  afterAll(() => close());

  it("lists the server's tools and runs remember and query through it", async () => {
    const { client, errors, stderr } = await stdio({ GB_URL: url, GB_API_KEY: key });
    expect(client.getInstructions()).toContain("memory service");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["remember", "query", "search_memory", "get_run", "stm_context", "stm_update", "forget"]));
    const remembered = (await client.callTool({ name: "remember", arguments: { dataset, text: "Mira Solberg moved to Tromsø in 2019.", wait: true } })) as CallToolResult;
    expect(remembered.structuredContent).toMatchObject({ status: "succeeded" });
    const asked = (await client.callTool({ name: "query", arguments: { dataset, question: "Where did Mira Solberg move?" } })) as CallToolResult;
    expect(asked.isError).toBeFalsy();
    expect(asked.structuredContent).toMatchObject({ answer: expect.stringContaining("Tromsø") });
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain(`gligabao://datasets/${dataset}`);
    // a tool error of the server comes through as it is
    const refused = (await client.callTool({ name: "get_run", arguments: { kind: "query", id: "7d0c6a43-0000-4000-8000-000000000000" } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("not_found");
    const started = Date.now();
    await client.close();
    // it ended with its stdin, before the SDK's 2 s wait and SIGTERM
    expect(Date.now() - started).toBeLessThan(1900);
    expect(errors).toEqual([]);
    expect(stderr()).toContain("serving MCP on stdio");
  });

  it("a refused key and an unreachable server are tool errors that say so", async () => {
    const wrong = await stdio({ GB_URL: url, GB_API_KEY: "gb_not_a_key" });
    const refused = (await wrong.client.callTool({ name: "query", arguments: { dataset, question: "?" } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("refused the API key (GB_API_KEY)");
    await expect(wrong.client.listTools()).rejects.toThrow(/refused the API key/);
    await wrong.client.close();

    // a port nothing listens on: a server just closed
    const gone = await serve(() => undefined);
    await gone.close();
    const down = await stdio({ GB_URL: gone.url, GB_API_KEY: key });
    const unreachable = (await down.client.callTool({ name: "query", arguments: { dataset, question: "?" } })) as CallToolResult;
    expect(unreachable.isError).toBe(true);
    expect(textOf(unreachable)).toContain(`cannot reach the gligabao server at ${gone.url}/api/mcp`);
    await down.client.close();
  });
});
