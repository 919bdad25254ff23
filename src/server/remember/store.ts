import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { chunks, entities, facts, mentions, texts, type TextSource } from "../db/schema";
import { holdsRun, LeaseLostError } from "./manager";
import { nameKey } from "../text/name-key";
import type { Plan } from "./resolve";

/*
 * store: one transaction per chunk (text, chunk, entities, facts, invalidations, provenance, the
 * series link for a one-chunk text); the stored chunk is the record that it is done. If it
 * fails, nothing of the chunk is stored. (Its outputs, and the earlier stages' for the chunk, are
 * the run log's to write, as the stage ends.) It first checks, and locks, that this attempt still
 * holds the run (the fencing check): a process that lost the run can never store a chunk.
 */

export interface StoreInput {
  datasetId: string;
  runId: string;
  /** the attempt that holds the run */
  attempt: number;
  text: { id: string; content: string; userId: string | null; source: TextSource; seriesKey: string | null; occurredAt: Date | null };
  chunk: { id: string; index: number; content: string; summary: string; tokenCount: number; embedding: number[] | null };
  plan: Plan;
  /** embeddings of the plan's entities (by id) and new facts (by id) */
  vectors: Map<string, number[]>;
  linkSeries: boolean;
}

export interface StoreResult {
  entitiesCreated: number;
  entitiesUpdated: number;
  factsCreated: number;
  factsInvalidated: number;
  duplicates: number;
  seriesPosition: number | null;
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

const lost = (run: { id: string; attempt: number }) =>
  new LeaseLostError(`remember run ${run.id}: attempt ${run.attempt} no longer holds the run; the chunk is not stored`);

async function linkSeries(tx: Tx, datasetId: string, textId: string, seriesKey: string): Promise<number> {
  const [row] = await tx
    .update(texts)
    .set({
      seriesPosition: sql`coalesce((SELECT max(series_position) FROM gb_texts WHERE dataset_id = ${datasetId} AND series_key = ${seriesKey}), 0) + 1`,
    })
    .where(and(eq(texts.datasetId, datasetId), eq(texts.id, textId), isNull(texts.seriesPosition)))
    .returning({ position: texts.seriesPosition });
  return row?.position ?? 0;
}

/** Adds the chunk's lexemes to the dataset's full-text statistics (query's BM25 weights). */
async function countTerms(tx: Tx, datasetId: string, chunkId: string): Promise<void> {
  await tx.execute(sql`
    INSERT INTO gb_term_stats (dataset_id, lexeme, df)
    SELECT dataset_id, unnest(tsvector_to_array(search_tsv)), 1 FROM gb_chunks WHERE dataset_id = ${datasetId} AND id = ${chunkId}
    ON CONFLICT (dataset_id, lexeme) DO UPDATE SET df = gb_term_stats.df + 1`);
  await tx.execute(sql`
    INSERT INTO gb_search_stats (dataset_id, chunks, lexemes)
    SELECT dataset_id, 1, length(search_tsv) FROM gb_chunks WHERE dataset_id = ${datasetId} AND id = ${chunkId}
    ON CONFLICT (dataset_id) DO UPDATE SET chunks = gb_search_stats.chunks + 1, lexemes = gb_search_stats.lexemes + excluded.lexemes`);
}

export async function storeChunk(db: Db, input: StoreInput): Promise<StoreResult> {
  const { datasetId, runId, plan } = input;
  const now = new Date();
  const run = { id: runId, datasetId, attempt: input.attempt };
  return db.transaction(async (tx) => {
    if (!(await holdsRun(tx as unknown as Db, run))) throw lost(run);
    // the text is stored with its first chunk: later chunks do not send it again (it may be a megabyte)
    const [known] = await tx
      .select({ id: texts.id })
      .from(texts)
      .where(and(eq(texts.datasetId, datasetId), eq(texts.id, input.text.id)))
      .limit(1);
    if (!known) await tx
      .insert(texts)
      .values({
        datasetId,
        id: input.text.id,
        runId,
        content: input.text.content,
        userId: input.text.userId,
        source: input.text.source,
        seriesKey: input.text.seriesKey,
        occurredAt: input.text.occurredAt,
        createdAt: now,
      })
      .onConflictDoNothing();
    await tx.insert(chunks).values({ datasetId, textId: input.text.id, runId, createdAt: now, ...input.chunk });
    await countTerms(tx, datasetId, input.chunk.id);

    const created = plan.entities.filter((e) => e.isNew);
    if (created.length > 0) {
      await tx.insert(entities).values(
        created.map((e) => ({
          datasetId,
          id: e.id,
          name: e.name,
          nameKey: nameKey(e.name),
          type: e.type,
          aliases: e.aliases,
          aliasKeys: [...new Set(e.aliases.map(nameKey).filter(Boolean))],
          embedding: input.vectors.get(e.id) ?? null,
          createdAt: now,
          createdRunId: runId,
          updatedAt: now,
        })),
      );
    }
    const grown = plan.entities.filter((e) => !e.isNew && e.addedAliases.length > 0);
    for (const e of grown) {
      await tx
        .update(entities)
        .set({ aliases: e.aliases, aliasKeys: [...new Set(e.aliases.map(nameKey).filter(Boolean))], updatedAt: now })
        .where(and(eq(entities.datasetId, datasetId), eq(entities.id, e.id)));
    }

    if (plan.facts.length > 0) {
      await tx.insert(facts).values(
        plan.facts.map((f) => ({
          datasetId,
          ...f,
          embedding: input.vectors.get(f.id) ?? null,
          createdAt: now,
          textId: input.text.id,
          chunkId: input.chunk.id,
          createdRunId: runId,
        })),
      );
    }
    if (plan.invalidations.length > 0) {
      // one statement for the chunk's invalidations (a chunk of a long text may retire dozens)
      const rows = sql.join(
        plan.invalidations.map((inv) => sql`(${inv.factId}::uuid, ${inv.invalidAt?.toISOString() ?? null}::timestamptz, ${inv.by}::uuid)`),
        sql`, `,
      );
      await tx.execute(sql`
        UPDATE gb_facts f SET invalid_at = v.invalid_at, expired_at = ${now.toISOString()}::timestamptz, invalidated_run_id = ${runId}::uuid, invalidated_by = v.by
        FROM (VALUES ${rows}) AS v(id, invalid_at, by)
        WHERE f.dataset_id = ${datasetId} AND f.id = v.id AND f.expired_at IS NULL`);
    }
    for (const d of plan.duplicates) {
      if (!d.validAt) continue;
      await tx
        .update(facts)
        .set({ validAt: d.validAt })
        .where(and(eq(facts.datasetId, datasetId), eq(facts.id, d.factId), isNull(facts.validAt)));
    }

    const provenance = [
      ...plan.entities.map((e) => ({ targetKind: "entity" as const, targetId: e.id })),
      ...plan.facts.map((f) => ({ targetKind: "fact" as const, targetId: f.id })),
      ...plan.duplicates.map((d) => ({ targetKind: "fact" as const, targetId: d.factId })),
    ];
    if (provenance.length > 0) {
      await tx
        .insert(mentions)
        .values(provenance.map((p) => ({ datasetId, chunkId: input.chunk.id, textId: input.text.id, runId, ...p })))
        .onConflictDoNothing();
    }

    const seriesPosition =
      input.linkSeries && input.text.seriesKey ? await linkSeries(tx, datasetId, input.text.id, input.text.seriesKey) : null;
    const result: StoreResult = {
      entitiesCreated: created.length,
      entitiesUpdated: grown.length,
      factsCreated: plan.facts.length,
      factsInvalidated: plan.invalidations.length,
      duplicates: plan.duplicates.length,
      seriesPosition,
    };
    return result;
  });
}

/**
 * store_series for a text of several chunks: its own transaction, after every chunk is stored.
 * Idempotent (a text already placed keeps its place), and fenced like store.
 */
export async function storeSeries(db: Db, run: { id: string; datasetId: string; attempt: number }, textId: string, seriesKey: string): Promise<number> {
  return db.transaction(async (tx) => {
    if (!(await holdsRun(tx as unknown as Db, run))) throw lost(run);
    const placed = await tx
      .select({ position: texts.seriesPosition })
      .from(texts)
      .where(and(eq(texts.datasetId, run.datasetId), eq(texts.id, textId)));
    return placed[0]?.position ?? (await linkSeries(tx, run.datasetId, textId, seriesKey));
  });
}
