import { broaderOnly } from "../text/broader";
import { and, eq, sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { callerFor, rejection, TEST_OWNER } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import type { App } from "../app";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { entities, facts, inferences, queryRuns, queryStageOutputs, rememberRuns, rememberStageOutputs, texts } from "../db/schema";
import { NotFoundError } from "../errors";
import { countRows, purgeSubject } from "./purge";
import { PurgedTables, RedactedTables } from "./tally";
import { turnsDuring } from "../../test/event-loop";

const actor = { kind: "user" as const, id: "admin-1", label: "admin@test" };

/** Rows that point at something that no longer exists, entities nothing points at, or chunks whose kept `retired` is not what their facts say. */
async function orphans(db: Db, datasetId: string) {
  return queryRows<{ problem: string; id: string }>(
    db,
    sql`SELECT 'chunk without text' AS problem, c.id FROM gb_chunks c
          WHERE c.dataset_id = ${datasetId} AND NOT EXISTS (SELECT 1 FROM gb_texts t WHERE t.dataset_id = c.dataset_id AND t.id = c.text_id)
        UNION ALL SELECT 'fact without chunk, text or entity', f.id FROM gb_facts f
          WHERE f.dataset_id = ${datasetId} AND (
            NOT EXISTS (SELECT 1 FROM gb_chunks c WHERE c.dataset_id = f.dataset_id AND c.id = f.chunk_id)
            OR NOT EXISTS (SELECT 1 FROM gb_texts t WHERE t.dataset_id = f.dataset_id AND t.id = f.text_id)
            OR NOT EXISTS (SELECT 1 FROM gb_entities e WHERE e.dataset_id = f.dataset_id AND e.id = f.subject_id)
            OR (f.object_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM gb_entities e WHERE e.dataset_id = f.dataset_id AND e.id = f.object_id))
            OR (f.invalidated_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM gb_facts g WHERE g.dataset_id = f.dataset_id AND g.id = f.invalidated_by)))
        UNION ALL SELECT 'mention of nothing', m.target_id FROM gb_mentions m
          WHERE m.dataset_id = ${datasetId} AND (
            NOT EXISTS (SELECT 1 FROM gb_chunks c WHERE c.dataset_id = m.dataset_id AND c.id = m.chunk_id)
            OR (m.target_kind = 'entity' AND NOT EXISTS (SELECT 1 FROM gb_entities e WHERE e.dataset_id = m.dataset_id AND e.id = m.target_id))
            OR (m.target_kind = 'fact' AND NOT EXISTS (SELECT 1 FROM gb_facts g WHERE g.dataset_id = m.dataset_id AND g.id = m.target_id)))
        UNION ALL SELECT 'entity without support', e.id FROM gb_entities e
          WHERE e.dataset_id = ${datasetId}
            AND NOT EXISTS (SELECT 1 FROM gb_mentions m WHERE m.dataset_id = e.dataset_id AND m.target_kind = 'entity' AND m.target_id = e.id)
            AND NOT EXISTS (SELECT 1 FROM gb_facts f WHERE f.dataset_id = e.dataset_id AND (f.subject_id = e.id OR f.object_id = e.id))
        UNION ALL SELECT 'chunk retired other than its facts say', c.id FROM gb_chunks c
          WHERE c.dataset_id = ${datasetId} AND c.retired <> (
            EXISTS (SELECT 1 FROM gb_mentions m WHERE m.dataset_id = c.dataset_id AND m.chunk_id = c.id AND m.target_kind = 'fact')
            AND NOT EXISTS (SELECT 1 FROM gb_mentions m JOIN gb_facts f ON f.dataset_id = m.dataset_id AND f.id = m.target_id
                            WHERE m.dataset_id = c.dataset_id AND m.chunk_id = c.id AND m.target_kind = 'fact' AND f.expired_at IS NULL))`,
  );
}

/** The full-text statistics as kept, and as recounted from the chunks. */
async function stats(db: Db, datasetId: string) {
  const kept = await queryRows<{ lexeme: string; df: number; bdf: number }>(
    db,
    sql`SELECT lexeme, df, bdf FROM gb_term_stats WHERE dataset_id = ${datasetId} ORDER BY lexeme`,
  );
  // df: the chunks that say a lexeme; bdf: those whose broader words hold it and own words do not
  const counted = await queryRows<{ lexeme: string; df: number; bdf: number }>(
    db,
    sql`SELECT lexeme, count(*) FILTER (WHERE own)::int AS df, count(*) FILTER (WHERE NOT own)::int AS bdf FROM (
          SELECT unnest(tsvector_to_array(search_tsv)) AS lexeme, true AS own FROM gb_chunks WHERE dataset_id = ${datasetId}
          UNION ALL
          SELECT l.lexeme, false FROM gb_chunks c CROSS JOIN LATERAL (${broaderOnly(sql`c`)}) AS l(lexeme) WHERE c.dataset_id = ${datasetId}
        ) x GROUP BY lexeme ORDER BY lexeme`,
  );
  const [keptTotals] = await queryRows<{ chunks: number; lexemes: number }>(
    db,
    sql`SELECT chunks, lexemes FROM gb_search_stats WHERE dataset_id = ${datasetId}`,
  );
  const [countedTotals] = await queryRows<{ chunks: number; lexemes: number }>(
    db,
    sql`SELECT count(*)::int AS chunks, coalesce(sum(length(search_tsv)), 0)::int AS lexemes FROM gb_chunks WHERE dataset_id = ${datasetId}`,
  );
  return { kept: { terms: kept, totals: keptTotals ?? { chunks: 0, lexemes: 0 } }, counted: { terms: counted, totals: countedTotals } };
}

/** The tables of the dataset where `word` still appears, graph and run logs alike. */
async function traces(db: Db, datasetId: string, word: string): Promise<string[]> {
  const like = `%${word}%`;
  const rows = await queryRows<{ t: string }>(
    db,
    sql`SELECT 'gb_texts' AS t FROM gb_texts WHERE dataset_id = ${datasetId} AND content LIKE ${like}
        UNION SELECT 'gb_chunks' FROM gb_chunks WHERE dataset_id = ${datasetId} AND (content LIKE ${like} OR summary LIKE ${like})
        UNION SELECT 'gb_facts' FROM gb_facts WHERE dataset_id = ${datasetId} AND sentence LIKE ${like}
        UNION SELECT 'gb_entities' FROM gb_entities WHERE dataset_id = ${datasetId} AND name LIKE ${like}
        UNION SELECT 'gb_inferences' FROM gb_inferences WHERE dataset_id = ${datasetId} AND (request::text LIKE ${like} OR response::text LIKE ${like})
        UNION SELECT 'gb_remember_run_stage_outputs' FROM gb_remember_run_stage_outputs WHERE dataset_id = ${datasetId} AND output::text LIKE ${like}
        UNION SELECT 'gb_query_run_stage_outputs' FROM gb_query_run_stage_outputs WHERE dataset_id = ${datasetId} AND output::text LIKE ${like}
        UNION SELECT 'gb_remember_runs' FROM gb_remember_runs WHERE dataset_id = ${datasetId} AND params::text LIKE ${like}
        UNION SELECT 'gb_query_runs' FROM gb_query_runs WHERE dataset_id = ${datasetId} AND params::text LIKE ${like}`,
  );
  return rows.map((r) => r.t).sort();
}

async function entityNames(db: Db, datasetId: string): Promise<string[]> {
  const rows = await db.select({ name: entities.name }).from(entities).where(eq(entities.datasetId, datasetId));
  return rows.map((r) => r.name).sort();
}

async function entityId(db: Db, datasetId: string, name: string): Promise<string> {
  const [row] = await db.select({ id: entities.id }).from(entities).where(and(eq(entities.datasetId, datasetId), eq(entities.name, name)));
  if (!row) throw new Error(`no entity ${name}`);
  return row.id;
}

/** What a run still holds: its params, inferences and stage outputs. */
async function runState(db: Db, kind: "remember" | "query", id: string) {
  const runs = kind === "remember" ? rememberRuns : queryRuns;
  const outputs = kind === "remember" ? rememberStageOutputs : queryStageOutputs;
  const [run] = await db.select({ params: runs.params, status: runs.status }).from(runs).where(eq(runs.id, id));
  const calls = await db.select({ id: inferences.id }).from(inferences).where(and(eq(inferences.runKind, kind), eq(inferences.runId, id)));
  const kept = await db.select({ stage: outputs.stage }).from(outputs).where(eq(outputs.runId, id));
  return { params: run?.params, status: run?.status, inferences: calls.length, outputs: kept.length };
}

describeEachDriver("subjects.purge", (ctx) => {
  const remember = async (app: App, dataset: string, text: string, userId?: string) => {
    const r = await callerFor(app).remember.submit({ dataset, text, wait: true, ...(userId ? { userId } : {}) });
    expect(r).toMatchObject({ status: "succeeded", error: null });
    return r.rememberRunId;
  };

  it("purges a user: exactly what the receipt says, nothing of others, no orphans, statistics recounted", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const aliceRun = await remember(app, ds.name, "Alice lives in Paris. Alice works at Acme.", "u-alice");
    const bobRun = await remember(app, ds.name, "Bob lives in Rome.", "u-bob");
    await remember(app, ds.name, "Bob works at Acme.", "u-bob");
    await remember(app, ds.name, "Carol lives in Lyon.");
    const asked = await callerFor(app).query.ask({ dataset: ds.name, question: "Where does Alice live?" });
    expect(asked.sources.some((s) => /Alice/.test(s.text))).toBe(true);
    expect(await entityNames(db, ds.id)).toEqual(["Acme", "Alice", "Bob", "Carol", "Lyon", "Paris", "Rome"]);

    const before = await countRows(db, [ds.id]);
    const receipt = await purgeSubject({ db, datasets: [ds], subject: { userId: "u-alice" }, actor });
    const after = await countRows(db, [ds.id]);

    expect(Object.keys(receipt.deleted).sort()).toEqual(Object.keys(before).sort());
    for (const table of Object.keys(before)) expect(before[table]! - after[table]!, table).toBe(receipt.deleted[table]);
    expect(receipt).toMatchObject({ subject: { kind: "userId" }, datasets: [ds.name], deleted: { gb_texts: 1, gb_entities: 2 } });
    // Alice and Paris were hers alone; Acme is Bob's too
    expect(await entityNames(db, ds.id)).toEqual(["Acme", "Bob", "Carol", "Lyon", "Rome"]);
    const left = await db.select({ userId: texts.userId }).from(texts).where(eq(texts.datasetId, ds.id));
    expect(left.map((t) => t.userId ?? "(none)").sort()).toEqual(["(none)", "u-bob", "u-bob"]);
    const sentences = (await db.select({ s: facts.sentence }).from(facts).where(eq(facts.datasetId, ds.id))).map((f) => f.s).sort();
    expect(sentences).toEqual(["Bob lives in Rome.", "Bob works at Acme.", "Carol lives in Lyon."]);
    expect(await orphans(db, ds.id)).toEqual([]);
    const s = await stats(db, ds.id);
    expect(s.kept).toEqual(s.counted);
    // nothing anywhere still says what she said (Bob's run had her facts among its candidates)
    expect(await traces(db, ds.id, "Alice")).toEqual([]);
    expect(await traces(db, ds.id, "Paris")).toEqual([]);
    expect(await traces(db, ds.id, "u-alice")).toEqual([]);
    expect(await traces(db, ds.id, "Rome")).not.toEqual([]);

    const stamp = { purged: { id: receipt.id, at: receipt.at.toISOString(), by: "admin@test" } };
    expect(await runState(db, "remember", aliceRun)).toEqual({ params: stamp, status: "succeeded", inferences: 0, outputs: 0 });
    // the query that retrieved Alice's facts kept them in its receipts and prompts
    expect(await runState(db, "query", asked.queryRunId)).toMatchObject({ params: stamp, inferences: 0, outputs: 0 });
    expect(receipt.redacted).toEqual({ gb_remember_runs: 1, gb_query_runs: 1 });
    const bob = await runState(db, "remember", bobRun);
    expect(bob.params).toMatchObject({ text: "Bob lives in Rome.", userId: "u-bob" });
    expect(bob.inferences).toBeGreaterThan(0);
  });

  it("purges an entity: the entity, its facts, and every text that names it", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    await remember(app, ds.name, "Alice lives in Paris.");
    await remember(app, ds.name, "Bob lives in Rome.");
    const met = await remember(app, ds.name, "Bob met Alice in Lyon.");
    const alice = await entityId(db, ds.id, "Alice");

    const before = await countRows(db, [ds.id]);
    const receipt = await purgeSubject({ db, datasets: [ds], subject: { entityId: alice }, actor });
    const after = await countRows(db, [ds.id]);

    for (const table of Object.keys(before)) expect(before[table]! - after[table]!, table).toBe(receipt.deleted[table]);
    expect(receipt.subject.kind).toBe("entityId");
    expect(receipt.deleted.gb_texts).toBe(2);
    const left = await db.select({ content: texts.content }).from(texts).where(eq(texts.datasetId, ds.id));
    expect(left.map((t) => t.content)).toEqual(["Bob lives in Rome."]);
    expect(await entityNames(db, ds.id)).toEqual(["Bob", "Rome"]);
    const about = await db.select({ id: facts.id }).from(facts).where(and(eq(facts.datasetId, ds.id), sql`${alice} IN (${facts.subjectId}, ${facts.objectId})`));
    expect(about).toEqual([]);
    expect(await orphans(db, ds.id)).toEqual([]);
    const s = await stats(db, ds.id);
    expect(s.kept).toEqual(s.counted);
    expect(await runState(db, "remember", met)).toMatchObject({ params: { purged: { id: receipt.id } }, inferences: 0, outputs: 0 });
  });

  it("leaves a fact retired by a purged one retired, by nothing", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    await remember(app, ds.name, "Alice lives in Paris.");
    await remember(app, ds.name, "In 2024 Alice moved to Berlin.", "u-alice");
    const [old] = await db.select().from(facts).where(and(eq(facts.datasetId, ds.id), eq(facts.sentence, "Alice lives in Paris.")));
    expect(old?.invalidatedBy).not.toBeNull();
    await purgeSubject({ db, datasets: [ds], subject: { userId: "u-alice" }, actor });
    const [kept] = await db.select().from(facts).where(and(eq(facts.datasetId, ds.id), eq(facts.id, old!.id)));
    expect(kept).toMatchObject({ invalidatedBy: null, expiredAt: old!.expiredAt, invalidAt: old!.invalidAt });
    expect(await entityNames(db, ds.id)).toEqual(["Alice", "Paris"]);
    expect(await orphans(db, ds.id)).toEqual([]);
    const s = await stats(db, ds.id);
    expect(s.kept).toEqual(s.counted);
  });

  it("does not find an entity of a dataset it was not given, and changes nothing", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const mine = await freshDataset(app);
    const other = await freshDataset(app);
    await remember(app, mine.name, "Alice lives in Paris.");
    await remember(app, other.name, "Alice lives in Paris.");
    const theirs = await entityId(db, other.id, "Alice");
    const before = await countRows(db, [mine.id, other.id]);
    await expect(purgeSubject({ db, datasets: [mine], subject: { entityId: theirs }, actor })).rejects.toBeInstanceOf(NotFoundError);
    await expect(purgeSubject({ db, datasets: [mine], subject: { entityId: "not-an-id" }, actor })).rejects.toBeInstanceOf(NotFoundError);
    expect(await countRows(db, [mine.id, other.id])).toEqual(before);
  });

  it("purges only the datasets it is given", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const one = await freshDataset(app);
    const two = await freshDataset(app);
    await remember(app, one.name, "Alice lives in Paris.", "u-alice");
    await remember(app, two.name, "Alice lives in Paris.", "u-alice");
    const kept = await countRows(db, [two.id]);
    const receipt = await purgeSubject({ db, datasets: [one], subject: { userId: "u-alice" }, actor });
    expect(receipt.deleted.gb_texts).toBe(1);
    expect(await countRows(db, [two.id])).toEqual(kept);
    expect(await db.select({ userId: texts.userId }).from(texts).where(eq(texts.datasetId, two.id))).toEqual([{ userId: "u-alice" }]);
  });

  it("keeps no trace of the person's id in the receipt or the redacted runs", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const userId = "alice.smith@example.com";
    const run = await remember(app, ds.name, "Alice lives in Paris.", userId);
    const receipt = await purgeSubject({ db, datasets: [ds], subject: { userId }, actor });
    expect(JSON.stringify(receipt)).not.toContain(userId);
    expect(JSON.stringify(receipt)).not.toContain("Alice");
    expect(receipt.subject.ref).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify((await runState(db, "remember", run)).params)).not.toContain(userId);
    // its only chunk gone, the dataset's statistics are back to nothing
    const s = await stats(db, ds.id);
    expect(s.kept).toEqual(s.counted);
    expect(s.counted.totals).toEqual({ chunks: 0, lexemes: 0 });
  });

  it("redacts the query runs of the user, and leaves a query that cited none of their data", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    await remember(app, ds.name, "Bob lives in Rome.", "u-bob");
    const api = callerFor(app);
    const hers = await api.query.ask({ dataset: ds.name, question: "Where does Bob live?", userId: "u-alice" });
    const his = await api.query.ask({ dataset: ds.name, question: "Where does Bob live?", userId: "u-bob" });
    expect((await runState(db, "query", hers.queryRunId)).params).toMatchObject({ userId: "u-alice" });
    const receipt = await purgeSubject({ db, datasets: [ds], subject: { userId: "u-alice" }, actor });
    expect(receipt.redacted).toEqual({ gb_remember_runs: 0, gb_query_runs: 1 });
    expect(receipt.deleted.gb_texts).toBe(0);
    expect(await runState(db, "query", hers.queryRunId)).toMatchObject({ params: { purged: { id: receipt.id } }, inferences: 0, outputs: 0 });
    const kept = await runState(db, "query", his.queryRunId);
    expect(kept.params).toMatchObject({ question: "Where does Bob live?", userId: "u-bob" });
    expect(kept.outputs).toBeGreaterThan(0);
  });

  it("keeps a fact someone else also stated, now theirs, and leaves no dead inference link", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const aliceRun = await remember(app, ds.name, "Acme is based in Berlin. Alice likes tea.", "u-alice");
    await remember(app, ds.name, "Acme is based in Berlin.", "u-bob");
    await purgeSubject({ db, datasets: [ds], subject: { userId: "u-alice" }, actor });
    const [fact] = await queryRows<{ sentence: string; user_id: string | null }>(
      db,
      sql`SELECT f.sentence, t.user_id FROM gb_facts f JOIN gb_texts t ON t.dataset_id = f.dataset_id AND t.id = f.text_id
          WHERE f.dataset_id = ${ds.id} AND f.sentence LIKE 'Acme%'`,
    );
    expect(fact).toEqual({ sentence: "Acme is based in Berlin.", user_id: "u-bob" });
    expect(await traces(db, ds.id, "tea")).toEqual([]);
    expect(await orphans(db, ds.id)).toEqual([]);
    const [ids] = await queryRows<{ ids: string[] }>(
      db,
      sql`SELECT extract_graph_inference_ids || summarize_chunk_inference_ids AS ids FROM gb_remember_runs WHERE id = ${aliceRun}`,
    );
    expect(ids?.ids).toEqual([]);
  });

  it("subjects.purge: admins only, within the caller's datasets, audited with the receipt", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(app, ds.name, "Dora lives in Oslo.", "u-dora");
    const viewer = callerFor(app, { ...TEST_OWNER, role: "viewer" });
    expect((await rejection(viewer.subjects.purge({ dataset: ds.name, userId: "u-dora" }))).code).toBe("FORBIDDEN");
    expect((await rejection(callerFor(app).subjects.purge({ dataset: ds.name }))).field).toBe("userId");
    const receipt = await callerFor(app).subjects.purge({ dataset: ds.name, userId: "u-dora" });
    expect(receipt.deleted.gb_texts).toBe(1);
    const audit = await callerFor(app).audit.list({});
    expect(audit.items[0]).toMatchObject({ action: "subject.purge", details: { receiptId: receipt.id, deleted: receipt.deleted } });
    expect(JSON.stringify(audit.items[0])).not.toContain("u-dora");
  });

  it("purges in batches, letting the event loop turn between them, to the same end as one batch, then vacuums", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const [batched, whole] = [await freshDataset(app), await freshDataset(app)];
    const texts = ["Alice lives in Paris.", "Alice works at Acme.", "Alice likes tea.", "Alice met Bob in Rome.", "Alice visited Lyon."];
    for (const ds of [batched, whole]) {
      for (const t of texts) await remember(app, ds.name, t, "u-alice");
      await remember(app, ds.name, "Bob works at Acme.", "u-bob");
    }
    const before = await countRows(db, [batched.id]);
    const { value: receipt, turns: ticks } = await turnsDuring(() => purgeSubject({ db, datasets: [batched], subject: { userId: "u-alice" }, actor, batchSize: 2 }));
    // three batches of texts and a vacuum per table: the loop turned between every one of them
    expect(ticks).toBeGreaterThanOrEqual(3 + PurgedTables.length);
    const after = await countRows(db, [batched.id]);
    for (const table of Object.keys(before)) expect(before[table]! - after[table]!, table).toBe(receipt.deleted[table]);
    expect(receipt.deleted.gb_texts).toBe(5);
    // each run redacted once, however many batches saw it
    expect(receipt.redacted.gb_remember_runs).toBe(5);
    expect(receipt.vacuumed).toEqual([...PurgedTables, ...RedactedTables]);
    expect(await orphans(db, batched.id)).toEqual([]);
    // the same data purged in one batch ends the same
    const one = await purgeSubject({ db, datasets: [whole], subject: { userId: "u-alice" }, actor });
    expect(one.deleted).toEqual(receipt.deleted);
    expect(one.redacted).toEqual(receipt.redacted);
    expect(await entityNames(db, batched.id)).toEqual(await entityNames(db, whole.id));
  });

  it("a purge interrupted between datasets is finished by running it again; each receipt counts its own part", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const [one, two] = [await freshDataset(app), await freshDataset(app)];
    for (const ds of [one, two]) {
      await remember(app, ds.name, "Alice lives in Paris. Alice works at Acme.", "u-alice");
      await remember(app, ds.name, "Bob lives in Rome.", "u-bob");
    }
    const before = await countRows(db, [one.id, two.id]);
    // as if it had stopped after the first dataset
    const first = await purgeSubject({ db, datasets: [one], subject: { userId: "u-alice" }, actor });
    const again = await purgeSubject({ db, datasets: [one, two], subject: { userId: "u-alice" }, actor });
    const after = await countRows(db, [one.id, two.id]);
    for (const table of Object.keys(before)) expect(before[table]! - after[table]!, table).toBe(first.deleted[table]! + again.deleted[table]!);
    expect(again.deleted.gb_texts).toBe(1);
    for (const ds of [one, two]) {
      expect(await db.select({ userId: texts.userId }).from(texts).where(and(eq(texts.datasetId, ds.id), eq(texts.userId, "u-alice")))).toEqual([]);
    }
    for (const ds of [one, two]) expect(await orphans(db, ds.id)).toEqual([]);
  });
});
