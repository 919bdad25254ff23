import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "../../../test/callers";
import { describeEachDriver, freshDataset } from "../../../test/db";
import { serve } from "../../../test/http-server";
import { facts, inferences, texts } from "../../db/schema";
import { recordedModels } from "../../models/record";
import { withInferenceScope } from "../../pipeline";
import { searxngSearch } from "./searxng";
import { observationContent, searchWeb } from "./web-search";

/*
 * web_search against a SearxNG on 127.0.0.1 that this file starts. Its results point at a second
 * loopback server, the "web", which must never be asked: a result is kept as the engine gave it.
 */

type Result = { title: string; url: string; content: string };
/** what the engine answers a query: results, or an HTTP status */
let engine: (query: string) => Result[] | number = () => [];
const searched: URL[] = [];
const fetched: string[] = [];
let searx: { url: string; close(): Promise<void> };
let web: { url: string; close(): Promise<void> };

beforeAll(async () => {
  web = await serve(() => async (req) => {
    fetched.push(req.url);
    return new Response("a page");
  });
  searx = await serve(() => async (req) => {
    const url = new URL(req.url);
    searched.push(url);
    const answer = engine(url.searchParams.get("q") ?? "");
    if (typeof answer === "number") return new Response("engine down", { status: answer });
    return Response.json({ query: url.searchParams.get("q"), results: answer.map((r) => ({ ...r, engine: "test" })) });
  });
});
afterAll(async () => {
  await searx.close();
  await web.close();
});

const page = (path: string) => `${web.url}/${path}`;
/** the engine knows Ondine Varga (and nothing else) */
const knowsOndine = (query: string): Result[] =>
  query === "Ondine Varga"
    ? [
        { title: "Ondine Varga - Orchestra Notes", url: page("varga"), content: "Ondine Varga works at <b>Kestrel Acoustics</b>." },
        { title: "Kestrel Acoustics | Studio", url: page("kestrel"), content: "Kestrel Acoustics is based in Grenoble." },
      ]
    : [];
const TEXT = "Ondine Varga lives in Lyon. Ondine Varga plays the cello with Bastien Royer.";

function reset(answer: (query: string) => Result[] | number) {
  engine = answer;
  searched.length = 0;
  fetched.length = 0;
}

describeEachDriver(
  "web_search with a SearxNG",
  (ctx) => {
    it("searchWeb: a query per main entity (at most three), each a web_search inference; results deduplicated, failures listed", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      const db = app.database.db;
      const models = recordedModels(app.provider, { db, datasetId: ds.id, runKind: "remember", runId: null });
      const search = searxngSearch(searx.url);
      reset((q) => (q === "Lyon" ? 503 : q === "Bastien Royer" ? [knowsOndine("Ondine Varga")[0]!] : knowsOndine(q)));
      const filed: string[] = [];
      const found = await withInferenceScope({ stage: "web_search", addInference: (id) => filed.push(id) }, () =>
        searchWeb({ models, search, text: TEXT, entities: ["Ondine Varga", "ondine varga", "Bastien Royer", "Lyon", "cello"] }),
      );
      expect(searched.map((u) => u.searchParams.get("q")).sort()).toEqual(["Bastien Royer", "Lyon", "Ondine Varga"]);
      expect(found.observations.map((o) => [o.url, o.query, o.content])).toEqual([
        [page("varga"), "Ondine Varga", "Ondine Varga. Ondine Varga works at Kestrel Acoustics."],
        [page("kestrel"), "Ondine Varga", "Kestrel Acoustics. Kestrel Acoustics is based in Grenoble."],
      ]);
      expect(found.output).toMatchObject({
        provider: "searxng",
        endpoint: `${searx.url}/search`,
        skipped: [{ url: page("varga"), query: "Bastien Royer", reason: 'also a result of "Ondine Varga"' }],
        errors: [{ query: "Lyon", error: `searxng at ${searx.url}/search answered HTTP 503 Service Unavailable` }],
      });
      const rows = await db.select().from(inferences).where(and(eq(inferences.datasetId, ds.id), inArray(inferences.id, filed)));
      expect(rows).toHaveLength(3);
      for (const r of rows) expect(r).toMatchObject({ task: "web_search", stage: "web_search", provider: "searxng", model: `${searx.url}/search`, runKind: "remember" });
      const lyon = rows.find((r) => (r.request as { query: string }).query === "Lyon");
      expect(lyon).toMatchObject({ request: { query: "Lyon", limit: 3 }, response: null, error: expect.stringMatching(/HTTP 503/) });
      const ondine = rows.find((r) => (r.request as { query: string }).query === "Ondine Varga");
      expect(ondine).toMatchObject({ error: null, response: { results: [{ url: page("varga"), snippet: "Ondine Varga works at Kestrel Acoustics." }, { url: page("kestrel") }] } });

      // every search failing fails the stage
      reset(() => 500);
      await expect(searchWeb({ models, search, text: TEXT, entities: ["Ondine Varga", "Lyon"] })).rejects.toThrow(/web search failed for every query: "Ondine Varga": .*HTTP 500.*"Lyon"/);
      expect(fetched).toEqual([]);
    });

    it("remember with webSearch: the results become observation texts with their URL, reconciled into facts a query finds; no result is fetched", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      reset(knowsOndine);
      const r = await api.remember.submit({ dataset: ds.name, text: TEXT, options: { enrich: { webSearch: true } }, wait: true });
      expect(r).toMatchObject({ status: "succeeded", error: null });
      const run = await api.remember.get({ id: r.rememberRunId });
      expect(run.flagged).toBe(false);
      const stage = run.stages.find((s) => s.name === "web_search")!;
      expect(stage.status).toBe("succeeded");
      // only the engine was asked, with a query per main entity; no result page was fetched
      expect(searched.length).toBeGreaterThan(0);
      expect(searched.length).toBeLessThanOrEqual(3);
      for (const u of searched) expect([u.pathname, u.searchParams.get("format")]).toEqual(["/search", "json"]);
      expect(searched.map((u) => u.searchParams.get("q"))).toContain("Ondine Varga");
      expect(fetched).toEqual([]);

      const db = app.database.db;
      const rows = await db.select().from(inferences).where(and(eq(inferences.datasetId, ds.id), eq(inferences.task, "web_search")));
      // one inference a search, filed under the stage
      expect(rows).toHaveLength(searched.length);
      for (const x of rows) {
        expect(x).toMatchObject({ runId: r.rememberRunId, stage: "web_search", provider: "searxng", model: `${searx.url}/search`, error: null });
        expect(stage.inferenceIds).toContain(x.id);
      }

      const observed = await db.select().from(texts).where(and(eq(texts.datasetId, ds.id), eq(texts.kind, "observation")));
      expect(observed.map((t) => t.source.url).sort()).toEqual([page("kestrel"), page("varga")]);
      const varga = observed.find((t) => t.source.url === page("varga"))!;
      expect(varga.content).toBe("Ondine Varga. Ondine Varga works at Kestrel Acoustics.");
      expect(varga.derivedFrom).toMatchObject({ stage: "web_search", url: page("varga"), query: "Ondine Varga" });

      const learnt = await db.select().from(facts).where(and(eq(facts.datasetId, ds.id), inArray(facts.textId, observed.map((t) => t.id))));
      expect(learnt.map((f) => f.predicate)).toEqual(expect.arrayContaining(["works_at", "based_in"]));

      const answer = await api.query.ask({ dataset: ds.name, question: "Where does Ondine Varga work?" });
      expect(answer.answer).toMatch(/Kestrel Acoustics/);
      expect(answer.sources.some((s) => s.kind === "fact" && /Kestrel/.test(s.text) && s.source.url === page("varga"))).toBe(true);

      const outputs = await api.runs.remember.outputs({ id: r.rememberRunId });
      const out = outputs.find((o) => o.stage === "web_search")?.output as { search: { queries: { query: string }[]; kept: { url: string }[] } };
      expect(out.search.kept.map((k) => k.url).sort()).toEqual([page("kestrel"), page("varga")]);
    });

    it("a search engine answering 500: web_search failed, the run succeeded, flagged; the text is stored", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      reset(() => 500);
      const r = await api.remember.submit({ dataset: ds.name, text: TEXT, options: { enrich: { webSearch: true } }, wait: true });
      expect(r).toMatchObject({ status: "succeeded", error: null });
      const run = await api.remember.get({ id: r.rememberRunId });
      expect(run.flagged).toBe(true);
      expect(run.stages.find((s) => s.name === "web_search")).toMatchObject({ status: "failed", error: expect.stringMatching(/HTTP 500/) });
      expect(run.stages.find((s) => s.name === "store")?.status).toBe("succeeded");
      const flagged = await api.runs.remember.list({ dataset: ds.name, flagged: true });
      expect(flagged.items.map((x) => x.id)).toEqual([r.rememberRunId]);
      const observed = await app.database.db.select().from(texts).where(and(eq(texts.datasetId, ds.id), eq(texts.kind, "observation")));
      expect(observed).toEqual([]);
      expect(fetched).toEqual([]);
    });

    it("without options.enrich.webSearch: true, web_search is skipped and the engine is not asked", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      reset(knowsOndine);
      for (const options of [undefined, { enrich: { webSearch: false } }]) {
        const r = await api.remember.submit({ dataset: ds.name, text: TEXT, ...(options ? { options } : {}), wait: true });
        const run = await api.remember.get({ id: r.rememberRunId });
        expect(run.stages.find((s) => s.name === "web_search")?.status).toBe("skipped");
      }
      expect(searched).toEqual([]);
    });
  },
  { env: () => ({ GB_SEARXNG_URL: searx.url }) },
);

describeEachDriver("web_search without a provider", (ctx) => {
  it("asked for, but with no provider configured, web_search is skipped", async () => {
    const { app } = ctx();
    expect(app.enrich.search).toBeNull();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    reset(knowsOndine);
    const r = await api.remember.submit({ dataset: ds.name, text: TEXT, options: { enrich: { webSearch: true } }, wait: true });
    expect(r.status).toBe("succeeded");
    const run = await api.remember.get({ id: r.rememberRunId });
    expect(run.stages.find((s) => s.name === "web_search")?.status).toBe("skipped");
    expect(searched).toEqual([]);
  });
});

describe("observationContent", () => {
  it("the title without its site, then the snippet, cut near 1000 characters at a word", () => {
    expect(observationContent({ title: "Lyon - Wikipedia", url: "https://x.test/", snippet: "Lyon is a city in France." })).toBe("Lyon. Lyon is a city in France.");
    expect(observationContent({ title: "Is it?", url: "https://x.test/", snippet: "" })).toBe("Is it?");
    const long = observationContent({ title: "T", url: "https://x.test/", snippet: "word ".repeat(400) });
    expect(long.length).toBeLessThanOrEqual(1000);
    expect(long).toMatch(/word…$/);
  });
});
