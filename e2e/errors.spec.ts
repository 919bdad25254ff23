import { type APIRequestContext, type APIResponse, expect, test } from "@playwright/test";
import fc from "fast-check";
import { MAX_BATCH_CALLS } from "../src/lib/limits";
import {
  BASE,
  describeCall,
  describeRestCall,
  type Fixture,
  hostileCalls,
  hostileMcpCalls,
  hostileRestCalls,
  makeFixture,
  mcpSamples,
  mcpVerdict,
  restVerdict,
  samples,
  type Send,
  toMcpRequest,
  toRequest,
  toRestRequest,
  verdict,
} from "../src/test/fuzz";
import { ports } from "./ports";
import { cleanUp, health, type Server, startServer, tempDir } from "./server";

/*
 * Error answers of the built app (`next build` + `next start`), where server code is bundled
 * twice and an error class of one copy is not the other's (vitest cannot see that): 429 with
 * Retry-After, 502 for a model failure, 404, 400, 409, 413, 431; refused calls log no stack; then the
 * fuzzer of src/test/fuzz.ts against this server. Its own server: auth on with an owner key, a
 * query limit of 3 a minute, the openai provider against the loopback fake model server
 * (e2e/fake-model-server.ts: a question with [fail-answer] gets a 500 from the "model").
 */

const KEY = "gb_e2e_errors_owner_key_000000000000";
const port = ports.errors;
const base = `http://127.0.0.1:${port}`;
let server: Server;
let fixture: Fixture;

test.describe.configure({ mode: "serial" });

/** Sends a fuzz-style Request (addressed to BASE) to this server. */
const send: Send = async (req) =>
  fetch(req.url.replace(BASE, base), { method: req.method, headers: req.headers, body: req.method === "GET" || req.method === "HEAD" ? undefined : await req.text() });

type ErrorJson = { message: string; data: { code: string; httpStatus: number; field: string | null; retryAfterMs: number | null; stack?: string } };

async function errorOf(res: APIResponse): Promise<ErrorJson> {
  const body = (await res.json()) as { error: { json: ErrorJson } };
  return body.error.json;
}

const auth = { authorization: `Bearer ${KEY}` };
const mutate = (request: APIRequestContext, path: string, input: unknown, headers: Record<string, string> = auth) =>
  request.post(`${base}/api/trpc/${path}`, { data: { json: input }, headers, timeout: 60_000 });
const query = (request: APIRequestContext, path: string, input: unknown) =>
  request.get(`${base}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, { headers: auth });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  server = startServer(port, tempDir("errors"), {
    GB_AUTH: "on",
    GB_BOOTSTRAP_API_KEY: KEY,
    GB_RATE_LIMIT_QUERY: "3",
    GB_MAX_TEXT_BYTES: "2000",
    GB_MODELS: "openai",
    OPENAI_API_KEY: "sk-e2e",
    OPENAI_BASE_URL: `http://127.0.0.1:${ports.fakeModel}/v1`,
    GB_MODEL_MAX_RETRIES: "0",
  });
  await health(port, 120_000);
  fixture = await makeFixture(send, KEY, "errors");
});

test.afterAll(async () => {
  await cleanUp();
});

test("404, 400, 409, 413, 431 and 401 through the built app", async ({ request }) => {
  const missing = await query(request, "graph.entity", { dataset: "no-such-dataset", id: "00000000-0000-4000-8000-000000000000" });
  expect(missing.status()).toBe(404);
  expect((await errorOf(missing)).data.code).toBe("NOT_FOUND");

  const badName = await mutate(request, "datasets.create", { name: "Not A Slug" });
  expect(badName.status()).toBe(400);
  expect((await errorOf(badName)).data.field).toBe("name");

  const nul = await mutate(request, "remember.submit", { dataset: fixture.dataset, text: "Ann\u0000 moved." });
  expect(nul.status()).toBe(400);
  expect((await errorOf(nul)).message).toMatch(/^text: must not contain NUL/);

  const cursor = Buffer.from(JSON.stringify(["+275760-01-01T00:00:00.000Z", "y"])).toString("base64url");
  const forged = await query(request, "runs.remember.list", { dataset: fixture.dataset, cursor });
  expect(forged.status()).toBe(400);
  expect((await errorOf(forged)).data.field).toBe("cursor");

  const duplicate = await mutate(request, "datasets.create", { name: fixture.dataset });
  expect(duplicate.status()).toBe(409);

  const large = await mutate(request, "remember.submit", { dataset: fixture.dataset, text: "Ann moved to Oslo. ".repeat(200) });
  expect(large.status()).toBe(413);

  // past Node's 16 KiB header limit: refused before the app, but with an answer, not a reset
  for (let i = 0; i < 5; i++) {
    const tooLong = await query(request, "runs.remember.list", { dataset: fixture.dataset, cursor: "é".repeat(300_000) });
    expect(tooLong.status()).toBe(431);
    expect((await tooLong.json()) as unknown).toEqual({ code: "REQUEST_HEADER_FIELDS_TOO_LARGE", message: expect.stringContaining("POST body") });
  }

  const nobody = await mutate(request, "datasets.create", { name: "nobody-made" }, {});
  expect(nobody.status()).toBe(401);

  const batch = await request.get(`${base}/api/trpc/${Array.from({ length: MAX_BATCH_CALLS + 1 }, () => "datasets.list").join(",")}?batch=1&input={}`, { headers: auth });
  expect(batch.status()).toBe(400);
  expect(JSON.stringify(await batch.json())).toContain(`a batch may hold at most ${MAX_BATCH_CALLS} calls`);
});

test("short-term memory through the built app: capture, one upgrade per turn, limits as 400 with the field", async ({ request }) => {
  const scope = { userId: "e2e-user", channelId: "e2e-channel", serverId: "e2e-server" };
  const captured = await mutate(request, "stm.capture", { dataset: fixture.dataset, scope, messages: [{ role: "user", content: "we are planning a trip" }] });
  expect(captured.status()).toBe(200);
  const upgrade = (turnId: string, summary: string) => mutate(request, "stm.upgrade", { dataset: fixture.dataset, scope, turnId, summary });
  expect(await (await upgrade("t1", "A trip is planned.")).json()).toMatchObject({ result: { data: { json: { applied: true, version: 1 } } } });
  expect(await (await upgrade("t1", "again")).json()).toMatchObject({ result: { data: { json: { applied: false, reason: "already_upgraded_this_turn" } } } });
  const long = await upgrade("t2", "x".repeat(2001));
  expect(long.status()).toBe(400);
  expect((await errorOf(long)).data.field).toBe("summary");
  const badArgs = await mutate(request, "stm.executeToolCall", { dataset: fixture.dataset, scope, turnId: "t2", arguments: "{not json" });
  expect(badArgs.status()).toBe(400);
  expect((await errorOf(badArgs)).data.field).toBe("arguments");
  const context = await query(request, "stm.context", { dataset: fixture.dataset, scope });
  expect(await context.json()).toMatchObject({ result: { data: { json: { text: expect.stringContaining("A trip is planned."), cadence: { version: 1 } } } } });
});

test("a model server that fails is 502 BAD_GATEWAY with the reason", async ({ request }) => {
  const res = await mutate(request, "query.ask", { dataset: fixture.dataset, question: "[fail-answer] Where does Ann live?" });
  expect(res.status()).toBe(502);
  const error = await errorOf(res);
  expect(error.data.code).toBe("BAD_GATEWAY");
  expect(error.message).toContain("HTTP 500");
});

test("a string for a number of query.ask is refused at the REST door and, after it, over tRPC: the REST library's coercion does not reach tRPC", async ({ request }) => {
  const input = { dataset: fixture.dataset, question: "What is near Lyon?", radiusKm: "5" };
  // the REST library sets its coercion on the input it serves as it reads the call: settled at start (api/coercion.ts)
  const rest = await request.post(`${base}/api/v1/query`, { data: input, headers: auth });
  expect(rest.status()).toBe(400);
  expect(((await rest.json()) as { field?: string }).field).toBe("radiusKm");
  for (const radiusKm of ["5", true]) {
    const res = await mutate(request, "query.ask", { ...input, radiusKm });
    expect(res.status()).toBe(400);
    expect((await errorOf(res)).data.field).toBe("radiusKm");
  }
});

test("past the rate limit: 429 with Retry-After and data.retryAfterMs, batched too", async ({ request }) => {
  const ask = () => mutate(request, "query.ask", { dataset: fixture.dataset, question: "Where does Ann live?" });
  let res = await ask();
  for (let i = 0; i < 5 && res.status() !== 429; i++) res = await ask();
  expect(res.status()).toBe(429);
  expect(Number(res.headers()["retry-after"])).toBeGreaterThan(0);
  const error = await errorOf(res);
  expect(error.data.code).toBe("TOO_MANY_REQUESTS");
  expect(error.data.retryAfterMs).toBeGreaterThan(0);

  const input = { json: { dataset: fixture.dataset, question: "Who is Bob?" } };
  const batched = await request.post(`${base}/api/trpc/query.ask,query.ask?batch=1`, { data: { 0: input, 1: input }, headers: auth });
  expect(batched.status()).toBe(429);
  expect(Number(batched.headers()["retry-after"])).toBeGreaterThan(0);
  const items = (await batched.json()) as { error: { json: ErrorJson } }[];
  expect(items).toHaveLength(2);
  for (const item of items) expect(item.error.json.data.retryAfterMs).toBeGreaterThan(0);
});

test("refused calls log no stack", () => {
  // everything above was a 4xx or a 502: nothing of it is an unexpected failure
  expect(server.stderr()).not.toMatch(/^\s+at /m);
  expect(server.stderr()).not.toContain("tRPC ");
});

test("hostile input to the built app: no 5xx, no internals, no stacks", async () => {
  test.setTimeout(180_000);
  const sampleOf = samples(fixture);
  let calls = 0;
  await fc.assert(
    fc.asyncProperty(hostileCalls(sampleOf), async (call) => {
      calls++;
      const problem = await verdict(await send(toRequest(call, KEY)), true);
      if (problem) throw new Error(`${problem}\n  call: ${describeCall(call)}`);
    }),
    { seed: 20261201, numRuns: Number(process.env.FUZZ_RUNS ?? 200), endOnFailure: true },
  );
  console.log(`hostile input to the built app: ${calls} calls, none answered 5xx`);
  expect(server.stderr()).not.toContain("tRPC ");
});

test("a path whose percent-encoding is not UTF-8 is 400, on every kind of route (Next alone answered 500)", async () => {
  for (const path of ["/api/v1/remember/%E0", "/api/v1/remember/%ED%A0%80", "/api/trpc/%ED%A0%80", "/admin/remember/%E0", "/nowhere/%FF"]) {
    const res = await fetch(`${base}${path}`, { headers: auth });
    expect({ path, status: res.status, body: (await res.json()) as unknown }).toEqual({ path, status: 400, body: { code: "BAD_REQUEST", message: "path: is not valid percent-encoded UTF-8" } });
  }
  // a "%" that decodes still reaches the route
  const spaced = await fetch(`${base}/api/v1/remember/a%20b`, { headers: auth });
  expect(await spaced.json()).toMatchObject({ code: "BAD_REQUEST", field: "id" });
});

test("hostile input to the REST and MCP doors of the built app: no 5xx, errors in their shapes, no internals", async () => {
  test.setTimeout(240_000);
  const runs = Number(process.env.FUZZ_RUNS ?? 200);
  let calls = 0;
  await fc.assert(
    fc.asyncProperty(hostileRestCalls(samples(fixture)), async (call) => {
      calls++;
      const problem = await restVerdict(await send(toRestRequest(call, KEY)));
      if (problem) throw new Error(`${problem}\n  call: ${describeRestCall(call)}`);
    }),
    { seed: 20261204, numRuns: runs, endOnFailure: true },
  );
  await fc.assert(
    fc.asyncProperty(hostileMcpCalls(mcpSamples(fixture)), async (call) => {
      calls++;
      const problem = await mcpVerdict(await send(toMcpRequest(call, KEY)));
      if (problem) throw new Error(`${problem}\n  call: auth=${call.auth} body=${call.body.slice(0, 400)}`);
    }),
    { seed: 20261204, numRuns: runs, endOnFailure: true },
  );
  console.log(`hostile REST and MCP input to the built app: ${calls} calls, none answered 5xx`);
  expect(server.stderr()).not.toMatch(/^(REST|MCP) /m);
});
