import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { Validator } from "@seriousme/openapi-schema-validator";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeEachDriver } from "../../test/db";
import { serve } from "../../test/http-server";
import { LOCAL_CALLER } from "../auth/caller";
import { createApiKey } from "../auth/keys";
import { handleRestV1, openApiDocument, REST_ENDPOINT } from "./openapi";
import { handleRunsRest } from "./rest";

/*
 * The REST API (/api/v1) and its OpenAPI document: the document is valid OpenAPI 3.1; every
 * operation in it, called over HTTP with a valid input, answers 200 with a body its documented
 * schema accepts; remember-then-query works from clients that are not ours (Python's urllib, plain
 * fetch); and the access rules and error bodies ({ code, message, field? }) hold at this door too.
 */

const execFileP = promisify(execFile);

/*
 * JSON Schema 2020-12 validation of answers: ajv 8, the validator's own dependency (the ajv at the
 * top of node_modules is eslint's ajv 6), with ajv-formats as the validator sets it up.
 */
interface ValidateFunction {
  (data: unknown): boolean;
  errors?: unknown;
}
interface Ajv {
  addSchema(schema: object, key: string): Ajv;
  compile(schema: object): ValidateFunction;
}
const fromValidator = createRequire(createRequire(import.meta.url).resolve("@seriousme/openapi-schema-validator"));
const Ajv2020 = (fromValidator("ajv/dist/2020") as { default: new (opts: object) => Ajv }).default;
const addFormats = fromValidator("ajv-formats") as (ajv: Ajv) => Ajv;

/** Every operation the REST API must have (the CLI depends on these). */
const OPERATIONS = [
  "POST /remember",
  "GET /remember/{id}",
  "POST /query",
  ...["remember", "query"].flatMap((k) => [`GET /runs/${k}`, `GET /runs/${k}/{id}`, `GET /runs/${k}/{id}/outputs`]),
  "GET /graph/entities",
  "GET /graph/entities/{id}",
  "GET /graph/neighbourhood",
  "GET /graph/series",
  "GET /graph/series-keys",
  "GET /datasets",
  "POST /datasets",
  "DELETE /datasets/{name}",
  "POST /stm/context",
  "POST /stm/capture",
  "POST /stm/upgrade",
  "POST /stm/execute-tool-call",
  "POST /stm/clear-channel",
  "POST /stm/clear-user",
  "POST /subjects/purge",
  "GET /v1/gb/admin/api/remember-runs",
  "GET /v1/gb/admin/api/query-runs",
];

type Doc = ReturnType<typeof openApiDocument>;

/** "METHOD /path" of every operation of the document. */
function operationsOf(doc: Doc): string[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    ["get", "post", "put", "patch", "delete"].filter((m) => m in (item as object)).map((m) => `${m.toUpperCase()} ${path}`),
  );
}

/** A validator of the document's schema at a JSON pointer (path segments). */
function schemaAt(ajv: Ajv, ...segments: string[]): ValidateFunction {
  const pointer = segments.map((s) => encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/");
  return ajv.compile({ $ref: `doc#/${pointer}` });
}

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1 and lists every REST operation and the two admin routes", async () => {
    const doc = openApiDocument();
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(doc)) as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(operationsOf(doc).sort()).toEqual([...OPERATIONS].sort());
    expect(doc.components?.securitySchemes).toEqual({ bearerAuth: expect.objectContaining({ type: "http", scheme: "bearer" }) });
  });

  it("says date-time for the times of answers, and the two JSON forms (not a bare string) for times in inputs", () => {
    const doc = JSON.parse(JSON.stringify(openApiDocument())) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const ok = doc.paths["/datasets"]?.post as { responses: { 200: { content: { "application/json": { schema: { properties: Record<string, unknown> } } } } } };
    expect(ok.responses[200].content["application/json"].schema.properties.createdAt).toEqual({ type: "string", format: "date-time" });
    const remember = doc.paths["/remember"]?.post as { requestBody: { content: { "application/json": { schema: { properties: { occurredAt: { anyOf: { format: string }[] } } } } } } };
    expect(remember.requestBody.content["application/json"].schema.properties.occurredAt.anyOf.map((s) => s.format)).toEqual(["date-time", "date"]);
  });
});

const OTHER_TEAM = "rest-team-b";

describeEachDriver(
  "the REST API over HTTP",
  (ctx) => {
    let server: Awaited<ReturnType<typeof serve>>;
    const keys = { owner: "", member: "", viewer: "", other: "", limited: "" };
    let ajv: Ajv;
    let errorBody: ValidateFunction;
    const doc = openApiDocument();
    const suffix = randomUUID().slice(0, 8);
    const f = {
      dataset: `rest-${suffix}`,
      doomed: `rest-doomed-${suffix}`,
      purged: `rest-purged-${suffix}`,
      rememberRunId: "",
      queryRunId: "",
      entityId: "",
      series: "rest-series",
    };
    const scope = { userId: "u-rest", channelId: "c-rest", serverId: "s-rest" };

    interface Answer {
      status: number;
      body: unknown;
      headers: Headers;
    }

    /** One REST call: `path` under /api/v1 (or from the root when it starts with /v1/gb/admin). */
    async function rest(method: string, path: string, opts: { key?: string | null; query?: Record<string, string>; body?: unknown; raw?: string } = {}): Promise<Answer> {
      const base = path.startsWith("/v1/gb/admin") ? server.url : `${server.url}${REST_ENDPOINT}`;
      const qs = opts.query ? `?${new URLSearchParams(opts.query).toString()}` : "";
      const headers: Record<string, string> = {};
      const key = opts.key === undefined ? keys.owner : opts.key;
      if (key) headers.authorization = `Bearer ${key}`;
      const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(`${base}${path}${qs}`, { method, headers, body });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null, headers: res.headers };
    }

    /** A call that must succeed; its body. */
    async function ok<T>(method: string, path: string, opts: Parameters<typeof rest>[2] = {}): Promise<T> {
      const a = await rest(method, path, opts);
      expect(a.status, `${method} ${path}: ${JSON.stringify(a.body)}`).toBe(200);
      return a.body as T;
    }

    beforeAll(async () => {
      const { app } = ctx();
      const db = app.database.db;
      server = await serve((path) => {
        if (path.startsWith(REST_ENDPOINT)) return (req) => handleRestV1(req, app);
        if (path === "/v1/gb/admin/api/remember-runs") return (req) => handleRunsRest("remember", req, app);
        if (path === "/v1/gb/admin/api/query-runs") return (req) => handleRunsRest("query", req, app);
        return undefined;
      });
      for (const role of ["owner", "member", "viewer"] as const) {
        keys[role] = (await createApiKey({ db, caller: LOCAL_CALLER, input: { name: `rest ${role}`, role } })).secret;
      }
      keys.limited = (await createApiKey({ db, caller: LOCAL_CALLER, input: { name: "rest limited", role: "member" } })).secret;
      await db.execute(sql`INSERT INTO gb_teams (id, name) VALUES (${OTHER_TEAM}, 'Team B')`);
      const ownerB = { kind: "key" as const, id: null, label: "team b", teamId: OTHER_TEAM, role: "owner" as const, datasetIds: null };
      keys.other = (await createApiKey({ db, caller: ownerB, input: { name: "team b owner", role: "owner" } })).secret;

      ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
      addFormats(ajv);
      ajv.addSchema(JSON.parse(JSON.stringify(doc)) as object, "doc");
      errorBody = schemaAt(ajv, "components", "responses", "Error", "content", "application/json", "schema");

      // the fixture, made over REST
      for (const name of [f.dataset, f.doomed, f.purged]) await ok("POST", "/datasets", { body: { name } });
      const texts = ["Mira Holm moved to Tromso in 2021. Mira Holm works at Nordlys.", "Nordlys had revenue of 3 M EUR in 2023."];
      for (const [i, text] of texts.entries()) {
        const r = await ok<{ rememberRunId: string; status: string }>("POST", "/remember", {
          body: { dataset: f.dataset, text, wait: true, series: f.series, occurredAt: `202${3 + i}-01-02T03:04:05Z` },
        });
        expect(r.status).toBe("succeeded");
        f.rememberRunId ||= r.rememberRunId;
      }
      await ok("POST", "/remember", { body: { dataset: f.purged, text: "Pia Lund lives in Malmo.", userId: "rest-purged-user", wait: true } });
      f.queryRunId = (await ok<{ queryRunId: string }>("POST", "/query", { body: { dataset: f.dataset, question: "Where did Mira Holm move?" } })).queryRunId;
      const entities = await ok<{ items: { id: string; name: string }[] }>("GET", "/graph/entities", { query: { dataset: f.dataset, search: "Mira" } });
      f.entityId = entities.items[0]?.id ?? "";
      expect(f.entityId).not.toBe("");
      await ok("POST", "/stm/capture", { body: { dataset: f.dataset, scope, messages: [{ role: "user", content: "hello" }] } });
    }, 120_000);
    afterAll(() => server.close());

    /** A valid call of each operation: path parameters, query string, body. */
    function validCall(op: string): { path: Record<string, string>; query?: Record<string, string>; body?: unknown } | undefined {
      const run = { id: f.rememberRunId };
      const qrun = { id: f.queryRunId };
      const calls: Record<string, { path: Record<string, string>; query?: Record<string, string>; body?: unknown }> = {
        "POST /remember": {
          path: {},
          body: {
            dataset: f.dataset,
            text: "Mira Holm visited Bergen in 2024.",
            wait: true,
            occurredAt: "2024-05-06",
            userId: "rest-user",
            source: { kind: "chat", id: "m-1", url: "https://example.com/m/1", speaker: "Mira" },
            options: { enrich: { geo: false } },
            idempotencyKey: `walk-${suffix}`,
          },
        },
        "GET /remember/{id}": { path: run },
        "POST /query": { path: {}, body: { dataset: f.dataset, question: "Where did Mira Holm move?", asOf: "2030-01-01T00:00:00Z", limit: 5 } },
        "GET /runs/remember": { path: {}, query: { dataset: f.dataset, status: "succeeded", flagged: "false", limit: "10" } },
        "GET /runs/remember/{id}": { path: run },
        "GET /runs/remember/{id}/outputs": { path: run, query: { stage: "extract_graph" } },
        "GET /runs/query": { path: {}, query: { dataset: f.dataset } },
        "GET /runs/query/{id}": { path: qrun },
        "GET /runs/query/{id}/outputs": { path: qrun },
        "GET /graph/entities": { path: {}, query: { dataset: f.dataset, limit: "5" } },
        "GET /graph/entities/{id}": { path: { id: f.entityId }, query: { dataset: f.dataset } },
        "GET /graph/neighbourhood": { path: {}, query: { dataset: f.dataset, id: f.entityId, depth: "2" } },
        "GET /graph/series": { path: {}, query: { dataset: f.dataset, key: f.series } },
        "GET /graph/series-keys": { path: {}, query: { dataset: f.dataset } },
        "GET /datasets": { path: {}, query: { limit: "50" } },
        "POST /datasets": { path: {}, body: { name: `rest-made-${suffix}` } },
        "DELETE /datasets/{name}": { path: { name: f.doomed }, query: { confirm: f.doomed } },
        "POST /stm/context": { path: {}, body: { dataset: f.dataset, scope, mode: "mixed" } },
        "POST /stm/capture": { path: {}, body: { dataset: f.dataset, scope, messages: [{ role: "assistant", content: "hi there", at: "2024-01-01T10:00:00+02:00" }] } },
        "POST /stm/upgrade": { path: {}, body: { dataset: f.dataset, scope, turnId: "t-1", summary: "Greetings.", categories: { mood: "friendly" } } },
        "POST /stm/execute-tool-call": { path: {}, body: { dataset: f.dataset, scope, turnId: "t-2", arguments: JSON.stringify({ summary: "Still greeting." }) } },
        "POST /stm/clear-channel": { path: {}, body: { dataset: f.dataset, channelId: "c-gone" } },
        "POST /stm/clear-user": { path: {}, body: { dataset: f.dataset, userId: "u-gone" } },
        "POST /subjects/purge": { path: {}, body: { dataset: f.purged, userId: "rest-purged-user" } },
        "GET /v1/gb/admin/api/remember-runs": { path: {}, query: { dataset: f.dataset, flagged: "false" } },
        "GET /v1/gb/admin/api/query-runs": { path: {}, query: { dataset: f.dataset, limit: "5" } },
      };
      return calls[op];
    }

    it("answers every operation of the document as documented", async () => {
      const answered: string[] = [];
      for (const op of operationsOf(doc)) {
        const call = validCall(op);
        expect(call, `${op} has no valid call in this test`).toBeDefined();
        if (!call) continue;
        const [method = "", template = ""] = op.split(" ");
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(call.path[name] ?? ""));
        const { status, body } = await rest(method, path, { query: call.query, body: call.body });
        expect({ op, status, body: status === 200 ? "…" : body }).toEqual({ op, status: 200, body: "…" });
        const validate = schemaAt(ajv, "paths", template, method.toLowerCase(), "responses", "200", "content", "application/json", "schema");
        expect({ op, errors: validate(body) ? null : validate.errors }).toEqual({ op, errors: null });
        // and the schema says something: not any JSON at all
        expect({ op, anything: validate({ surprise: true }) }).toEqual({ op, anything: false });
        answered.push(op);
      }
      expect(answered.sort()).toEqual([...OPERATIONS].sort());
    }, 120_000);

    it("reads query strings: numbers, and flagged=false as false", async () => {
      const all = await ok<{ items: { id: string; flagged: boolean }[] }>("GET", "/runs/remember", { query: { dataset: f.dataset, flagged: "false", limit: "1" } });
      expect(all.items).toHaveLength(1);
      const flagged = await ok<{ items: { flagged: boolean }[] }>("GET", "/runs/remember", { query: { dataset: f.dataset, flagged: "true" } });
      expect(flagged.items.every((r) => r.flagged)).toBe(true);
      const unflagged = await ok<{ items: { flagged: boolean }[] }>("GET", "/runs/remember", { query: { dataset: f.dataset } });
      expect(unflagged.items.length).toBeGreaterThan(flagged.items.length);
      const bad = await rest("GET", "/runs/remember", { query: { dataset: f.dataset, limit: "many" } });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: "BAD_REQUEST", field: "limit" });
    });

    it("remembers and answers for a Python client (urllib) citing the fact", async () => {
      const script = `
import json, os, urllib.request
base, key, ds = os.environ["BASE"], os.environ["KEY"], os.environ["DATASET"]
def post(path, body):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + key})
    with urllib.request.urlopen(req, timeout=60) as res:
        return json.load(res)
run = post("/remember", {"dataset": ds, "text": "Ottilie Brandt runs a bakery in Lisbon.", "wait": True})
assert run["status"] == "succeeded", run
ans = post("/query", {"dataset": ds, "question": "Where does Ottilie Brandt run a bakery?"})
cited = [s for s in ans["sources"] if "Lisbon" in s["text"]]
assert cited and ("[%d]" % cited[0]["n"]) in ans["answer"], ans
print(json.dumps({"run": run["rememberRunId"], "answer": ans["answer"]}))
`;
      const { stdout } = await execFileP("python3", ["-c", script], {
        env: { ...process.env, BASE: `${server.url}${REST_ENDPOINT}`, KEY: keys.member, DATASET: f.dataset },
        timeout: 90_000,
      });
      const out = JSON.parse(stdout) as { run: string; answer: string };
      expect(out.answer).toMatch(/Lisbon/);
      const run = await ok<{ status: string; dataset: string }>("GET", `/remember/${out.run}`);
      expect(run).toMatchObject({ status: "succeeded", dataset: f.dataset });
    }, 120_000);

    it("remembers and answers for plain fetch, citing the fact", async () => {
      const run = await ok<{ status: string }>("POST", "/remember", { body: { dataset: f.dataset, text: "Jonas Berg teaches chemistry in Porto.", wait: true } });
      expect(run.status).toBe("succeeded");
      const ans = await ok<{ answer: string; sources: { n: number; text: string; validAt: string | null }[] }>("POST", "/query", {
        body: { dataset: f.dataset, question: "What does Jonas Berg teach?" },
      });
      const cited = ans.sources.find((s) => s.text.includes("chemistry"));
      expect(cited).toBeDefined();
      expect(ans.answer).toContain(`[${cited?.n}]`);
    });

    it("says who may not: 401 without a key, 404 for another team, 403 for a viewer writing", async () => {
      for (const key of [null, "gb_not_a_key_at_all_0000000000000000000000"]) {
        const none = await rest("GET", "/datasets", { key });
        expect(none.status).toBe(401);
        expect(none.body).toMatchObject({ code: "UNAUTHORIZED" });
        expect(errorBody(none.body)).toBe(true);
      }
      const other = await rest("GET", "/runs/remember", { key: keys.other, query: { dataset: f.dataset } });
      expect(other.status).toBe(404);
      expect(other.body).toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining(f.dataset) });
      expect((await rest("GET", `/remember/${f.rememberRunId}`, { key: keys.other })).status).toBe(404);
      expect((await rest("POST", "/query", { key: keys.other, body: { dataset: f.dataset, question: "Where?" } })).status).toBe(404);
      const viewer = await rest("POST", "/remember", { key: keys.viewer, body: { dataset: f.dataset, text: "A viewer writes." } });
      expect(viewer.status).toBe(403);
      expect(viewer.body).toMatchObject({ code: "FORBIDDEN" });
      expect(errorBody(viewer.body)).toBe(true);
      // reads are fine for a viewer
      expect((await rest("GET", `/remember/${f.rememberRunId}`, { key: keys.viewer })).status).toBe(200);
    });

    it("answers bad input with 400, tRPC's message and the field", async () => {
      const slug = await rest("POST", "/datasets", { body: { name: "Not A Slug" } });
      expect(slug.status).toBe(400);
      expect(slug.body).toEqual({ code: "BAD_REQUEST", message: expect.stringMatching(/^name: must be a lowercase slug/), field: "name" });
      expect(errorBody(slug.body)).toBe(true);
      const when = await rest("POST", "/remember", { body: { dataset: f.dataset, text: "x", occurredAt: "yesterday" } });
      expect(when.body).toMatchObject({ code: "BAD_REQUEST", field: "occurredAt" });
      const confirm = await rest("DELETE", `/datasets/${f.dataset}`, { query: { confirm: "nope" } });
      expect(confirm.body).toMatchObject({ code: "BAD_REQUEST", field: "confirm", message: "confirm: must repeat the dataset's name" });
      // a domain error (ValidationError) names its field too
      const empty = await rest("POST", "/stm/upgrade", { body: { dataset: f.dataset, scope, turnId: "t-9", summary: "x".repeat(100_000) } });
      expect(empty.body).toMatchObject({ code: "BAD_REQUEST", field: "summary" });
      const strict = await rest("POST", "/query", { body: { dataset: f.dataset, question: "Where?", nonsense: 1 } });
      expect(strict.status).toBe(400);
      expect(JSON.stringify(strict.body)).not.toContain("Input validation failed");
    });

    it("answers malformed JSON, a body that is not JSON and an unknown path in JSON", async () => {
      const broken = await rest("POST", "/remember", { raw: '{"dataset": "x", ' });
      expect(broken.status).toBe(400);
      expect(broken.body).toEqual({ code: "BAD_REQUEST", message: "body: is not valid JSON" });
      const form = await fetch(`${server.url}${REST_ENDPOINT}/remember`, { method: "POST", headers: { authorization: `Bearer ${keys.owner}`, "content-type": "text/plain" }, body: "hello" });
      expect(form.status).toBe(415);
      expect(await form.json()).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
      for (const [method, path] of [["GET", "/nothing-here"], ["DELETE", "/remember"], ["GET", "/remember/x/y"]] as const) {
        const missing = await rest(method, path);
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual({ code: "NOT_FOUND", message: `no such operation: ${method} ${REST_ENDPOINT}${path} (the API is described at /api/openapi.json)` });
      }
      const unknownRun = await rest("GET", `/remember/${randomUUID()}`);
      expect(unknownRun).toMatchObject({ status: 404, body: { code: "NOT_FOUND", message: expect.stringMatching(/^remember run not found: /) } });
    });

    it("keeps the retry-after header of TOO_MANY_REQUESTS", async () => {
      const ask = () => rest("POST", "/query", { key: keys.limited, body: { dataset: f.dataset, question: "Where did Mira Holm move?" } });
      let last: Answer | null = null;
      for (let i = 0; i < 5; i++) last = await ask();
      expect(last?.status).toBe(429);
      expect(last?.body).toMatchObject({ code: "TOO_MANY_REQUESTS" });
      expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    });
  },
  // a query budget the 429 test can use up with its own key (every other key asks fewer times)
  { env: () => ({ GB_RATE_LIMIT_QUERY: "4" }) },
);
