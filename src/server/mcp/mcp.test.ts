import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Role } from "../../lib/roles";
import type { App } from "../app";
import type { Caller } from "../auth/caller";
import { createApiKey } from "../auth/keys";
import { queryRows } from "../db/rows";
import { callerFor, TEST_OWNER } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { serve } from "../../test/http-server";
import { handleMcp, MCP_ENDPOINT } from "./http";

/*
 * The MCP server over real HTTP, driven by the SDK's own client: the tools and their schemas,
 * remember → query with a citation, the same access rules as the API (another team's key sees
 * none of this team's datasets; a viewer cannot remember, only an admin forgets), 401 without a
 * valid key, and tool errors that name what was wrong.
 */

const OTHER_TEAM = "team-mcp-b";
const ownerB: Caller = { kind: "user", id: "user-mcp-b", label: "b@mcp.test", teamId: OTHER_TEAM, role: "owner", datasetIds: null };

async function keyFor(app: App, role: Role, caller: Caller = TEST_OWNER): Promise<string> {
  return (await createApiKey({ db: app.database.db, caller, input: { name: `mcp ${role}`, role } })).secret;
}

/** The tool's result; its text, and whether it failed. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  const text = first?.type === "text" ? first.text : "";
  return { isError: result.isError === true, text, data: result.structuredContent as Record<string, unknown> & { error?: { kind: string } } };
}

describeEachDriver("MCP server (/api/mcp)", (ctx) => {
  let url = "";
  let close = async () => undefined as void;
  const clients: Client[] = [];
  const keys = { admin: "", member: "", viewer: "", otherTeam: "" };
  let dataset = "";

  async function connect(key: string | undefined): Promise<Client> {
    const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
    const client = new Client({ name: "mcp-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}${MCP_ENDPOINT}`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    const { app } = ctx();
    const db = app.database.db;
    await db.execute(sql`INSERT INTO gb_teams (id, name) VALUES (${OTHER_TEAM}, 'Team B')`);
    await db.execute(sql`INSERT INTO gb_auth_users (id, name, email, created_at, updated_at) VALUES (${ownerB.id}, 'B', ${ownerB.label}, now(), now())`);
    keys.admin = await keyFor(app, "admin");
    keys.member = await keyFor(app, "member");
    keys.viewer = await keyFor(app, "viewer");
    keys.otherTeam = await keyFor(app, "owner", ownerB);
    dataset = (await freshDataset(app, "mcp")).name;
    const server = await serve((path) => (path === MCP_ENDPOINT ? (req) => handleMcp(req, app) : undefined));
    url = server.url;
    close = server.close;
  });

  afterAll(async () => {
    for (const c of clients) await c.close();
    await close();
  });

  it("lists the tools, each with a description and its input fields", async () => {
    const { tools } = await (await connect(keys.viewer)).listTools();
    const fields = Object.fromEntries(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {}).sort()]));
    expect(fields).toEqual({
      remember: ["dataset", "occurredAt", "series", "text", "userId", "wait"],
      query: ["asOf", "dataset", "limit", "question"],
      search_memory: ["dataset", "limit", "search"],
      get_run: ["id", "kind"],
      stm_context: ["dataset", "mode", "scope"],
      stm_update: ["dataset", "messages", "scope"],
      forget: ["dataset", "entityId", "userId"],
      list_datasets: [],
    });
    for (const t of tools) expect(t.description?.length, t.name).toBeGreaterThan(60);
    const remember = tools.find((t) => t.name === "remember");
    expect(remember?.inputSchema.required).toEqual(["dataset", "text"]);
    // the field descriptions reach the model, the Instant as a string
    expect(remember?.inputSchema.properties?.occurredAt).toMatchObject({ type: "string", description: expect.stringContaining("ISO 8601") });
  });

  it("remember (wait) then query: the answer cites the remembered text", async () => {
    const client = await connect(keys.member);
    const text = "Mira Solberg moved to Tromsø in 2019.";
    const remembered = await call(client, "remember", { dataset, text, userId: "u-mira", wait: true });
    expect(remembered.isError, remembered.text).toBe(false);
    expect(remembered.data).toMatchObject({ status: "succeeded", stages: expect.arrayContaining([expect.objectContaining({ name: "extract_graph" })]) });
    const runId = remembered.data.rememberRunId as string;
    const [stored] = await queryRows<{ id: string }>(ctx().app.database.db, sql`SELECT id FROM gb_texts WHERE run_id = ${runId}`);

    const asked = await call(client, "query", { dataset, question: "Where did Mira Solberg move?" });
    expect(asked.isError, asked.text).toBe(false);
    const { answer, sources } = asked.data as { answer: string; sources: { n: number; text: string; source: { textId: string } }[] };
    expect(answer).toContain("Tromsø");
    const cited = Number(/\[(\d+)\]/.exec(answer)?.[1]);
    const source = sources.find((s) => s.n === cited);
    expect(source?.text).toContain("Tromsø");
    expect(source?.source.textId).toBe(stored?.id);

    const run = await call(client, "get_run", { kind: "remember", id: runId });
    expect(run.data).toMatchObject({ id: runId, status: "succeeded", dataset });
    const found = await call(client, "search_memory", { dataset, search: "Mira" });
    const entities = found.data.entities as { name: string; facts: { sentence: string }[] }[];
    expect(entities.find((e) => e.name === "Mira Solberg")?.facts.map((f) => f.sentence).join(" ")).toContain("Tromsø");
  });

  it("lists the datasets as resources, and reads one", async () => {
    const client = await connect(keys.viewer);
    const listed = await client.readResource({ uri: "gligabao://datasets" });
    const first = listed.contents[0];
    expect(first && "text" in first ? first.text : "").toContain(`"${dataset}"`);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain(`gligabao://datasets/${dataset}`);
    const one = (await client.readResource({ uri: `gligabao://datasets/${dataset}` })).contents[0];
    expect(JSON.parse(one && "text" in one ? one.text : "{}")).toMatchObject({ name: dataset });
  });

  it("another team's key sees none of this team's datasets: not listed, not found", async () => {
    const client = await connect(keys.otherTeam);
    const listed = (await client.readResource({ uri: "gligabao://datasets" })).contents[0];
    expect(listed && "text" in listed ? listed.text : "").not.toContain(dataset);
    expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain(`gligabao://datasets/${dataset}`);
    await expect(client.readResource({ uri: `gligabao://datasets/${dataset}` })).rejects.toThrow(/not found/);
    const scope = { userId: "u-b", channelId: "c-b" };
    const runId = (await call(await connect(keys.member), "remember", { dataset, text: "Team A's note.", wait: true })).data.rememberRunId;
    // every tool that names a dataset or a run, with this team's (a new tool must be added here)
    const named: Record<string, Record<string, unknown>> = {
      query: { dataset, question: "Where did Mira Solberg move?" },
      remember: { dataset, text: "Team B was here." },
      search_memory: { dataset, search: "Mira" },
      get_run: { kind: "remember", id: runId },
      stm_context: { dataset, scope },
      stm_update: { dataset, scope, messages: [{ role: "user", content: "Team B was here." }] },
      forget: { dataset, userId: "u-anyone" },
    };
    const { tools } = await client.listTools();
    expect(Object.keys(named).sort()).toEqual(tools.map((t) => t.name).filter((n) => n !== "list_datasets").sort());
    for (const [tool, args] of Object.entries(named)) {
      const r = await call(client, tool, args);
      expect(r, tool).toMatchObject({ isError: true, data: { error: { kind: "not_found" } } });
      expect(r.text, tool).toContain(tool === "get_run" ? `remember run not found: ${String(runId)}` : `dataset not found: ${dataset}`);
    }
    const listed2 = await call(client, "list_datasets", {});
    expect(JSON.stringify(listed2.data)).not.toContain(dataset);
  });

  it("a viewer cannot remember (nothing is stored), a member cannot forget, an admin can", async () => {
    const runsBefore = (await callerFor(ctx().app).runs.remember.list({ dataset })).items.length;
    const viewer = await call(await connect(keys.viewer), "remember", { dataset, text: "A viewer's note.", wait: true });
    expect(viewer).toMatchObject({ isError: true, data: { error: { kind: "forbidden" } } });
    expect(viewer.text).toContain("needs the role member");
    expect((await callerFor(ctx().app).runs.remember.list({ dataset })).items.length).toBe(runsBefore);

    const member = await connect(keys.member);
    await call(member, "remember", { dataset, text: "Oskar Lind works at Fjordbank.", userId: "u-oskar", wait: true });
    const refused = await call(member, "forget", { dataset, userId: "u-oskar" });
    expect(refused).toMatchObject({ isError: true, data: { error: { kind: "forbidden" } } });
    expect(refused.text).toContain("needs the role admin");

    const receipt = await call(await connect(keys.admin), "forget", { dataset, userId: "u-oskar" });
    expect(receipt.isError, receipt.text).toBe(false);
    expect(receipt.data).toMatchObject({ subject: { kind: "userId" }, datasets: [dataset], deleted: { gb_texts: 1 } });
  });

  it("short-term memory: stm_update keeps a turn, stm_context gives it back; a viewer cannot update", async () => {
    const scope = { userId: "u-stm", channelId: "c-1", serverId: "s-1" };
    const member = await connect(keys.member);
    const updated = await call(member, "stm_update", { dataset, scope, messages: [{ role: "user", content: "Let us plan the Lofoten trip." }] });
    expect(updated).toMatchObject({ isError: false, data: { cached: 1 } });
    const read = await call(member, "stm_context", { dataset, scope });
    expect(read.data.text).toContain("Lofoten");
    const viewer = await call(await connect(keys.viewer), "stm_update", { dataset, scope, messages: [{ role: "user", content: "hi" }] });
    expect(viewer).toMatchObject({ isError: true, data: { error: { kind: "forbidden" } } });
  });

  it("bad input is a tool error naming the field; an unknown run is not found", async () => {
    const client = await connect(keys.member);
    const empty = await call(client, "remember", { dataset, text: "" });
    expect(empty.isError).toBe(true);
    expect(empty.text).toMatch(/must not be empty at text/);
    const when = await call(client, "remember", { dataset, text: "x", occurredAt: "last tuesday" });
    expect(when.isError).toBe(true);
    expect(when.text).toMatch(/at occurredAt/);
    const unknown = randomUUID();
    const run = await call(client, "get_run", { kind: "query", id: unknown });
    expect(run).toMatchObject({ isError: true, data: { error: { kind: "not_found" } } });
    expect(run.text).toContain(`query run not found: ${unknown}`);
  });

  it("no credentials or a wrong key: 401 before any MCP processing; GET has no stream: 405", async () => {
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } };
    const post = (headers: Record<string, string>) =>
      fetch(`${url}${MCP_ENDPOINT}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(init),
      });
    for (const headers of [{}, { authorization: "Bearer gb_not_a_key" }] as Record<string, string>[]) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining("API key") } });
    }
    // the SDK client gives up at once: a StreamableHTTPError with the status
    await expect(connect("gb_not_a_key")).rejects.toMatchObject({ code: 401 });
    expect((await post({ authorization: `Bearer ${keys.viewer}` })).status).toBe(200);
    const get = await fetch(`${url}${MCP_ENDPOINT}`, { headers: { authorization: `Bearer ${keys.viewer}`, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });

  it("a request the SDK itself refuses is -32602 naming the field, not an internal error (found by the fuzzer)", async () => {
    const rpc = async (method: string, params: unknown) => {
      const res = await fetch(`${url}${MCP_ENDPOINT}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${keys.viewer}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
      });
      return { status: res.status, body: (await res.json()) as { error?: { code: number; message: string } } };
    };
    const notAnObject = await rpc("tools/call", { name: "query", arguments: 42 });
    expect(notAnObject).toMatchObject({ status: 200, body: { error: { code: -32602, message: expect.stringMatching(/^invalid request, arguments: /) } } });
    const longUri = await rpc("resources/read", { uri: `gligabao://datasets/${"a".repeat(1_100_000)}` });
    expect(longUri).toMatchObject({ status: 200, body: { error: { code: -32602, message: expect.stringMatching(/^invalid request: URI exceeds maximum length/) } } });
    const gone = await rpc("resources/read", { uri: "gligabao://datasets/no-such-dataset" });
    expect(gone).toMatchObject({ body: { error: { code: -32602, message: "dataset not found: no-such-dataset" } } });
  });

  it("a key restricted to one dataset sees only it; past its query budget a key is told when to try again", async () => {
    const { app } = ctx();
    const elsewhere = (await freshDataset(app, "mcp-elsewhere")).name;
    const restricted = (await createApiKey({ db: app.database.db, caller: TEST_OWNER, input: { name: "mcp restricted", role: "member", datasets: [dataset] } })).secret;
    const client = await connect(restricted);
    const listed = (await call(client, "list_datasets", {})).data as { datasets: { name: string }[] };
    expect(listed.datasets.map((d) => d.name)).toEqual([dataset]);
    const outside = await call(client, "query", { dataset: elsewhere, question: "Who works at Fjordbank?" });
    expect(outside).toMatchObject({ isError: true, data: { error: { kind: "not_found" } } });
    // the budget (GB_RATE_LIMIT_QUERY below) is the key's, whichever door it uses
    let last = outside;
    for (let i = 0; i < 10 && !(last.isError && last.data.error?.kind === "rate_limited"); i++) last = await call(client, "query", { dataset, question: "Who works at Fjordbank?" });
    expect(last).toMatchObject({ isError: true, data: { error: { kind: "rate_limited", retryAfterMs: expect.any(Number) } } });
    expect(last.text).toMatch(/^rate_limited: /);
  });
},
  // a query budget the test above can use up with its own key (every other key asks fewer times)
  { env: () => ({ GB_RATE_LIMIT_QUERY: "6" }) },
);
