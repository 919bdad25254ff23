import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "@playwright/test";
import { ports } from "./ports";
import { cleanUp, health, startServer, tempDir } from "./server";

/*
 * The MCP endpoint of the built app (`next start`, auth on, a bootstrap owner key, a fresh data
 * dir), driven by the SDK's own client, no browser: 401 without a key; the tools listed;
 * remember → query with a citation; a viewer's key cannot remember; and the stdio relay
 * (src/cli/mcp-stdio-entry.ts) in front of the same server.
 */

const port = ports.mcp;
const base = `http://127.0.0.1:${port}`;
const endpoint = `${base}/api/mcp`;
const KEY = "gb_mcp_e2e_bootstrap_key_0000000000000";
const DATASET = "default";

test.describe.configure({ mode: "serial", timeout: 120_000 });

const clients: Client[] = [];

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as CallToolResult;
}

const textOf = (r: CallToolResult) => (r.content[0]?.type === "text" ? r.content[0].text : "");

/** A viewer's key, made with the owner's over tRPC. */
async function viewerKey(): Promise<string> {
  const res = await fetch(`${base}/api/trpc/keys.create`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ json: { name: "mcp viewer", role: "viewer" } }),
  });
  const body = (await res.json()) as { result?: { data: { json: { secret: string } } } };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.result?.data.json.secret ?? "";
}

test.beforeAll(async () => {
  startServer(port, tempDir("e2e-mcp"), { GB_AUTH: "on", GB_BOOTSTRAP_API_KEY: KEY });
  await health(port, 90_000);
});

test.afterAll(async () => {
  for (const c of clients.splice(0)) await c.close();
  await cleanUp();
});

test("no key, or a wrong one: 401 with WWW-Authenticate, before any MCP processing", async () => {
  const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "1" } } };
  for (const auth of [{}, { authorization: "Bearer gb_wrong" }] as Record<string, string>[]) {
    const res = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  }
});

test("the tools are listed; remember then query answers with a citation of the remembered text", async () => {
  const client = await connect(KEY);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["remember", "query", "search_memory", "get_run", "stm_context", "stm_update", "forget"]));
  expect(tools.find((t) => t.name === "remember")?.inputSchema.properties).toHaveProperty("text");

  const text = "Mira Solberg moved to Tromsø in 2019.";
  const remembered = await callTool(client, "remember", { dataset: DATASET, text, wait: true });
  expect(remembered.isError, textOf(remembered)).toBeFalsy();
  expect(remembered.structuredContent).toMatchObject({ status: "succeeded" });

  const asked = await callTool(client, "query", { dataset: DATASET, question: "Where did Mira Solberg move?" });
  expect(asked.isError, textOf(asked)).toBeFalsy();
  const { answer, sources } = asked.structuredContent as { answer: string; sources: { n: number; text: string }[] };
  expect(answer).toContain("Tromsø");
  const cited = Number(/\[(\d+)\]/.exec(answer)?.[1]);
  expect(sources.find((s) => s.n === cited)?.text).toContain("Tromsø");

  expect((await client.listResources()).resources.map((r) => r.uri)).toContain(`gligabao://datasets/${DATASET}`);
});

test("a viewer's key may query but not remember", async () => {
  const viewer = await connect(await viewerKey());
  const refused = await callTool(viewer, "remember", { dataset: DATASET, text: "A viewer's note." });
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toContain("needs the role member");
  const asked = await callTool(viewer, "query", { dataset: DATASET, question: "Where did Mira Solberg move?" });
  expect(asked.isError, textOf(asked)).toBeFalsy();
});

test("the stdio relay in front of the built server lists the tools and answers a query", async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", "src/cli/mcp-stdio-entry.ts"],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", GB_URL: base, GB_API_KEY: KEY },
    stderr: "pipe",
  });
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  expect((await client.listTools()).tools.map((t) => t.name)).toContain("query");
  const asked = await callTool(client, "query", { dataset: DATASET, question: "Where did Mira Solberg move?" });
  expect(asked.isError, textOf(asked)).toBeFalsy();
  expect(asked.structuredContent).toMatchObject({ answer: expect.stringContaining("Tromsø") });
});
