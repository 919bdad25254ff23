import { broaderOnly, broaderWords } from "../text/broader";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { column, queryRows, rowDecoder } from "../db/rows";
import { type DerivedFrom, texts, type TextSource } from "../db/schema";
import { parseQuantity } from "../enrich/series/quantity";
import { heldRun, holdsRun, LeaseLostError } from "./manager";
import { nameKey, uniqueKeys } from "../text/name-key";
import { grownEntities } from "./pending";
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
  /** content: the text, with the first chunk an attempt stores (null after: it is not sent again) */
  text: {
    id: string;
    content: string | null;
    userId: string | null;
    source: TextSource;
    seriesKey: string | null;
    occurredAt: Date | null;
    /** an observation (web_search, observe_series) and where it came from; absent for a text given to remember */
    derivedFrom?: DerivedFrom;
  };
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

/** Rows as one jsonb parameter, read back with jsonb_to_recordset: a table's rows in one statement whatever their number. */
const rows = (values: object[]) => sql`${JSON.stringify(values)}::jsonb`;
/** a literal object's number and unit, or nulls */
function numberOf(value: string | null): { num_value: number | null; unit: string | null } {
  const q = value === null ? null : parseQuantity(value);
  return q && Number.isFinite(q.value) ? { num_value: q.value, unit: q.unit } : { num_value: null, unit: null };
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
/** a real[] parameter as an array literal */
const realArray = (v: number[] | null) => (v ? `{${v.join(",")}}` : null);

const storedRow = rowDecoder({ held: column.int, position: column.nullable(column.int) });

/**
 * Stores a chunk, and its text with the first chunk an attempt stores, in ONE statement: the
 * fencing check and every write are its common table expressions, so the statement is the
 * chunk's transaction (all of it or none), and a chunk costs one round trip to the database, not
 * the dozen statements (and on PGlite, the dozen parses and plans) it took as a transaction of
 * its own. Every write is conditional on `run`: an attempt that no longer holds the run writes
 * nothing, and is told so.
 *
 * Data-modifying CTEs all see the snapshot from before the statement: nothing here reads what
 * another part writes, but the term counts, which read the chunk's search_tsv from its insert's
 * RETURNING. Each fact row is updated once (retirements and new validity times are merged).
 */
export async function storeChunk(db: Db, input: StoreInput): Promise<StoreResult> {
  const { datasetId, runId, plan } = input;
  const now = new Date().toISOString();
  const run = { id: runId, datasetId, attempt: input.attempt };
  const t = input.text;
  const created = plan.entities.filter((e) => e.isNew);
  const grown = grownEntities(plan);
  const keys = uniqueKeys;
  // one row per fact updated: retired (an invalidation) and/or dated (a duplicate that had no time)
  const updates = new Map<string, { id: string; retire: boolean; invalid_at: string | null; by_fact: string | null; valid_at: string | null }>();
  for (const inv of plan.invalidations) updates.set(inv.factId, { id: inv.factId, retire: true, invalid_at: iso(inv.invalidAt), by_fact: inv.by, valid_at: null });
  for (const d of plan.duplicates) {
    if (!d.validAt) continue;
    const u = updates.get(d.factId) ?? { id: d.factId, retire: false, invalid_at: null, by_fact: null, valid_at: null };
    updates.set(d.factId, { ...u, valid_at: iso(d.validAt) });
  }
  const provenance = [
    ...plan.entities.map((e) => ({ kind: "entity", id: e.id })),
    ...plan.facts.map((f) => ({ kind: "fact", id: f.id })),
    ...plan.duplicates.map((d) => ({ kind: "fact", id: d.factId })),
  ];
  const link = input.linkSeries && t.seriesKey !== null;
  const broader = await broaderWords(input.chunk.content);
  const held = sql`EXISTS (SELECT 1 FROM run)`;
  const [stored] = await queryRows(
    db,
    sql`WITH run AS (${heldRun(run)}),
        text_row AS (
          INSERT INTO gb_texts (dataset_id, id, run_id, content, user_id, source, series_key, series_position, occurred_at, created_at, kind, derived_from)
          SELECT ${datasetId}, ${t.id}, ${runId}, ${t.content}, ${t.userId}, ${JSON.stringify(t.source)}::jsonb, ${t.seriesKey},
                 CASE WHEN ${link} THEN coalesce((SELECT max(series_position) FROM gb_texts WHERE dataset_id = ${datasetId} AND series_key = ${t.seriesKey}), 0) + 1 END,
                 ${iso(t.occurredAt)}::timestamptz, ${now}::timestamptz,
                 ${t.derivedFrom ? "observation" : "text"}, ${t.derivedFrom ? JSON.stringify(t.derivedFrom) : null}::jsonb
          WHERE ${held} AND ${t.content !== null}
          -- an earlier attempt stored the text: only its place in the series, if it had none
          ON CONFLICT (dataset_id, id) DO UPDATE SET series_position = excluded.series_position
            WHERE gb_texts.series_position IS NULL AND excluded.series_position IS NOT NULL
          RETURNING series_position
        ),
        chunk_row AS (
          INSERT INTO gb_chunks (dataset_id, id, text_id, run_id, idx, content, summary, token_count, embedding, broader, created_at)
          SELECT ${datasetId}, ${input.chunk.id}, ${t.id}, ${runId}, ${input.chunk.index}, ${input.chunk.content}, ${input.chunk.summary},
                 ${input.chunk.tokenCount}, ${realArray(input.chunk.embedding)}::real[], ${broader}, ${now}::timestamptz
          WHERE ${held}
          RETURNING search_tsv, broader_tsv
        ),
        term_counts AS (
          INSERT INTO gb_term_stats (dataset_id, lexeme, df)
          SELECT ${datasetId}, unnest(tsvector_to_array(search_tsv)), 1 FROM chunk_row
          ON CONFLICT (dataset_id, lexeme) DO UPDATE SET df = gb_term_stats.df + 1
        ),
        broader_counts AS (
          -- the lexemes of its broader words that the chunk does not say (none of term_counts' rows)
          INSERT INTO gb_term_stats (dataset_id, lexeme, df, bdf)
          SELECT ${datasetId}, l.lexeme, 0, 1 FROM chunk_row CROSS JOIN LATERAL (${broaderOnly(sql`chunk_row`)}) AS l(lexeme)
          ON CONFLICT (dataset_id, lexeme) DO UPDATE SET bdf = gb_term_stats.bdf + 1
        ),
        search_counts AS (
          INSERT INTO gb_search_stats (dataset_id, chunks, lexemes)
          SELECT ${datasetId}, 1, length(search_tsv) FROM chunk_row
          ON CONFLICT (dataset_id) DO UPDATE SET chunks = gb_search_stats.chunks + 1, lexemes = gb_search_stats.lexemes + excluded.lexemes
        ),
        new_entities AS (
          INSERT INTO gb_entities (dataset_id, id, name, name_key, type, aliases, alias_keys, embedding, created_at, created_run_id, updated_at)
          SELECT ${datasetId}, x.id, x.name, x.name_key, x.type, x.aliases, x.alias_keys, x.embedding, ${now}::timestamptz, ${runId}, ${now}::timestamptz
          FROM jsonb_to_recordset(${rows(
            created.map((e) => ({ id: e.id, name: e.name, name_key: nameKey(e.name), type: e.type, aliases: e.aliases, alias_keys: keys(e.aliases), embedding: input.vectors.get(e.id) ?? null })),
          )}) AS x(id uuid, name text, name_key text, type text, aliases text[], alias_keys text[], embedding real[])
          WHERE ${held}
        ),
        grown_entities AS (
          UPDATE gb_entities e SET aliases = x.aliases, alias_keys = x.alias_keys, updated_at = ${now}::timestamptz
          FROM jsonb_to_recordset(${rows(grown.map((e) => ({ id: e.id, aliases: e.aliases, alias_keys: keys(e.aliases) })))}) AS x(id uuid, aliases text[], alias_keys text[])
          WHERE e.dataset_id = ${datasetId} AND e.id = x.id AND ${held}
        ),
        new_facts AS (
          INSERT INTO gb_facts (dataset_id, id, subject_id, predicate, object_id, object_value, num_value, unit, sentence, valid_at, invalid_at, embedding, created_at, text_id, chunk_id, created_run_id)
          SELECT ${datasetId}, x.id, x.subject_id, x.predicate, x.object_id, x.object_value, x.num_value, x.unit, x.sentence, x.valid_at, x.invalid_at, x.embedding,
                 ${now}::timestamptz, ${t.id}, ${input.chunk.id}, ${runId}
          FROM jsonb_to_recordset(${rows(
            plan.facts.map((f) => ({
              id: f.id,
              subject_id: f.subjectId,
              predicate: f.predicate,
              object_id: f.objectId,
              object_value: f.objectValue,
              // a number the literal holds, for series charts (graph.series) and observe_series
              ...numberOf(f.objectValue),
              sentence: f.sentence,
              valid_at: iso(f.validAt),
              invalid_at: iso(f.invalidAt),
              embedding: input.vectors.get(f.id) ?? null,
            })),
          )}) AS x(id uuid, subject_id uuid, predicate text, object_id uuid, object_value text, num_value double precision, unit text, sentence text, valid_at timestamptz, invalid_at timestamptz, embedding real[])
          WHERE ${held}
        ),
        changed_facts AS (
          UPDATE gb_facts f SET
            invalid_at = CASE WHEN x.retire AND f.expired_at IS NULL THEN x.invalid_at ELSE f.invalid_at END,
            invalidated_run_id = CASE WHEN x.retire AND f.expired_at IS NULL THEN ${runId}::uuid ELSE f.invalidated_run_id END,
            invalidated_by = CASE WHEN x.retire AND f.expired_at IS NULL THEN x.by_fact ELSE f.invalidated_by END,
            expired_at = CASE WHEN x.retire AND f.expired_at IS NULL THEN ${now}::timestamptz ELSE f.expired_at END,
            valid_at = coalesce(f.valid_at, x.valid_at)
          FROM jsonb_to_recordset(${rows([...updates.values()])}) AS x(id uuid, retire boolean, invalid_at timestamptz, by_fact uuid, valid_at timestamptz)
          WHERE f.dataset_id = ${datasetId} AND f.id = x.id AND ${held}
        ),
        provenance AS (
          INSERT INTO gb_mentions (dataset_id, chunk_id, target_kind, target_id, text_id, run_id)
          SELECT ${datasetId}, ${input.chunk.id}, x.kind, x.id, ${t.id}, ${runId}
          FROM jsonb_to_recordset(${rows(provenance)}) AS x(kind text, id uuid)
          WHERE ${held}
          ON CONFLICT DO NOTHING
        )
        SELECT (SELECT count(*) FROM run)::int AS held, (SELECT series_position FROM text_row) AS position`,
    storedRow,
  );
  if (!stored || stored.held === 0) throw lost(run);
  return {
    entitiesCreated: created.length,
    entitiesUpdated: grown.length,
    factsCreated: plan.facts.length,
    factsInvalidated: plan.invalidations.length,
    duplicates: plan.duplicates.length,
    seriesPosition: link ? (stored.position ?? 0) : null,
  };
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
