import { and, count, eq, isNull, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { RememberStages } from "../../lib/stages";
import { callerFor, rejection } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import type { App } from "../app";
import { chunks, entities, facts, inferences, texts } from "../db/schema";
import { names } from "../pipeline";
import { rememberPipeline } from "./pipeline";
import { storeChunk } from "./store";
import { createQueuedRun } from "../runs/run-log";
import { randomUUID } from "node:crypto";

describe("the remember pipeline", () => {
  it("has exactly the stages of its run log, in order (TestPipelineStagesAreTheRunLogs)", () => {
    expect(names(rememberPipeline)).toEqual(RememberStages.map((s) => s.name));
  });
});

async function counts(app: App, datasetId: string) {
  const db = app.database.db;
  const n = async (t: typeof entities | typeof facts | typeof chunks | typeof texts) =>
    (await db.select({ n: count() }).from(t).where(eq(t.datasetId, datasetId)))[0]!.n;
  return { entities: await n(entities), facts: await n(facts), chunks: await n(chunks), texts: await n(texts) };
}

describeEachDriver("remember", (ctx) => {
  const remember = async (dataset: string, text: string, extra: Record<string, unknown> = {}) => {
    const r = await callerFor(ctx().app).remember.submit({ dataset, text, wait: true, ...extra });
    expect(r).toMatchObject({ status: "succeeded", error: null });
    return r.rememberRunId;
  };

  it("queues a run and returns at once; the run then succeeds with every stage accounted for", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    const submitted = await api.remember.submit({ dataset: ds.name, text: "Alice lives in Paris." });
    expect(submitted.status).toBe("queued");
    const ended = await app.remember.waitFor(submitted.rememberRunId, 20_000);
    expect(ended).toEqual({ status: "succeeded", error: null });
    const run = await api.remember.get({ id: submitted.rememberRunId });
    expect(run.userId).toBe("user:test-user");
    expect(Object.fromEntries(run.stages.map((s) => [s.name, s.status]))).toEqual({
      classify_complexity: "succeeded",
      chunk_text: "succeeded",
      extract_graph: "succeeded",
      summarize_chunk: "succeeded",
      load_candidates: "succeeded",
      resolve_edges: "succeeded",
      store: "succeeded",
      store_series: "skipped", // no series
      resolve_geo: "succeeded", // Paris is a place: the gazetteer places it
      web_search: "skipped",
      fetch_series: "skipped",
      observe_series: "skipped",
    });
    // model stages name their inferences (load_candidates embeds only with semantic embeddings: not builtin's)
    for (const s of run.stages.filter((x) => ["classify_complexity", "extract_graph", "summarize_chunk"].includes(x.name))) {
      expect(s.inferenceIds.length, s.name).toBeGreaterThan(0);
    }
    expect(run.stages.find((s) => s.name === "load_candidates")?.inferenceIds).toEqual([]);
    expect(run.params).toMatchObject({ dataset: ds.name, text: "Alice lives in Paris.", occurredAt: null });
  });

  it("rejects bad input with the field, and makes no run", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    expect(await rejection(api.remember.submit({ dataset: ds.name, text: "   " }))).toMatchObject({ code: "BAD_REQUEST", field: "text" });
    expect(await rejection(api.remember.submit({ dataset: ds.name, text: "x", source: { url: "not a url" } }))).toMatchObject({
      code: "BAD_REQUEST",
      field: "source.url",
    });
    expect(await rejection(api.remember.submit({ dataset: ds.name, text: "x", occurredAt: "yesterday" as never }))).toMatchObject({
      code: "BAD_REQUEST",
      field: "occurredAt",
    });
    expect(await rejection(api.remember.submit({ dataset: "no-such-dataset", text: "x" }))).toMatchObject({ code: "NOT_FOUND" });
    // options.enrich takes booleans, and only the three switches
    expect(await rejection(api.remember.submit({ dataset: ds.name, text: "x", options: { enrich: { geo: "yes" as never } } }))).toMatchObject({
      code: "BAD_REQUEST",
      field: "options.enrich.geo",
    });
    expect(await rejection(api.remember.submit({ dataset: ds.name, text: "x", options: { enrich: { maps: true } as never } }))).toMatchObject({
      code: "BAD_REQUEST",
      field: "options.enrich",
    });
    const small = { ...app, env: { ...app.env, GB_MAX_TEXT_BYTES: 16 } };
    expect(await rejection(callerFor(small).remember.submit({ dataset: ds.name, text: "é".repeat(9) }))).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      field: "text",
    });
    const runs = await api.runs.remember.list({ dataset: ds.name });
    expect(runs.items).toEqual([]);
    // with every enrichment switched off, the text is remembered
    expect((await api.remember.submit({ dataset: ds.name, text: "Ann lives in Oslo.", options: { enrich: { geo: false, webSearch: false } }, wait: true })).status).toBe("succeeded");
  });

  it("supersedes a fact that changes, keeping the old one invalidated (Paris → Berlin)", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    const first = await remember(ds.name, "Alice lives in Paris.");
    const second = await remember(ds.name, "In 2024 Alice moved to Berlin.");
    const found = await api.graph.entities({ dataset: ds.name, search: "alice" });
    expect(found.items.map((e) => e.name)).toEqual(["Alice"]);
    const alice = await api.graph.entity({ dataset: ds.name, id: found.items[0]!.id });
    const lives = (fs: typeof alice.current) => fs.filter((f) => f.predicate === "lives_in").map((f) => f.object?.name);
    expect(lives(alice.current)).toEqual(["Berlin"]);
    expect(lives(alice.past)).toEqual(["Paris"]);
    const paris = alice.past.find((f) => f.object?.name === "Paris")!;
    expect(paris.invalidAt?.toISOString().slice(0, 10)).toBe("2024-01-01"); // the new fact's validAt
    expect(paris.expiredAt).toBeInstanceOf(Date);
    expect(paris.createdRunId).toBe(first);
    expect(paris.invalidatedRunId).toBe(second);
    const berlin = alice.current.find((f) => f.object?.name === "Berlin")!;
    expect(paris.invalidatedBy).toBe(berlin.id);
    expect(berlin.validAt?.toISOString().slice(0, 10)).toBe("2024-01-01");

    const changes = await api.runs.remember.changes({ id: second });
    expect(changes.entitiesCreated.map((e) => e.name)).toEqual(["Berlin"]);
    expect(changes.factsCreated.map((f) => f.sentence)).toEqual([berlin.sentence]);
    expect(changes.factsInvalidated.map((f) => f.id)).toEqual([paris.id]);
  });

  it("stores the same text told twice once: no new entity, no new fact", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const text = "Bob works at Acme. He likes hiking with Carol in the Alps.";
    await remember(ds.name, text);
    const before = await counts(app, ds.id);
    const again = await remember(ds.name, text);
    const after = await counts(app, ds.id);
    expect(after.entities).toBe(before.entities);
    expect(after.facts).toBe(before.facts);
    expect(after.texts).toBe(before.texts + 1); // the telling itself is kept
    const changes = await callerFor(app).runs.remember.changes({ id: again });
    expect(changes).toMatchObject({ entitiesCreated: [], factsCreated: [], factsInvalidated: [] });
  });

  it("keeps at most one Acme when an alias links Bob and Robert", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Robert, also known as Bob, is an engineer.");
    await remember(ds.name, "Bob works at Acme.");
    await remember(ds.name, "Robert works at Acme Corp.");
    const db = app.database.db;
    const all = await db.select({ name: entities.name, aliases: entities.aliases }).from(entities).where(eq(entities.datasetId, ds.id));
    const acme = all.filter((e) => /acme/i.test(e.name));
    expect(acme).toHaveLength(1);
    const people = all.filter((e) => /^(bob|robert)/i.test(e.name));
    expect(people).toHaveLength(1);
    const current = await db
      .select({ n: count() })
      .from(facts)
      .where(and(eq(facts.datasetId, ds.id), eq(facts.predicate, "works_at"), isNull(facts.expiredAt)));
    expect(current[0]!.n).toBe(1);
  });

  it("keeps every stage's output, by item, and serves them filtered", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const id = await remember(ds.name, "Alice lives in Paris. She works at Acme.");
    const api = callerFor(app);
    const all = await api.runs.remember.outputs({ id });
    expect([...new Set(all.map((o) => o.stage))]).toEqual([
      "classify_complexity",
      "chunk_text",
      "extract_graph",
      "summarize_chunk",
      "load_candidates",
      "resolve_edges",
      "store",
      "resolve_geo", // Paris is a place
    ]);
    const extract = await api.runs.remember.outputs({ id, stage: "extract_graph" });
    expect(extract).toHaveLength(1);
    expect(extract[0]).toMatchObject({ stage: "extract_graph", itemIndex: 0 });
    expect(JSON.stringify(extract[0]!.output)).toContain("Paris");
    expect(await rejection(api.runs.remember.outputs({ id, stage: "nope" as never }))).toMatchObject({ code: "BAD_REQUEST", field: "stage" });
  });

  it("chunks a long text, stores every chunk with provenance, and links its series once", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const sentences = Array.from({ length: 120 }, (_, i) => `Member ${i} of the Zeta club lives in town number ${i} near the river.`);
    const id = await remember(ds.name, sentences.join(" "), { series: "club-notes", source: { kind: "doc", id: "d1", speaker: "Ann" } });
    const run = await callerFor(app).remember.get({ id });
    const byName = Object.fromEntries(run.stages.map((s) => [s.name, s]));
    expect(byName.store_series?.status).toBe("succeeded");
    // several chunks: store_series ran on its own, after the last store
    expect(byName.store_series!.startedAt!.getTime()).toBeGreaterThanOrEqual(byName.store!.finishedAt!.getTime());
    const db = app.database.db;
    const stored = await db.select().from(chunks).where(eq(chunks.datasetId, ds.id));
    expect(stored.length).toBeGreaterThan(1);
    // builtin embeddings mean nothing beyond the words: none are made or stored (nothing would read them)
    expect(stored.every((c) => c.summary.length > 0 && c.embedding === null)).toBe(true);
    const tasks = await db.selectDistinct({ task: inferences.task }).from(inferences).where(eq(inferences.runId, id));
    expect(tasks.map((t) => t.task)).not.toContain("embed");
    const [text] = await db.select().from(texts).where(eq(texts.datasetId, ds.id));
    expect(text).toMatchObject({ seriesKey: "club-notes", seriesPosition: 1, source: { kind: "doc", id: "d1", speaker: "Ann" } });
    const orphan = await db.execute(
      sql`SELECT count(*)::int AS n FROM gb_facts f WHERE f.dataset_id = ${ds.id} AND NOT EXISTS (SELECT 1 FROM gb_chunks c WHERE c.dataset_id = f.dataset_id AND c.id = f.chunk_id)`,
    );
    expect(JSON.stringify(orphan)).toContain('"n":0');
  });

  it("links a one-chunk text's series in store's own transaction", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Day one: Alice bought a bike.", { series: "diary" });
    const id = await remember(ds.name, "Day two: Alice rode the bike to Lyon.", { series: "diary" });
    const run = await callerFor(app).remember.get({ id });
    const store = run.stages.find((s) => s.name === "store")!;
    const series = run.stages.find((s) => s.name === "store_series")!;
    expect(series.status).toBe("succeeded");
    expect(series.startedAt).toEqual(store.startedAt);
    const rows = await app.database.db.select({ p: texts.seriesPosition }).from(texts).where(eq(texts.datasetId, ds.id));
    expect(rows.map((r) => r.p).sort()).toEqual([1, 2]);
  });

  it("runs one dataset's texts in submission order", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    const ids: string[] = [];
    for (const city of ["Rome", "Oslo", "Lima"]) {
      ids.push((await api.remember.submit({ dataset: ds.name, text: `Zed lives in ${city}.` })).rememberRunId);
    }
    for (const id of ids) await app.remember.waitFor(id, 20_000);
    const runs = await Promise.all(ids.map((id) => api.remember.get({ id })));
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.finishedAt!.getTime());
    const zed = (await api.graph.entities({ dataset: ds.name, search: "zed" })).items[0]!;
    const now = await api.graph.entity({ dataset: ds.name, id: zed.id });
    expect(now.current.filter((f) => f.predicate === "lives_in").map((f) => f.object?.name)).toEqual(["Lima"]);
  });

  it("stores nothing of a chunk whose transaction fails, and leaves no stage started", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const db = app.database.db;
    const fn = `gb_test_no_facts_${ds.id.replaceAll("-", "")}`;
    await db.execute(sql.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'facts refused by test'; END $$`));
    await db.execute(sql.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON gb_facts FOR EACH ROW WHEN (NEW.dataset_id = '${ds.id}') EXECUTE FUNCTION ${fn}()`));
    try {
      const r = await callerFor(app).remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
      expect(r.status).toBe("failed");
      expect(r.error).toMatch(/facts refused by test/);
      const run = await callerFor(app).remember.get({ id: r.rememberRunId });
      expect(run.stages.some((s) => s.status === "started")).toBe(false);
      expect(run.stages.find((s) => s.name === "store")).toMatchObject({ status: "failed" });
      expect(run.stages.find((s) => s.name === "store_series")?.status).toBe("not_started");
      expect(await counts(app, ds.id)).toEqual({ entities: 0, facts: 0, chunks: 0, texts: 0 });
    } finally {
      await db.execute(sql.raw(`DROP TRIGGER ${fn} ON gb_facts`));
      await db.execute(sql.raw(`DROP FUNCTION ${fn}()`));
    }
  });

  it("resumes a run from the chunks an earlier attempt stored: each chunk stored once, the plan followed", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const db = app.database.db;
    const api = callerFor(app);
    // several chunks of GB_CHUNK_TOKENS (512) tokens
    const people = ["Alice Moreau", "Bruno Petit", "Chloe Garnier", "Denis Roche"];
    const towns = ["Lyon", "Nantes", "Lille", "Dijon"];
    const paragraph = (k: number) => Array.from({ length: 38 }, (_, i) => `${people[k]} visited ${towns[(k + i) % 4]} on day ${i + 1} of the trip.`).join(" ");
    const text = people.map((_, k) => paragraph(k)).join("\n\n");
    // chunk 2's store fails like a database in trouble (serialization failure, SQLSTATE 40001)
    const fn = `gb_test_busy_${ds.id.replaceAll("-", "")}`;
    await db.execute(sql.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'database busy (test)' USING ERRCODE = '40001'; END $$`));
    await db.execute(sql.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON gb_chunks FOR EACH ROW WHEN (NEW.dataset_id = '${ds.id}' AND NEW.idx = 2) EXECUTE FUNCTION ${fn}()`));
    let dropped = false;
    const drop = async () => {
      if (dropped) return;
      dropped = true;
      await db.execute(sql.raw(`DROP TRIGGER ${fn} ON gb_chunks`));
      await db.execute(sql.raw(`DROP FUNCTION ${fn}()`));
    };
    try {
      const { rememberRunId: id } = await api.remember.submit({ dataset: ds.name, text });
      const firstAttempt = async () => {
        const run = await api.remember.get({ id });
        return run.attempts.length === 1 && run.status === "queued" ? run : undefined;
      };
      const deadline = Date.now() + 20_000;
      let waiting = await firstAttempt();
      while (!waiting && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        waiting = await firstAttempt();
      }
      await drop();
      // the attempt ended transient, queued again with a backoff; chunks 0 and 1 are stored
      expect(waiting?.attempts[0]).toMatchObject({ attempt: 1, kind: "transient", error: "database busy (test)" });
      expect(waiting?.retryAt).toBeInstanceOf(Date);
      const stored = await db.select({ idx: chunks.index, id: chunks.id }).from(chunks).where(eq(chunks.datasetId, ds.id));
      expect(stored.map((c) => c.idx).sort()).toEqual([0, 1]);

      expect(await app.remember.waitFor(id, 30_000)).toEqual({ status: "succeeded", error: null });
      const outputs = await api.runs.remember.outputs({ id });
      const plan = outputs.find((o) => o.stage === "chunk_text")?.output as { chunks: unknown[]; resumed?: { attempt: number; storedBefore: number[] } };
      const n = plan.chunks.length;
      expect(n).toBeGreaterThanOrEqual(4);
      const every = Array.from({ length: n }, (_, i) => i);
      const all = await db.select({ idx: chunks.index, id: chunks.id, textId: chunks.textId }).from(chunks).where(eq(chunks.datasetId, ds.id));
      expect(all.map((c) => c.idx).sort((a, b) => a - b)).toEqual(every);
      // chunks 0 and 1 are the first attempt's rows, untouched; one text, whose id is the run's
      for (const c of stored) expect(all.find((x) => x.idx === c.idx)?.id).toBe(c.id);
      expect(new Set(all.map((c) => c.textId))).toEqual(new Set([id]));
      expect(await counts(app, ds.id)).toMatchObject({ chunks: n, texts: 1 });
      // the second attempt followed the first's plan and worked on the chunks after 0 and 1 only
      expect(plan.resumed).toEqual({ attempt: 2, storedBefore: [0, 1] });
      expect(outputs.filter((o) => o.stage === "store").map((o) => o.itemIndex)).toEqual(every);
      expect(outputs.filter((o) => o.stage === "extract_graph").map((o) => o.itemIndex)).toEqual(every);
      const run = await api.remember.get({ id });
      expect(run).toMatchObject({ status: "succeeded", attempt: 2, progress: { chunksDone: n, chunksTotal: n } });
      expect(run.attempts).toHaveLength(1);
      expect(run.stages.find((s) => s.name === "classify_complexity")?.status).toBe("skipped");
      // every person's facts once: four subjects, none doubled
      const byPerson = await db
        .select({ name: entities.name, n: count() })
        .from(facts)
        .innerJoin(entities, and(eq(entities.datasetId, facts.datasetId), eq(entities.id, facts.subjectId)))
        .where(and(eq(facts.datasetId, ds.id), isNull(facts.expiredAt)))
        .groupBy(entities.name);
      expect(byPerson.map((r) => r.name).sort()).toEqual([...people].sort());
    } finally {
      await drop();
    }
  });

  it("store is fenced: an attempt that no longer holds its run stores nothing", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const db = app.database.db;
    const runId = await createQueuedRun(db, "remember", { datasetId: ds.id, userId: null, params: {} });
    // attempt 2 holds the run now (attempt 1's process was taken for dead)
    await db.execute(sql`UPDATE gb_remember_runs SET status = 'started', attempts = 2 WHERE id = ${runId}`);
    const input = (attempt: number) => ({
      datasetId: ds.id,
      runId,
      attempt,
      text: { id: runId, content: "Alice lives in Paris.", userId: null, source: {}, seriesKey: null, occurredAt: null },
      chunk: { id: randomUUID(), index: 0, content: "Alice lives in Paris.", summary: "", tokenCount: 5, embedding: null },
      plan: { entities: [], facts: [], duplicates: [], invalidations: [], asked: null },
      vectors: new Map<string, number[]>(),
      linkSeries: false,
    });
    const stale = await storeChunk(db, input(1)).catch((e: unknown) => e);
    expect(stale).toMatchObject({ name: "LeaseLostError" });
    expect(await counts(app, ds.id)).toMatchObject({ chunks: 0, texts: 0 });
    expect((await storeChunk(db, input(2))).factsCreated).toBe(0);
    expect(await counts(app, ds.id)).toMatchObject({ chunks: 1, texts: 1 });
    // a run that ended is nobody's to write
    await db.execute(sql`UPDATE gb_remember_runs SET status = 'succeeded' WHERE id = ${runId}`);
    expect(await storeChunk(db, { ...input(2), chunk: { ...input(2).chunk, id: randomUUID(), index: 1 } }).catch((e: unknown) => e)).toMatchObject({
      name: "LeaseLostError",
    });
  });

  it("idempotencyKey: the same key in a dataset is the same run, whatever its state; another request under it is a CONFLICT", async () => {
    const { app } = ctx();
    const [ds, other] = [await freshDataset(app), await freshDataset(app)];
    const api = callerFor(app);
    const first = await api.remember.submit({ dataset: ds.name, text: "Yann lives in Brest.", idempotencyKey: "msg-1" });
    expect(first).toMatchObject({ status: "queued", replayed: false });
    const again = await api.remember.submit({ dataset: ds.name, text: "Yann lives in Brest.", idempotencyKey: "msg-1", wait: true });
    expect(again).toMatchObject({ rememberRunId: first.rememberRunId, status: "succeeded", replayed: true });
    // after it ended, still the same run, and nothing new is stored
    const later = await api.remember.submit({ dataset: ds.name, text: "Yann lives in Brest.", idempotencyKey: "msg-1" });
    expect(later).toMatchObject({ rememberRunId: first.rememberRunId, status: "succeeded", replayed: true });
    expect(await counts(app, ds.id)).toMatchObject({ texts: 1, chunks: 1 });
    // another text under the key: refused, nothing queued
    const clash = await rejection(api.remember.submit({ dataset: ds.name, text: "Yann lives in Paris.", idempotencyKey: "msg-1" }));
    expect(clash).toMatchObject({ code: "CONFLICT" });
    expect(clash.message).toMatch(/^idempotencyKey: already used in dataset .* for another request \(remember run [0-9a-f-]{36}\)$/);
    // the same key in another dataset is another run
    const elsewhere = await api.remember.submit({ dataset: other.name, text: "Yann lives in Brest.", idempotencyKey: "msg-1" });
    expect(elsewhere.rememberRunId).not.toBe(first.rememberRunId);
    expect((await api.runs.remember.list({ dataset: ds.name })).items).toHaveLength(1);
  });

  it("idempotencyKey: concurrent submits with one key make one run", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    const all = await Promise.all(Array.from({ length: 8 }, () => api.remember.submit({ dataset: ds.name, text: "Vera lives in Metz.", idempotencyKey: "burst" })));
    expect(new Set(all.map((r) => r.rememberRunId)).size).toBe(1);
    expect(all.filter((r) => !r.replayed)).toHaveLength(1);
    await app.remember.waitFor(all[0]!.rememberRunId, 20_000);
    expect(await counts(app, ds.id)).toMatchObject({ texts: 1 });
  });

  it("idempotencyKey: bad keys are BAD_REQUEST with the field", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    for (const key of ["", "x".repeat(201), "a\u0000b", "line\nbreak", "\ud800"]) {
      expect(await rejection(api.remember.submit({ dataset: ds.name, text: "Ugo lives in Pau.", idempotencyKey: key }))).toMatchObject({
        code: "BAD_REQUEST",
        field: "idempotencyKey",
      });
    }
    expect((await api.runs.remember.list({ dataset: ds.name })).items).toHaveLength(0);
  });

  it("explores the graph: search, an entity's facts, its neighbourhood", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Alice works at Acme. Acme is based in Lyon. Bob met Alice in Lyon.");
    const api = callerFor(app);
    const alice = (await api.graph.entities({ dataset: ds.name, search: "ali" })).items[0]!;
    expect(alice.name).toBe("Alice");
    const hood = await api.graph.neighbourhood({ dataset: ds.name, id: alice.id, depth: 2 });
    const names1 = hood.nodes.map((n) => n.name);
    expect(names1).toContain("Acme");
    expect(hood.nodes.find((n) => n.name === "Alice")?.depth).toBe(0);
    for (const e of hood.edges) expect(hood.nodes.some((n) => n.id === e.subject.id)).toBe(true);
    const page = await api.graph.entities({ dataset: ds.name, limit: 1 });
    expect(page.items).toHaveLength(1);
    const next = await api.graph.entities({ dataset: ds.name, limit: 1, cursor: page.nextCursor ?? "" });
    expect(next.items[0]!.name > page.items[0]!.name).toBe(true);
    expect(await rejection(api.graph.entity({ dataset: ds.name, id: crypto.randomUUID() }))).toMatchObject({ code: "NOT_FOUND" });
  });
});
