import fc from "fast-check";
import { MAX_BATCH_CALLS } from "../lib/limits";
import { appRouter } from "../server/api/root";

/*
 * Hostile input for every procedure of the router, over HTTP: the unit fuzz test sends it through
 * handleTrpc on PGlite and Postgres, the e2e one to the built server. A call passes when its
 * answer is not a 5xx and no error message in it shows our internals (SQL, stack frames, the
 * parser's words). Procedures come from the router itself, so a new one is fuzzed at once; its
 * valid input must be added to SAMPLES (the test fails until it is).
 */

export type Send = (req: Request) => Promise<Response>;

export const BASE = "http://gligabao.test";

export const PROCEDURES: { path: string; type: "query" | "mutation" }[] = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>,
).map(([path, p]) => ({ path, type: p._def.type === "query" ? "query" : "mutation" }));

/** What the samples point at, made over HTTP by makeFixture. */
export interface Fixture {
  dataset: string;
  /** a dataset datasets.delete may delete */
  doomed: string;
  rememberRunId: string;
  queryRunId: string;
  inferenceId: string;
  entityId: string;
  keyId: string;
  memberId: string;
  runCursor: string;
  entityCursor: string;
  auditCursor: string;
}

/** A valid input for every procedure, with every optional field present (each is fuzzed). */
export function samples(f: Fixture): Record<string, unknown> {
  const run = { id: f.rememberRunId };
  const qrun = { id: f.queryRunId };
  const list = (cursor: string) => ({ dataset: f.dataset, status: "succeeded", flagged: false, cursor, limit: 1 });
  return {
    "system.health": undefined,
    "account.me": undefined,
    "teams.create": { name: "fuzz team" },
    "teams.members": undefined,
    "teams.addMember": { email: "fuzzed@example.com", name: "Fuzzed", password: "a long password", role: "viewer" },
    "teams.setRole": { userId: f.memberId, role: "viewer" },
    "teams.removeMember": { userId: "nobody-of-this-team" },
    "keys.list": undefined,
    "keys.create": { name: "fuzz key", role: "viewer", datasets: [f.dataset] },
    "keys.revoke": { id: f.keyId },
    "audit.list": { cursor: f.auditCursor, limit: 1, direction: "forward" },
    "datasets.list": undefined,
    "datasets.create": { name: "fuzz-made" },
    "datasets.delete": { name: f.doomed, confirm: f.doomed },
    "runs.remember.list": list(f.runCursor),
    "runs.remember.counts": { dataset: f.dataset },
    "runs.remember.get": run,
    "runs.remember.outputs": { ...run, stage: "extract_graph" },
    "runs.remember.timeline": run,
    "runs.remember.changes": run,
    "runs.query.list": list(f.runCursor),
    "runs.query.counts": { dataset: f.dataset },
    "runs.query.get": qrun,
    "runs.query.outputs": { ...qrun, stage: "retrieve_graph" },
    "runs.query.timeline": qrun,
    "runs.inference.get": { id: f.inferenceId },
    "remember.submit": {
      dataset: f.dataset,
      text: "Ann moved to Oslo in 2021.",
      source: { kind: "chat", id: "m-1", url: "https://example.com/m/1", speaker: "Ann" },
      userId: "fuzz-user",
      series: "fuzz-series",
      occurredAt: "2024-01-02T03:04:05Z",
      options: { stages: { extract_graph: { model: "m", reasoning: "low" } }, enrich: { geo: false } },
      idempotencyKey: "fuzz-key-1",
    },
    "remember.get": run,
    "query.ask": {
      dataset: f.dataset,
      question: "Where does Ann live?",
      userId: "fuzz-user",
      asOf: "2024-06-01",
      limit: 3,
      options: { stages: { query: { model: "m", reasoning: "low" } } },
    },
    "graph.entities": { dataset: f.dataset, search: "ann", cursor: f.entityCursor, limit: 1 },
    "graph.entity": { dataset: f.dataset, id: f.entityId },
    "graph.neighbourhood": { dataset: f.dataset, id: f.entityId, depth: 2, limit: 10 },
    "graph.series": { dataset: f.dataset, key: "fuzz-series", limit: 5 },
    "graph.seriesKeys": { dataset: f.dataset, limit: 3 },
    "subjects.purge": { dataset: f.doomed, userId: "nobody-at-all" },
    "chat.turn": {
      dataset: f.dataset,
      scope: { userId: "fuzz-user", channelId: "fuzz-channel", serverId: "fuzz-server", personaId: "fuzz-persona" },
      message: "Where does Ann live?",
      persona: "You are a fuzzed bot.",
      turnId: "fuzz-chat-turn",
    },
    "stm.tool": undefined,
    "stm.scopes": { dataset: f.dataset, userId: "fuzz-user", serverId: "fuzz-server", channelId: "fuzz-channel", cursor: Buffer.from(JSON.stringify(["2030-01-01T00:00:00.000Z", "shortterm:user:z"])).toString("base64url"), limit: 1 },
    "stm.entry": { dataset: f.dataset, key: "shortterm:user:fuzz-user:fuzz-channel" },
    "stm.detectIntent": { message: "remember that the fuzz is fine" },
    "stm.context": { dataset: f.dataset, scope: { userId: "fuzz-user", channelId: "fuzz-channel", serverId: "fuzz-server", personaId: "fuzz-persona" }, mode: "mixed" },
    "stm.capture": { dataset: f.dataset, scope: { userId: "fuzz-user", channelId: "fuzz-channel", serverId: "fuzz-server", personaId: "fuzz-persona" }, messages: [{ role: "user", content: "hello", authorId: "fuzz-author", at: "2024-05-01T10:00:00Z" }] },
    "stm.upgrade": { dataset: f.dataset, scope: { userId: "fuzz-user", channelId: "fuzz-channel", serverId: "fuzz-server", personaId: "fuzz-persona" }, turnId: "fuzz-turn", summary: "a summary", categories: { plans: "a trip" } },
    "stm.executeToolCall": { dataset: f.dataset, scope: { userId: "fuzz-user", channelId: "fuzz-channel", serverId: "fuzz-server", personaId: "fuzz-persona" }, turnId: "fuzz-turn-2", arguments: '{"summary":"from a tool"}' },
    "stm.clearChannel": { dataset: f.dataset, channelId: "fuzz-channel", serverId: "fuzz-server" },
    "stm.clearUser": { dataset: f.dataset, userId: "fuzz-user" },
  };
}

// ---- requests -------------------------------------------------------------------------------

export interface Call {
  /** comma-separated paths when batched */
  path: string;
  method: "GET" | "POST";
  batch: boolean;
  /** the raw body (POST) or `input` parameter (GET); undefined = none */
  raw: string | undefined;
  auth: "key" | "none" | "bad-key" | "bad-cookie";
}

export function toRequest(call: Call, key: string): Request {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (call.auth === "key") headers.authorization = `Bearer ${key}`;
  if (call.auth === "bad-key") headers.authorization = "Bearer gb_not_a_key_of_this_install_000000";
  if (call.auth === "bad-cookie") headers.cookie = "better-auth.session_token=%E0%A4%A; gb_team=%";
  const params = new URLSearchParams();
  if (call.batch) params.set("batch", "1");
  if (call.method === "GET" && call.raw !== undefined) params.set("input", call.raw);
  const query = params.size ? `?${params}` : "";
  return new Request(`${BASE}/api/trpc/${call.path}${query}`, { method: call.method, headers, body: call.method === "POST" ? (call.raw ?? "") : undefined });
}

/** The superjson envelope of an input as our clients send it. */
const envelope = (input: unknown) => (input === undefined ? {} : { json: input });

// ---- hostile values -------------------------------------------------------------------------

const deep = (n: number, open = "[", close = "]") => open.repeat(n) + close.repeat(n);
const b64 = (s: string) => Buffer.from(s).toString("base64url");

const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udc00y", "\udc00\ud800", "😀\ud83d") },
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udc00y",
    "\udc00\ud800",
    "\ud83d",
    "😀\u0000",
    "\u2028\u2029",
    "\uFEFF",
    "\\u0000",
    "' OR 1=1 --",
    "%_%",
    "__proto__",
    "constructor",
    "default",
    "null",
    "2024-02-31",
  ),
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.nat({ max: 3 }).map((i) => ["a", "\u0000", "\ud800", "é"][i]!.repeat([1_000, 5_000, 70_000, 300_000][i]!)),
);

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -1, -0, 1.5, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, Number.MIN_VALUE),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Times: ISO strings in and out of range, and the superjson Date strings a forged meta may carry. */
export const hostileTime: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "0000-01-01",
    "0001-01-01",
    "9999-12-31T23:59:59Z",
    "+275760-09-13T00:00:00.000Z",
    "-271821-04-20T00:00:00.000Z",
    "+010000-01-01T00:00:00.000Z",
    "-004714-11-24T00:00:00.000Z",
    "2024-02-31",
    "2024-13-01",
    "2024-01-01T25:00:00Z",
    "1969-12-31T23:59:59.999-23:59",
    "garbage",
  ),
  fc.date({ noInvalidDate: false }).map((d) => (Number.isNaN(d.getTime()) ? "Invalid Date" : d.toISOString())),
);

/** Cursors: random base64url, base64url of random or deeply nested JSON, of near-valid keys. */
export const forgedCursor: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary-ascii", maxLength: 300 }),
  fc.base64String({ maxLength: 300 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => b64(JSON.stringify(v))),
  fc.nat({ max: 20_000 }).map((n) => b64(deep(n))),
  fc.nat({ max: 150 }).map((n) => b64(`[${deep(n)}, "x"]`)),
  fc.tuple(fc.oneof(hostileTime, hostileString), fc.oneof(fc.uuid(), hostileString)).map((k) => b64(JSON.stringify(k))),
  fc.tuple(fc.uuid(), fc.uuid(), fc.uuid()).map((k) => b64(JSON.stringify(k))),
);

const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, [], {}, [[]], { json: 1 }, "", 0),
  hostileNumber,
  fc.jsonValue({ maxDepth: 3 }),
);

/** A value for a leaf of a valid input, knowing the leaf's key and type. */
function hostileFor(key: string, value: unknown): fc.Arbitrary<unknown> {
  if (key === "cursor") return fc.oneof({ weight: 4, arbitrary: forgedCursor }, { weight: 1, arbitrary: hostileString });
  if (key === "asOf" || key === "occurredAt") return fc.oneof({ weight: 4, arbitrary: hostileTime }, { weight: 1, arbitrary: wrongType });
  if (typeof value === "number") return fc.oneof({ weight: 3, arbitrary: hostileNumber }, { weight: 1, arbitrary: wrongType });
  return fc.oneof({ weight: 3, arbitrary: hostileString }, { weight: 1, arbitrary: wrongType });
}

/** Every leaf of a JSON value: its path and key. */
export function leaves(value: unknown, path: (string | number)[] = []): { path: (string | number)[]; value: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [{ path, value }];
}

export function setAt(value: unknown, path: (string | number)[], leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const copy = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  (copy as Record<string | number, unknown>)[head] = setAt((copy as Record<string | number, unknown>)[head], rest, leaf);
  return copy;
}

/** A valid input with one leaf made hostile (the input itself when it has no leaf). */
function mutated(sample: unknown): fc.Arbitrary<unknown> {
  const ls = sample === undefined ? [] : leaves(sample);
  if (ls.length === 0) return fc.oneof(fc.constant(sample), wrongType);
  return fc.nat({ max: ls.length - 1 }).chain((i) => {
    const leaf = ls[i]!;
    const key = String(leaf.path.at(-1) ?? "");
    return hostileFor(key, leaf.value).map((v) => setAt(sample, leaf.path, v));
  });
}

/** A superjson `meta` that superjson will try to apply: annotations on real and made-up paths. */
const forgedMeta: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    values: fc.dictionary(
      fc.oneof(fc.constantFrom("asOf", "occurredAt", "question", "text", "limit", "cursor", "id", "dataset", "__proto__", "a.b.c", ""), fc.string({ maxLength: 8 })),
      fc.oneof(
        fc.constantFrom(["Date"], ["bigint"], ["number"], ["undefined"], ["set"], ["map"], ["regexp"], ["Error"], ["URL"], ["symbol", "x"], ["class", "X"], ["custom", "y"], ["bogus"]),
        fc.jsonValue({ maxDepth: 3 }),
      ),
      { maxKeys: 3 },
    ),
  }),
  fc.record({ referentialEqualities: fc.jsonValue({ maxDepth: 3 }) }),
  fc.nat({ max: 20_000 }).map((n) => ({ values: JSON.parse(deep(Math.max(1, Math.min(n, 3_000)))) as unknown })),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Raw bodies: not JSON, nested past any parser's stack, wrong envelopes. */
const rawBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("", "not json", "null", "[]", "{", '{"json":', '{"json":{}}garbage', '"\\ud800"', '{"json":"\\u0000"}', '{"__proto__":{"json":1}}'),
  fc.nat({ max: 200_000 }).map((n) => `{"json":${deep(n)}}`),
  fc.nat({ max: 200_000 }).map((n) => deep(n, '{"a":', "}").replace(/\}$/, "1}")),
  fc.nat({ max: 50_000 }).map((n) => `{"json":${'{"a":'.repeat(n)}1${"}".repeat(n)}}`),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ unit: "binary", maxLength: 200 }),
);

const auth: fc.Arbitrary<Call["auth"]> = fc.oneof(
  { weight: 12, arbitrary: fc.constant("key" as const) },
  { weight: 1, arbitrary: fc.constantFrom("none" as const, "bad-key" as const, "bad-cookie" as const) },
);

function single(sampleOf: Record<string, unknown>): fc.Arbitrary<Call> {
  return fc.constantFrom(...PROCEDURES).chain((p) => {
    const sample = sampleOf[p.path];
    const method = p.type === "query" ? "GET" : "POST";
    const input: fc.Arbitrary<string | undefined> = fc.oneof(
      { weight: 8, arbitrary: mutated(sample).map((v) => JSON.stringify(envelope(v))) },
      { weight: 1, arbitrary: fc.constant(sample).map((v) => JSON.stringify(envelope(v))) },
      // superjson's own annotations on the valid input
      { weight: 2, arbitrary: forgedMeta.map((meta) => JSON.stringify({ json: sample ?? null, meta })) },
      { weight: 2, arbitrary: rawBody },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(envelope(v))) },
    );
    return fc.record({
      path: fc.constant(p.path),
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: fc.constantFrom<"GET" | "POST">("GET", "POST") }),
      batch: fc.constant(false),
      raw: input,
      auth,
    });
  });
}

/** Batches of one type of call, up to a few past the limit, with mutated inputs by index. */
function batch(sampleOf: Record<string, unknown>): fc.Arbitrary<Call> {
  return fc.constantFrom("query" as const, "mutation" as const).chain((type) => {
    const ofType = PROCEDURES.filter((p) => p.type === type);
    return fc.array(fc.constantFrom(...ofType), { minLength: 1, maxLength: MAX_BATCH_CALLS + 5 }).chain((ps) =>
      fc.record({
        path: fc.constant(ps.map((p) => p.path).join(",")),
        method: fc.constant(type === "query" ? ("GET" as const) : ("POST" as const)),
        batch: fc.constant(true),
        raw: fc
          .tuple(...ps.map((p) => mutated(sampleOf[p.path])))
          .map((inputs) => JSON.stringify(Object.fromEntries(inputs.map((v, i) => [i, envelope(v)])))),
        auth,
      }),
    );
  });
}

export function hostileCalls(sampleOf: Record<string, unknown>): fc.Arbitrary<Call> {
  return fc.oneof({ weight: 9, arbitrary: single(sampleOf) }, { weight: 1, arbitrary: batch(sampleOf) });
}

// ---- verdicts -------------------------------------------------------------------------------

/** What an error message must never show: SQL, driver and parser words, stack frames. */
const LEAKS =
  /Failed query|params:|\bselect\b.*\bfrom\b|insert into|invalid input syntax|violates|SQLSTATE|DrizzleQueryError|Maximum call stack|is not a function|Cannot read propert|Cannot destructure|Cannot use 'in'|undefined is not|\bat \S+ \(|node_modules|\.ts:\d+|\bTypeError\b|\bRangeError\b|\bSyntaxError\b/i;

interface ErrorJson {
  message?: unknown;
  data?: { httpStatus?: unknown; stack?: unknown };
}

function errorsIn(body: unknown): ErrorJson[] {
  const items = Array.isArray(body) ? body : [body];
  return items.flatMap((item) => {
    const e = (item as { error?: { json?: ErrorJson } } | null)?.error?.json;
    return e ? [e] : [];
  });
}

/** Why an answer is wrong, or null when it is fine; `production`: a stack in an answer is wrong too. */
export async function verdict(res: Response, production = false): Promise<string | null> {
  const text = await res.text();
  if (res.status >= 500) return `HTTP ${res.status}: ${text.slice(0, 500)}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Node's own refusals come before the app (431: a URL or headers too large), with no JSON
    return LEAKS.test(text) ? `HTTP ${res.status}, a body that is not JSON shows internals: ${text.slice(0, 200)}` : null;
  }
  for (const e of errorsIn(body)) {
    if (typeof e.data?.httpStatus === "number" && e.data.httpStatus >= 500) return `an item answered ${e.data.httpStatus}: ${String(e.message)}`;
    // data.stack is tRPC's development aid (vitest); the built app must never send one
    if (production && e.data?.stack !== undefined) return `HTTP ${res.status}, an answer carries a stack: ${String(e.message)}`;
    if (LEAKS.test(String(e.message))) return `HTTP ${res.status}, a message shows internals: ${String(e.message).slice(0, 300)}`;
  }
  return null;
}

/** A short description of a call for a failure report. */
export function describeCall(call: Call): string {
  const raw = call.raw === undefined ? "(none)" : call.raw.length > 300 ? `${call.raw.slice(0, 300)}… (${call.raw.length} chars)` : call.raw;
  return `${call.method} ${call.path.slice(0, 200)}${call.batch ? " (batch)" : ""} auth=${call.auth} input=${JSON.stringify(raw)}`;
}

// ---- the fixture ----------------------------------------------------------------------------

async function trpc(send: Send, key: string, path: string, type: "query" | "mutation", input?: unknown): Promise<unknown> {
  const raw = JSON.stringify(envelope(input));
  const res = await send(toRequest({ path, method: type === "query" ? "GET" : "POST", batch: false, raw: input === undefined ? undefined : raw, auth: "key" }, key));
  const body = (await res.json()) as { result?: { data?: { json?: unknown } }; error?: unknown };
  if (!res.ok) throw new Error(`${path} failed while making the fixture: ${JSON.stringify(body.error)}`);
  return body.result?.data?.json;
}

/** Data for the samples to point at, made through the API with an owner key. */
export async function makeFixture(send: Send, key: string, prefix: string): Promise<Fixture> {
  const suffix = Math.random().toString(36).slice(2, 8);
  const dataset = `${prefix}-${suffix}`;
  const doomed = `${prefix}-doomed-${suffix}`;
  await trpc(send, key, "datasets.create", "mutation", { name: dataset });
  await trpc(send, key, "datasets.create", "mutation", { name: doomed });
  const texts = ["Ann lives in Oslo. Ann works at Acme.", "Bob moved to Bergen in 2020. Bob knows Ann."];
  const runs: string[] = [];
  for (const text of texts) {
    const r = (await trpc(send, key, "remember.submit", "mutation", { dataset, text, wait: true })) as { rememberRunId: string };
    runs.push(r.rememberRunId);
  }
  const q = (await trpc(send, key, "query.ask", "mutation", { dataset, question: "Where does Ann live?" })) as { queryRunId: string };
  const timeline = (await trpc(send, key, "runs.remember.timeline", "query", { id: runs[0] })) as { inferences: { id: string }[] };
  const inferenceId = timeline.inferences[0]?.id ?? "00000000-0000-4000-8000-000000000000";
  const runPage = (await trpc(send, key, "runs.remember.list", "query", { dataset, limit: 1 })) as { nextCursor: string | null };
  const entityPage = (await trpc(send, key, "graph.entities", "query", { dataset, limit: 1 })) as { items: { id: string }[]; nextCursor: string | null };
  const key2 = (await trpc(send, key, "keys.create", "mutation", { name: "fuzz revocable", role: "viewer" })) as { key: { id: string } };
  const auditPage = (await trpc(send, key, "audit.list", "query", { limit: 1 })) as { nextCursor: string | null };
  const member = (await trpc(send, key, "teams.addMember", "mutation", {
    email: `${suffix}@fuzz.example.com`,
    name: "Fuzz Member",
    password: "a long password",
    role: "member",
  })) as { userId: string };
  return {
    dataset,
    doomed,
    rememberRunId: runs[0]!,
    queryRunId: q.queryRunId,
    inferenceId,
    entityId: entityPage.items[0]!.id,
    keyId: key2.key.id,
    memberId: member.userId,
    runCursor: runPage.nextCursor ?? "",
    entityCursor: entityPage.nextCursor ?? "",
    auditCursor: auditPage.nextCursor ?? "",
  };
}

// ---- the REST door (/api/v1) ----------------------------------------------------------------

/** A procedure's REST route (its `meta.openapi`). */
export interface RestRoute {
  method: string;
  path: string;
}

/** The procedures served over REST, with their routes: the same samples fuzz them. */
export const REST_ROUTES: { procedure: string; route: RestRoute }[] = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { meta?: { openapi?: RestRoute } } }>,
).flatMap(([procedure, p]) => (p._def.meta?.openapi ? [{ procedure, route: p._def.meta.openapi }] : []));

/**
 * Percent-encoding that takes any string: a lone surrogate (which encodeURIComponent refuses)
 * becomes its three bytes as if it were a character, which is not UTF-8: the server must cope.
 */
export function pct(s: string): string {
  let out = "";
  // for…of walks code points: a pair stays whole, a lone surrogate comes alone
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join("");
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

const asParam = (v: unknown): string => (typeof v === "string" ? v : v !== null && typeof v === "object" ? JSON.stringify(v) : String(v));

/**
 * A procedure's input as a REST request under /api/v1: the path's parameters taken from it, the
 * rest in the query string (GET, DELETE) or a JSON body.
 */
export function restRequest(route: RestRoute, input: unknown): { url: string; method: string; body: string | undefined } {
  const isObject = input !== null && typeof input === "object" && !Array.isArray(input);
  const fields: Record<string, unknown> = isObject ? { ...(input as Record<string, unknown>) } : {};
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = fields[name];
    delete fields[name];
    return pct(asParam(value));
  });
  if (route.method === "GET" || route.method === "DELETE") {
    const qs = Object.entries(fields).map(([k, v]) => `${pct(k)}=${pct(asParam(v))}`).join("&");
    return { url: `/api/v1${path}${qs ? `?${qs}` : ""}`, method: route.method, body: undefined };
  }
  // a body that is not an object goes as it is (the fuzzer sends such)
  return { url: `/api/v1${path}`, method: route.method, body: JSON.stringify(isObject ? fields : (input ?? {})) };
}

export interface RestCall {
  procedure: string;
  method: string;
  /** under BASE, with its query string */
  url: string;
  body: string | undefined;
  contentType: string | undefined;
  auth: Call["auth"];
}

const authHeaders = (auth: Call["auth"], key: string): Record<string, string> =>
  auth === "key"
    ? { authorization: `Bearer ${key}` }
    : auth === "bad-key"
      ? { authorization: "Bearer gb_not_a_key_of_this_install_000000" }
      : auth === "bad-cookie"
        ? { cookie: "better-auth.session_token=%E0%A4%A; gb_team=%" }
        : {};

export function toRestRequest(call: RestCall, key: string): Request {
  const headers = { ...authHeaders(call.auth, key), ...(call.contentType ? { "content-type": call.contentType } : {}) };
  const hasBody = call.method !== "GET" && call.method !== "HEAD";
  return new Request(`${BASE}${call.url}`, { method: call.method, headers, body: hasBody ? (call.body ?? "") : undefined });
}

/** Hostile REST calls: mutated inputs (in path, query string or body), raw bodies, odd content types and methods. */
export function hostileRestCalls(sampleOf: Record<string, unknown>): fc.Arbitrary<RestCall> {
  return fc.constantFrom(...REST_ROUTES).chain(({ procedure, route }) => {
    const sample = sampleOf[procedure];
    const input = fc.oneof({ weight: 8, arbitrary: mutated(sample) }, { weight: 1, arbitrary: fc.constant(sample) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) });
    return fc.record({
      request: input.map((v) => restRequest(route, v)),
      raw: fc.option(rawBody, { freq: 5 }),
      method: fc.option(fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"), { freq: 10 }),
      contentType: fc.oneof(
        { weight: 12, arbitrary: fc.constant("application/json") },
        fc.constantFrom(undefined, "text/plain", "application/json; charset=utf-16", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded"),
      ),
      // never empty: a path ending in "/" is redirected by Next (308, the URL twice in its headers: past fetch's 16 KiB for a long one)
      junkPath: fc.option(hostileString.filter((s) => s.length > 0).map((s) => `/${pct(s)}`), { freq: 15 }),
      auth,
    }).map(({ request, raw, method, contentType, junkPath, auth: a }) => ({
      procedure,
      method: method ?? request.method,
      url: junkPath ? request.url.replace(/(\?|$)/, `${junkPath}$1`) : request.url,
      body: raw ?? request.body,
      contentType,
      auth: a,
    }));
  });
}

/** Why a REST answer is wrong, or null: a 5xx, an error that is not { code, message[, field] }, internals shown. */
export async function restVerdict(res: Response): Promise<string | null> {
  const text = await res.text();
  if (res.status >= 500) return `HTTP ${res.status}: ${text.slice(0, 500)}`;
  if (res.ok) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `HTTP ${res.status}, a body that is not JSON: ${text.slice(0, 200)}`;
  }
  const e = body as { code?: unknown; message?: unknown; field?: unknown };
  const keys = Object.keys(body ?? {}).sort().join(",");
  if (typeof e.code !== "string" || typeof e.message !== "string" || !["code,message", "code,field,message"].includes(keys)) {
    return `HTTP ${res.status}, an error body that is not { code, message, field? }: ${text.slice(0, 300)}`;
  }
  if (LEAKS.test(e.message)) return `HTTP ${res.status}, a message shows internals: ${e.message.slice(0, 300)}`;
  return null;
}

export function describeRestCall(call: RestCall): string {
  const body = call.body === undefined ? "(none)" : call.body.length > 300 ? `${call.body.slice(0, 300)}… (${call.body.length} chars)` : call.body;
  return `${call.method} ${call.url.slice(0, 300)} (${call.procedure}) content-type=${call.contentType ?? "(none)"} auth=${call.auth} body=${JSON.stringify(body)}`;
}

// ---- the MCP door (/api/mcp) ----------------------------------------------------------------

/** A valid argument object for every MCP tool (with every optional field present). */
export function mcpSamples(f: Fixture): Record<string, Record<string, unknown>> {
  const scope = { userId: "fuzz-user", channelId: "fuzz-channel", serverId: "fuzz-server" };
  return {
    remember: { dataset: f.dataset, text: "Ann moved to Oslo in 2021.", userId: "fuzz-user", series: "fuzz-series", occurredAt: "2024-01-02T03:04:05Z", wait: false },
    query: { dataset: f.dataset, question: "Where does Ann live?", asOf: "2024-06-01", limit: 3 },
    search_memory: { dataset: f.dataset, search: "Ann", limit: 3 },
    get_run: { kind: "remember", id: f.rememberRunId },
    stm_context: { dataset: f.dataset, scope },
    stm_update: { dataset: f.dataset, scope, messages: [{ role: "user", content: "hello" }] },
    forget: { dataset: f.doomed, userId: "nobody-at-all" },
    list_datasets: {},
  };
}

export interface McpCall {
  body: string;
  auth: Call["auth"];
}

export function toMcpRequest(call: McpCall, key: string): Request {
  return new Request(`${BASE}/api/mcp`, {
    method: "POST",
    headers: { ...authHeaders(call.auth, key), "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: call.body,
  });
}

/** Hostile JSON-RPC: tool calls with a mutated argument, unknown tools and methods, raw bodies, batches. */
export function hostileMcpCalls(samplesOf: Record<string, Record<string, unknown>>): fc.Arbitrary<McpCall> {
  const rpc = (method: string, params: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
  const toolCall = fc
    .constantFrom(...Object.keys(samplesOf), "no_such_tool", "__proto__")
    .chain((name) => mutated(samplesOf[name] ?? {}).map((args) => rpc("tools/call", { name, arguments: args })));
  const body: fc.Arbitrary<string> = fc.oneof(
    { weight: 8, arbitrary: toolCall },
    fc.constantFrom("tools/list", "resources/list", "resources/templates/list", "prompts/list", "ping", "initialize", "nope").chain((m) => fc.jsonValue({ maxDepth: 3 }).map((p) => rpc(m, p))),
    fc.tuple(fc.constantFrom("gligabao://datasets", "gligabao://datasets/x", "file:///etc/passwd"), hostileString).map(([uri, s]) => rpc("resources/read", { uri: uri + pct(s) })),
    fc.tuple(fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 })).map(([id, params]) => rpc("tools/call", params, id)),
    fc.array(toolCall, { minLength: 1, maxLength: 5 }).map((calls) => `[${calls.join(",")}]`),
    rawBody,
  );
  return fc.record({ body, auth });
}

/** Why an MCP answer is wrong, or null: a 5xx, JSON-RPC's internal error, internals in any message or tool text. */
export async function mcpVerdict(res: Response): Promise<string | null> {
  const text = await res.text();
  if (res.status >= 500) return `HTTP ${res.status}: ${text.slice(0, 500)}`;
  if (!text) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return res.status === 431 ? null : `HTTP ${res.status}, a body that is not JSON: ${text.slice(0, 200)}`;
  }
  for (const item of Array.isArray(body) ? body : [body]) {
    const m = item as { error?: { code?: unknown; message?: unknown }; result?: { isError?: unknown; content?: { text?: unknown }[] } } | null;
    if (m?.error?.code === -32603) return `JSON-RPC internal error: ${String(m.error.message)}`;
    // a tool's error text (a result that succeeded may quote remembered texts, whatever they say)
    const failed = m?.result?.isError === true ? (m.result.content ?? []) : [];
    const said = [m?.error?.message, ...failed.map((c) => c.text)].filter((s): s is string => typeof s === "string");
    const leak = said.find((s) => LEAKS.test(s));
    if (leak) return `HTTP ${res.status}, a message shows internals: ${leak.slice(0, 300)}`;
  }
  return null;
}
