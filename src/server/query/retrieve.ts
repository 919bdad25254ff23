import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { cosineDistance, vectorRows } from "../db/vector";
import { countTokens } from "../remember/chunk";
import { date } from "../graph/shape";
import { nameKey } from "../text/name-key";
import { bm25, matches, type TermWeights } from "./bm25";
import type { SourceRef } from "./schemas";

/*
 * retrieve_graph: hybrid candidates, each list ranked on its own, fused by reciprocal rank:
 *   facts_text      full text over fact sentences (tsvector, GIN), BM25-weighted (bm25.ts)
 *   chunks_text     full text over chunk summaries and content, BM25-weighted
 *   entities        entities named in the question (exact n-grams, then trigram), expanded one
 *                   hop through their facts
 *   facts_vector    embedding neighbours among facts (pgvector HNSW, or the scan fallback)
 *   chunks_vector   embedding neighbours among chunks
 *   series_next     the text after each of the best full-text chunks in its series (an answer
 *                   follows its question in a conversation)
 * Facts are the current ones (not expired, not ended), or those that held at `asOf`.
 */

export type ListName = "facts_text" | "chunks_text" | "entities" | "facts_vector" | "chunks_vector" | "series_next";

export interface Candidate {
  key: string;
  kind: "fact" | "summary";
  id: string;
  text: string;
  validAt: Date | null;
  invalidAt: Date | null;
  entityIds: string[];
  source: SourceRef;
  /** 1-based rank in each list that found it */
  ranks: Partial<Record<ListName, number>>;
  score: number;
  tokens: number;
}

export interface RetrieveQuery {
  db: Db;
  datasetId: string;
  question: string;
  /** the question's embedding; null when the embeddings are not semantic (no vector lists) */
  vector: number[] | null;
  asOf: Date | null;
  pgvector: boolean;
  dimensions: number;
  /** the question's BM25 term weights (termWeights), fetched first: they say whether the dataset is empty */
  weights: TermWeights;
}

const PER_LIST = 30;
/**
 * The most full-text matches scored per list. A question of only common words matches most of a
 * large dataset; scoring all of it would take seconds, and the best of a bounded sample is as
 * good an answer to such a question.
 */
const MAX_SCORED = 3000;
/**
 * Embedding neighbours further than this (cosine distance; 1 = unrelated) are not candidates:
 * the nearest rows of a dataset are not an answer to a question about something else.
 */
const MAX_DISTANCE = 0.75;
/** reciprocal rank fusion's constant (Cormack et al. 2009) */
const RRF_K = 60;

type FactRow = {
  id: string;
  subject_id: string;
  object_id: string | null;
  sentence: string;
  valid_at: Date | string | null;
  invalid_at: Date | string | null;
  text_id: string;
  chunk_id: string;
  source: Record<string, string> | string;
};
type ChunkRow = { id: string; text_id: string; summary: string; content: string; source: Record<string, string> | string };

/** A uuid[] parameter (uuids need no quoting in an array literal). */
const uuidArray = (ids: string[]) => sql`${`{${ids.join(",")}}`}::uuid[]`;
const ref = (textId: string, chunkId: string, source: Record<string, string> | string): SourceRef => ({
  textId,
  chunkId,
  ...((typeof source === "string" ? JSON.parse(source) : source) as Omit<SourceRef, "textId" | "chunkId">),
});

/** Normalised 1- to 3-word spans of the question, to find the entities it names. */
export function questionSpans(question: string): string[] {
  const words = nameKey(question).split(" ").filter(Boolean);
  const spans = new Set<string>();
  for (let n = 1; n <= 3; n++) for (let i = 0; i + n <= words.length; i++) spans.add(words.slice(i, i + n).join(" "));
  return [...spans];
}

function factValidity(asOf: Date | null): SQL {
  if (!asOf) return sql`f.expired_at IS NULL AND (f.invalid_at IS NULL OR f.invalid_at > now())`;
  const at = asOf.toISOString();
  // held at asOf: begun by then (its own start, else when its text happened; a fact with neither
  // has no known start) and not yet ended
  return sql`coalesce(coalesce(f.valid_at, t.occurred_at) <= ${at}::timestamptz, true)
             AND (f.invalid_at IS NULL OR f.invalid_at > ${at}::timestamptz)`;
}

function chunkValidity(asOf: Date | null): SQL {
  // A chunk all of whose facts were retired tells of a past that is no longer so ("Alice lives
  // in Paris" after she moved): its summary is not current context.
  if (!asOf) {
    return sql`NOT (
      EXISTS (SELECT 1 FROM gb_mentions m WHERE m.dataset_id = c.dataset_id AND m.chunk_id = c.id AND m.target_kind = 'fact')
      AND NOT EXISTS (
        SELECT 1 FROM gb_mentions m JOIN gb_facts mf ON mf.dataset_id = m.dataset_id AND mf.id = m.target_id
        WHERE m.dataset_id = c.dataset_id AND m.chunk_id = c.id AND m.target_kind = 'fact' AND mf.expired_at IS NULL))`;
  }
  return sql`coalesce(t.occurred_at, t.created_at) <= ${asOf.toISOString()}::timestamptz`;
}

const factColumns = sql`f.id, f.subject_id, f.object_id, f.sentence, f.valid_at, f.invalid_at, f.text_id, f.chunk_id, t.source`;
const factTables = sql`gb_facts f JOIN gb_texts t ON t.dataset_id = f.dataset_id AND t.id = f.text_id`;
const factFrom = sql`SELECT ${factColumns} FROM ${factTables}`;
const chunkColumns = sql`c.id, c.text_id, c.summary, c.content, t.source`;
const chunkTables = sql`gb_chunks c JOIN gb_texts t ON t.dataset_id = c.dataset_id AND t.id = c.text_id`;

async function entityIdsNamed(q: RetrieveQuery): Promise<string[]> {
  const spans = questionSpans(q.question);
  if (spans.length === 0) return [];
  const json = sql`${JSON.stringify(spans)}::jsonb`;
  const exact = await queryRows<{ id: string }>(
    q.db,
    sql`SELECT id FROM gb_entities
        WHERE dataset_id = ${q.datasetId}
          AND (name_key IN (SELECT jsonb_array_elements_text(${json}))
               OR alias_keys && ARRAY(SELECT jsonb_array_elements_text(${json})))
        LIMIT 20`,
  );
  // near misses ("Alise", "acme corp"): trigram-similar names, only when no name matched exactly,
  // and only for the longer one- and two-word spans (each is an index probe)
  const longer = exact.length ? [] : spans.filter((s) => s.length >= 5 && s.split(" ").length <= 2).slice(0, 6);
  const similar = longer.length
    ? await queryRows<{ id: string }>(
        q.db,
        sql`SELECT DISTINCT e.id FROM jsonb_array_elements_text(${JSON.stringify(longer)}::jsonb) AS s(span)
            CROSS JOIN LATERAL (
              SELECT id FROM gb_entities
              WHERE dataset_id = ${q.datasetId} AND name_key % s.span AND similarity(name_key, s.span) >= 0.6
              ORDER BY similarity(name_key, s.span) DESC LIMIT 2
            ) e`,
      )
    : [];
  return [...new Set([...exact, ...similar].map((r) => r.id))];
}

export async function retrieveLists(q: RetrieveQuery): Promise<Record<ListName, Candidate[]>> {
  const { db, datasetId, asOf } = q;
  const factOf = (r: FactRow): Candidate => ({
    key: `fact:${r.id}`,
    kind: "fact",
    id: r.id,
    text: r.sentence,
    validAt: date(r.valid_at),
    invalidAt: date(r.invalid_at),
    entityIds: r.object_id ? [r.subject_id, r.object_id] : [r.subject_id],
    source: ref(r.text_id, r.chunk_id, r.source),
    ranks: {},
    score: 0,
    tokens: 0,
  });
  const chunkOf = (r: ChunkRow): Candidate => ({
    key: `summary:${r.id}`,
    kind: "summary",
    id: r.id,
    text: r.summary || r.content,
    validAt: null,
    invalidAt: null,
    entityIds: [],
    source: ref(r.text_id, r.id, r.source),
    ranks: {},
    score: 0,
    tokens: 0,
  });

  // Independent lists run at once (a Postgres pool answers them in parallel; PGlite in turn).
  const w = q.weights;
  const named = await entityIdsNamed(q);
  const ids = uuidArray(named);
  const vectorOpts = { pgvector: q.pgvector, dimensions: q.dimensions };
  const v = q.vector && q.vector.length === q.dimensions && q.vector.some((x) => x !== 0) ? q.vector : null;
  const factDistance = v ? cosineDistance(sql`f.embedding`, v, vectorOpts) : null;
  const chunkDistance = v ? cosineDistance(sql`c.embedding`, v, vectorOpts) : null;
  const none = Promise.resolve([]);

  const [factsText, chunksText, byEntity, factsVector, chunksVector] = await Promise.all([
    w.terms.length
      ? queryRows<FactRow>(
          db,
          sql`SELECT * FROM (
                SELECT ${factColumns}, f.created_at AS created, f.sentence_tsv AS tsv FROM ${factTables}
                WHERE f.dataset_id = ${datasetId} AND ${factValidity(asOf)} AND ${matches(sql`f.sentence_tsv`, w)}
                LIMIT ${MAX_SCORED}
              ) m ORDER BY ${bm25(sql`m.tsv`, w, false)} DESC, m.created DESC LIMIT ${PER_LIST}`,
        )
      : none,
    w.terms.length
      ? queryRows<ChunkRow>(
          db,
          sql`SELECT * FROM (
                SELECT ${chunkColumns}, c.created_at AS created, c.search_tsv AS tsv FROM ${chunkTables}
                WHERE c.dataset_id = ${datasetId} AND ${chunkValidity(asOf)} AND ${matches(sql`c.search_tsv`, w)}
                LIMIT ${MAX_SCORED}
              ) m ORDER BY ${bm25(sql`m.tsv`, w, true)} DESC, m.created DESC LIMIT ${PER_LIST}`,
        )
      : none,
    named.length
      ? queryRows<FactRow>(
          db,
          sql`${factFrom} WHERE f.dataset_id = ${datasetId} AND ${factValidity(asOf)}
                AND (f.subject_id = ANY(${ids}) OR f.object_id = ANY(${ids}))
              ORDER BY ((f.subject_id = ANY(${ids}))::int + (coalesce(f.object_id = ANY(${ids}), false))::int) DESC,
                       ${w.terms.length ? sql`${bm25(sql`f.sentence_tsv`, w, false)} DESC,` : sql``}
                       f.created_at DESC
              LIMIT ${PER_LIST}`,
        )
      : none,
    factDistance
      ? queryRows<FactRow>(
          db,
          sql`SELECT * FROM (
                SELECT ${factColumns}, ${factDistance} AS d FROM ${factTables} WHERE f.dataset_id = ${datasetId} AND ${factValidity(asOf)} AND ${vectorRows(sql`f.embedding`, q.dimensions)}
                ORDER BY ${factDistance} LIMIT ${PER_LIST}
              ) n WHERE d <= ${MAX_DISTANCE}`,
        )
      : none,
    chunkDistance
      ? queryRows<ChunkRow>(
          db,
          sql`SELECT * FROM (
                SELECT ${chunkColumns}, ${chunkDistance} AS d FROM ${chunkTables} WHERE c.dataset_id = ${datasetId} AND ${chunkValidity(asOf)} AND ${vectorRows(sql`c.embedding`, q.dimensions)}
                ORDER BY ${chunkDistance} LIMIT ${PER_LIST}
              ) n WHERE d <= ${MAX_DISTANCE}`,
        )
      : none,
  ]);

  const seeds = [...new Set([...chunksText, ...factsText].map((r) => r.text_id))].slice(0, 10);
  const seriesNext = seeds.length
    ? await queryRows<ChunkRow>(
        db,
        sql`SELECT ${chunkColumns}
            FROM unnest(${uuidArray(seeds)}) WITH ORDINALITY AS s(text_id, ord)
            JOIN gb_texts t0 ON t0.dataset_id = ${datasetId} AND t0.id = s.text_id
            JOIN gb_texts t ON t.dataset_id = t0.dataset_id AND t.series_key = t0.series_key AND t.series_position = t0.series_position + 1
            JOIN gb_chunks c ON c.dataset_id = t.dataset_id AND c.text_id = t.id
            WHERE ${chunkValidity(asOf)}
            ORDER BY s.ord, c.idx LIMIT ${PER_LIST}`,
      )
    : [];

  return {
    series_next: seriesNext.map(chunkOf),
    facts_text: factsText.map(factOf),
    chunks_text: chunksText.map(chunkOf),
    entities: byEntity.map(factOf),
    facts_vector: factsVector.map(factOf),
    chunks_vector: chunksVector.map(chunkOf),
  };
}

/** Reciprocal rank fusion of the lists, best first. */
export function fuse(lists: Record<ListName, Candidate[]>): Candidate[] {
  const all = new Map<string, Candidate>();
  for (const [name, list] of Object.entries(lists) as [ListName, Candidate[]][]) {
    list.forEach((c, i) => {
      const seen = all.get(c.key) ?? { ...c, ranks: {}, score: 0 };
      seen.ranks[name] = i + 1;
      seen.score += 1 / (RRF_K + i + 1);
      all.set(c.key, seen);
    });
  }
  return [...all.values()].sort((a, b) => b.score - a.score || a.key.localeCompare(b.key));
}

/**
 * The best candidates within `limit` sources and `tokenBudget` tokens of text, one per chunk:
 * a chunk's facts and its summary say the same thing, and a place in the context is worth
 * more given to another chunk.
 */
export function cut(ranked: Candidate[], limit: number, tokenBudget: number): Candidate[] {
  const out: Candidate[] = [];
  const chunks = new Set<string>();
  let tokens = 0;
  for (const c of ranked) {
    if (out.length >= limit) break;
    if (chunks.has(c.source.chunkId)) continue;
    chunks.add(c.source.chunkId);
    const t = countTokens(c.text);
    if (tokens + t > tokenBudget && out.length > 0) continue;
    tokens += t;
    out.push({ ...c, tokens: t });
  }
  return out;
}
