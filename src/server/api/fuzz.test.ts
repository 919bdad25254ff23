import fc from "fast-check";
import { afterEach, beforeAll, expect, it, vi } from "vitest";
import { describeEachDriver } from "../../test/db";
import { MAX_BATCH_CALLS } from "../../lib/limits";
import {
  type Call,
  describeCall,
  describeRestCall,
  type Fixture,
  hostileCalls,
  hostileMcpCalls,
  hostileRestCalls,
  leaves,
  makeFixture,
  mcpSamples,
  mcpVerdict,
  PROCEDURES,
  restVerdict,
  samples,
  type Send,
  setAt,
  toMcpRequest,
  toRequest,
  toRestRequest,
  verdict,
} from "../../test/fuzz";
import { handleMcp } from "../mcp/http";
import { handleTrpc } from "./http";
import { handleRestV1 } from "./openapi";

/*
 * Property: no input makes the API answer 5xx or show its internals. fast-check drives every
 * procedure of the router (src/test/fuzz.ts) through the HTTP handler the Next route calls, on a
 * real app on both databases, with a fixed seed: a failure prints the seed and the call, shrunk.
 * The REST door (/api/v1: every error a { code, message, field? } body) and the MCP door
 * (/api/mcp: no JSON-RPC internal error) get the same hostile values.
 */

const KEY = "gb_fuzz_owner_key_00000000000000000";
const SEED = 20261201;
/** calls per database (single calls and batches of up to 25) */
const RUNS = Number(process.env.FUZZ_RUNS ?? 750);
/** FUZZ_SURVEY=1: count every bad answer instead of stopping at the first (to measure a change) */
const SURVEY = process.env.FUZZ_SURVEY === "1";

// the console.error spies end with their test (files share a process: vitest.config.ts)
afterEach(() => vi.restoreAllMocks());

describeEachDriver(
  "hostile input over HTTP",
  (ctx) => {
    let send: Send;
    let fixture: Fixture;
    beforeAll(async () => {
      send = (req) => handleTrpc(req, ctx().app);
      fixture = await makeFixture(send, KEY, "fuzz");
    }, 120_000);

    it("has a valid sample input for every procedure", () => {
      const sampleOf = samples(fixture);
      expect(PROCEDURES.filter((p) => !(p.path in sampleOf)).map((p) => p.path)).toEqual([]);
    });

    /** One call's status and first error (of a batch: the statuses of its items). */
    async function answer(call: Omit<Call, "auth"> & { auth?: Call["auth"] }) {
      const res = await send(toRequest({ auth: "key", ...call }, KEY));
      const body = (await res.json()) as unknown;
      const items = (Array.isArray(body) ? body : [body]) as { error?: { json: { message: string; data: { field: string | null; httpStatus: number } } } }[];
      return { status: res.status, error: items.find((i) => i.error)?.error?.json ?? null, items };
    }
    const post = (path: string, json: unknown, meta?: unknown) => ({ path, method: "POST" as const, batch: false, raw: JSON.stringify(meta ? { json, meta } : { json }) });
    const get = (path: string, json: unknown) => ({ path, method: "GET" as const, batch: false, raw: JSON.stringify({ json }) });
    const typeOf = (path: string) => PROCEDURES.find((p) => p.path === path)?.type;
    const cursorOf = (key: unknown) => Buffer.from(JSON.stringify(key)).toString("base64url");

    it("refuses NUL and unpaired surrogates in every string field, naming the field", async () => {
      const sampleOf = samples(fixture);
      let checked = 0;
      for (const { path } of PROCEDURES) {
        const sample = sampleOf[path];
        for (const leaf of sample === undefined ? [] : leaves(sample)) {
          if (typeof leaf.value !== "string") continue;
          for (const bad of ["a\u0000b", "a\ud800b", "\udc00"]) {
            const input = setAt(sample, leaf.path, bad);
            const { status, error } = await answer(typeOf(path) === "query" ? get(path, input) : post(path, input));
            expect({ path, field: leaf.path.join("."), status }).toEqual({ path, field: leaf.path.join("."), status: 400 });
            expect(error?.message).toContain(leaf.path.join("."));
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(100);
    });

    it("refuses times outside the years 1 to 9999, as strings and as superjson Dates", async () => {
      const ask = { dataset: fixture.dataset, question: "Where does Ann live?" };
      for (const asOf of ["0000-12-31", "+275760-09-13T00:00:00.000Z", "2024-02-31"]) {
        const { status, error } = await answer(post("query.ask", { ...ask, asOf }));
        expect(status).toBe(400);
        expect(error?.data.field).toBe("asOf");
      }
      for (const asOf of ["+275760-09-13T00:00:00.000Z", "-000001-01-01T00:00:00.000Z", "+010000-01-01T00:00:00.000Z", "garbage"]) {
        const { status, error } = await answer(post("query.ask", { ...ask, asOf }, { values: { asOf: ["Date"] } }));
        expect(status).toBe(400);
        expect(error?.message).toMatch(/^asOf: /);
      }
      const remember = { dataset: fixture.dataset, text: "Ann went home.", occurredAt: "+275760-09-13T00:00:00.000Z" };
      expect((await answer(post("remember.submit", remember, { values: { occurredAt: ["Date"] } }))).status).toBe(400);
      expect((await answer(post("query.ask", { ...ask, asOf: "9999-12-31T23:59:59Z" }))).status).toBe(200);
    });

    it("refuses forged cursors: wrong shape, a time or uuid the database would reject, nesting", async () => {
      const uuid = "00000000-0000-4000-8000-000000000000";
      // (a time is a fine entity name: these two are forged only where the key is a time)
      const badTimes = [cursorOf(["+275760-01-01T00:00:00.000Z", uuid]), cursorOf(["2020-02-31T00:00:00.000Z", uuid])];
      const forged = [
        ...badTimes,
        cursorOf(["2020-01-01T00:00:00.000Z", "y"]),
        cursorOf(["a", "y"]),
        cursorOf([["a"], uuid]),
        cursorOf(["a", uuid, "z"]),
        Buffer.from("[".repeat(150) + "]".repeat(150)).toString("base64url"),
        "not*base64",
      ];
      for (const cursor of forged) {
        for (const [path, input] of [
          ["runs.remember.list", { dataset: fixture.dataset, cursor }],
          ["runs.query.list", { dataset: fixture.dataset, cursor }],
          ["graph.entities", { dataset: fixture.dataset, cursor }],
          ["audit.list", { cursor }],
        ] as const) {
          if (path === "graph.entities" && badTimes.includes(cursor)) continue;
          const { status, error } = await answer(get(path, input));
          expect({ path, cursor, status }).toEqual({ path, cursor, status: 400 });
          expect(error?.data.field).toBe("cursor");
        }
      }
      // the cursors the API hands out still page
      expect((await answer(get("runs.remember.list", { dataset: fixture.dataset, cursor: fixture.runCursor }))).status).toBe(200);
      expect((await answer(get("graph.entities", { dataset: fixture.dataset, cursor: fixture.entityCursor }))).status).toBe(200);
      expect((await answer(get("audit.list", { cursor: fixture.auditCursor }))).status).toBe(200);
    });

    it(`takes at most ${MAX_BATCH_CALLS} calls in one batch`, async () => {
      const batchOf = (n: number) => ({
        path: Array.from({ length: n }, () => "datasets.list").join(","),
        method: "GET" as const,
        batch: true,
        raw: JSON.stringify({}),
      });
      const full = await answer(batchOf(MAX_BATCH_CALLS));
      expect(full.status).toBe(200);
      expect(full.items).toHaveLength(MAX_BATCH_CALLS);
      const over = await answer(batchOf(MAX_BATCH_CALLS + 1));
      expect(over.status).toBe(400);
      expect(over.error?.message).toBe(`a batch may hold at most ${MAX_BATCH_CALLS} calls`);
      expect((await answer(batchOf(1000))).status).toBe(400);
    });

    it("says what is wrong with input it cannot read, not the parser's words", async () => {
      const cases: [string, RegExp][] = [
        [`{"json":${"[".repeat(100_000)}${"]".repeat(100_000)}}`, /^input: is nested too deeply$/],
        ["not json", /^input: is not valid JSON$/],
        ['{"json":{"dataset":"x","question":"q"},"meta":{"referentialEqualities":{"question":"dataset"}}}', /^input: is not a superjson envelope/],
        ["null", /^input: is not a superjson envelope/],
      ];
      for (const [raw, message] of cases) {
        const { status, error } = await answer({ path: "query.ask", method: "POST", batch: false, raw });
        expect(status).toBe(400);
        expect(error?.message).toMatch(message);
      }
    });

    it("answers every call below 500, without SQL, stack frames or parser words", async () => {
      const log = vi.spyOn(console, "error");
      const sampleOf = samples(fixture);
      let calls = 0;
      const found = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(hostileCalls(sampleOf), async (call) => {
          calls++;
          const problem = await verdict(await send(toRequest(call, KEY)));
          if (problem && SURVEY) found.set(problem.slice(0, 120), (found.get(problem.slice(0, 120)) ?? 0) + 1);
          else if (problem) throw new Error(`${problem}\n  call: ${describeCall(call)}`);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      const bad = [...found.values()].reduce((a, b) => a + b, 0);
      console.log(`hostile input: ${calls} calls, ${bad} bad answers${bad ? `:\n${[...found].map(([p, n]) => `  ${n} × ${p}`).join("\n")}` : ""}`);
      expect(bad).toBe(0);
      // refused calls log nothing: only the background remember runs of fuzzed texts may log
      const apiLogs = log.mock.calls.map((c) => String(c[0])).filter((l) => l.startsWith("tRPC ") || l.startsWith("REST "));
      expect(apiLogs).toEqual([]);
    }, 180_000);

    it("REST: answers every call below 500, every error as { code, message, field? } without internals", async () => {
      const log = vi.spyOn(console, "error");
      let calls = 0;
      await fc.assert(
        fc.asyncProperty(hostileRestCalls(samples(fixture)), async (call) => {
          calls++;
          const problem = await restVerdict(await handleRestV1(toRestRequest(call, KEY), ctx().app));
          if (problem) throw new Error(`${problem}\n  call: ${describeRestCall(call)}`);
        }),
        { seed: SEED, numRuns: Math.ceil(RUNS / 2), endOnFailure: true },
      );
      console.log(`hostile REST input: ${calls} calls, none answered 5xx`);
      const apiLogs = log.mock.calls.map((c) => String(c[0])).filter((l) => l.startsWith("tRPC ") || l.startsWith("REST "));
      expect(apiLogs).toEqual([]);
    }, 180_000);

    it("MCP: answers every call below 500, with no internal error and no internals in a tool's error", async () => {
      const log = vi.spyOn(console, "error");
      let calls = 0;
      await fc.assert(
        fc.asyncProperty(hostileMcpCalls(mcpSamples(fixture)), async (call) => {
          calls++;
          const problem = await mcpVerdict(await handleMcp(toMcpRequest(call, KEY), ctx().app));
          if (problem) throw new Error(`${problem}\n  call: auth=${call.auth} body=${call.body.slice(0, 400)}`);
        }),
        { seed: SEED, numRuns: Math.ceil(RUNS / 3), endOnFailure: true },
      );
      console.log(`hostile MCP input: ${calls} calls, none answered 5xx`);
      expect(log.mock.calls.map((c) => String(c[0])).filter((l) => l.startsWith("MCP"))).toEqual([]);
    }, 180_000);
  },
  { env: () => ({ GB_BOOTSTRAP_API_KEY: KEY, GB_RATE_LIMIT_QUERY: "0", GB_RATE_LIMIT_REMEMBER: "0" }) },
);
