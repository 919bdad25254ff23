import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDriver } from "../test/db";
import { serve } from "../test/http-server";
import { handleTrpc, TRPC_ENDPOINT } from "../server/api/http";
import { handleRunsRest } from "../server/api/rest";
import { createRunLog } from "../server/runs/run-log";
import { type Client, createClient } from "./index";

const API_KEY = "gb_client_test_key_0000000000000000";
const bearer = { authorization: `Bearer ${API_KEY}` };

describeEachDriver("typed client over HTTP", (ctx, driver) => {
  let server: Awaited<ReturnType<typeof serve>>;
  let client: Client;
  beforeAll(async () => {
    const { app } = ctx();
    server = await serve((path) => {
      if (path.startsWith(TRPC_ENDPOINT)) return (req) => handleTrpc(req, app);
      if (path === "/v1/gb/admin/api/query-runs") return (req) => handleRunsRest("query", req, app);
      return undefined;
    });
    client = createClient({ url: server.url, apiKey: API_KEY });
  });
  afterAll(() => server.close());

  it("reports health through the router", async () => {
    expect(await client.system.health.query()).toEqual({
      ok: true,
      db: driver,
      models: "builtin",
      vector: ctx().database.vector ? "pgvector" : "fallback",
      auth: "on",
      needsFirstOwner: true,
    });
  });

  it("creates and lists datasets; the default one exists", async () => {
    const name = `c-${crypto.randomUUID().slice(0, 8)}`;
    const created = await client.datasets.create.mutate({ name });
    expect(created.name).toBe(name);
    expect(created.createdAt).toBeInstanceOf(Date); // superjson on both sides
    const names = (await client.datasets.list.query()).items.map((d) => d.name);
    expect(names).toContain("default");
    expect(names).toContain(name);
  });

  it("answers CONFLICT for a duplicate name and BAD_REQUEST naming the field", async () => {
    const name = `c-${crypto.randomUUID().slice(0, 8)}`;
    await client.datasets.create.mutate({ name });
    const dup = await client.datasets.create.mutate({ name }).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(TRPCClientError);
    expect((dup as TRPCClientError<never>).data).toMatchObject({ code: "CONFLICT", httpStatus: 409 });
    const bad = (await client.datasets.create.mutate({ name: "Not A Slug" }).catch((e: unknown) => e)) as TRPCClientError<never>;
    expect(bad.data).toMatchObject({ code: "BAD_REQUEST", field: "name" });
    expect(bad.message).toMatch(/^name: must be a lowercase slug/);
  });

  it("gets a run with its stages in pipeline order, and NOT_FOUND for an unknown one", async () => {
    const { app } = ctx();
    const ds = await client.datasets.create.mutate({ name: `c-${crypto.randomUUID().slice(0, 8)}` });
    const log = await createRunLog(app.database.db, "query", { datasetId: ds.id, userId: null, params: { question: "q" } });
    await log.start("retrieve_graph");
    await log.done("retrieve_graph", null);
    await log.finish(null);
    const got = await client.runs.query.get.query({ id: log.id ?? "" });
    expect(got.stages.map((s) => s.name)).toEqual(["embed_question", "retrieve_graph", "detect_geo", "nearby_geo", "query"]);
    expect(got.stages[1]).toMatchObject({ status: "succeeded", error: null, inferenceIds: [] });
    expect(got.params).toEqual({ question: "q" });
    const missing = (await client.runs.remember.get.query({ id: crypto.randomUUID() }).catch((e: unknown) => e)) as TRPCClientError<never>;
    expect(missing.data).toMatchObject({ code: "NOT_FOUND" });
    const list = await client.runs.query.list.query({ dataset: ds.name });
    expect(list.items.map((r) => r.id)).toEqual([log.id]);

    const rest = await fetch(`${server.url}/v1/gb/admin/api/query-runs?dataset=${ds.name}&limit=10`, { headers: bearer });
    expect(rest.status).toBe(200);
    const body = (await rest.json()) as { runs: Record<string, unknown>[]; counts: Record<string, number>; next_cursor: string | null };
    expect(body.counts).toEqual({ queued: 0, started: 0, succeeded: 1, failed: 0 });
    expect(body.runs[0]).toMatchObject({ query_run_id: log.id, status: "succeeded", flagged: false, dataset: ds.name });
    expect(body.next_cursor).toBeNull();
  });

  it("answers REST errors with a status and a message", async () => {
    const anonymous = await fetch(`${server.url}/v1/gb/admin/api/query-runs?dataset=default`);
    expect(anonymous.status).toBe(401);
    const unknown = await fetch(`${server.url}/v1/gb/admin/api/query-runs?dataset=nope-${crypto.randomUUID().slice(0, 6)}`, { headers: bearer });
    expect(unknown.status).toBe(404);
    const bad = await fetch(`${server.url}/v1/gb/admin/api/query-runs?status=exploded`, { headers: bearer });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^status:/);
  });
}, { env: () => ({ GB_BOOTSTRAP_API_KEY: API_KEY }) });
