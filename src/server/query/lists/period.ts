import { type SQL, sql } from "drizzle-orm";
import type { TextSource } from "../../db/schema/graph";
import { column, rowDecoder } from "../../db/rows";
import { bm25, tsquery } from "../bm25";
import { type ListQuery, type ListStatement, listStatement, type RetrievalList } from "./candidate";
import { chunkCandidate, chunkValidity } from "./chunks";
import { factCandidate, factValidity } from "./facts";

const LIMIT = 30;
/**
 * A period that holds more texts (or facts) than this narrows too little to be worth reading
 * whole ("today" in a dataset remembered today): that part of the list finds nothing, and its cost
 * stays that of reading this many index entries, whatever the dataset's size.
 */
const CROWDED = 500;

const periodRow = rowDecoder({
  kind: column.text,
  id: column.text,
  text_id: column.text,
  chunk_id: column.text,
  sentence: column.text,
  summary: column.text,
  content: column.text,
  subject_id: column.nullable(column.text),
  object_id: column.nullable(column.text),
  valid_at: column.nullable(column.timestamp),
  invalid_at: column.nullable(column.timestamp),
  source: column.json<TextSource>(),
  at: column.timestamp,
  score: column.number,
});

/**
 * period: what the time a question names holds ("what did Ana do on 3 May 2024?", "in August
 * 2023", "yesterday"; namedPeriod in fusion.ts): the texts said then and the facts that held from
 * then (their validAt, which the extractor reads from "yesterday", "last Saturday" against when the
 * text was said) that share a word with the question, by BM25, newest first on a tie. Within a
 * period even a common word tells one text from another ("John" among a day's turns), so every
 * question term selects here, where the full-text lists take only the rare ones. Nothing when the
 * question names no time, and nothing of a crowded period (CROWDED). The time boost (boostNamedTime) raises what the other lists found of
 * the period; this list finds what they did not.
 */
export const period: RetrievalList = { statement: (q) => periodStatement(q) };

function periodStatement(q: ListQuery): ListStatement | null {
  const p = q.period;
  const w = q.weights;
  if (!p || !w.terms.length) return null;
  const terms = sql`${tsquery(w.terms)}::tsquery`;
  const [start, end] = [p.start.toISOString(), p.end.toISOString()];
  const said = sql`coalesce(t.occurred_at, t.created_at)`;
  const score = (tsv: SQL) => bm25(tsv, w, false);
  const statement = sql`WITH said AS (
          SELECT t.id FROM gb_texts t WHERE t.dataset_id = ${q.datasetId} AND ${said} >= ${start}::timestamptz AND ${said} < ${end}::timestamptz LIMIT ${CROWDED + 1}
        ), held AS (
          SELECT f.id FROM gb_facts f WHERE f.dataset_id = ${q.datasetId} AND f.valid_at >= ${start}::timestamptz AND f.valid_at < ${end}::timestamptz LIMIT ${CROWDED + 1}
        )
        SELECT 'summary' AS kind, c.id, c.text_id, c.id AS chunk_id, '' AS sentence, c.summary, c.content, NULL::uuid AS subject_id, NULL::uuid AS object_id,
               NULL::timestamptz AS valid_at, NULL::timestamptz AS invalid_at, t.source, ${said} AS at, ${score(sql`c.search_tsv`)} AS score
        -- each step by key, whatever the planner's statistics say (as chunkTablesById)
        FROM said
        CROSS JOIN LATERAL (
          SELECT t.id, t.source, t.occurred_at, t.created_at FROM gb_texts t WHERE t.dataset_id = ${q.datasetId} AND t.id = said.id OFFSET 0
        ) t
        CROSS JOIN LATERAL (
          SELECT c.id, c.dataset_id, c.text_id, c.summary, c.content, c.search_tsv, c.retired FROM gb_chunks c WHERE c.dataset_id = ${q.datasetId} AND c.text_id = t.id OFFSET 0
        ) c
        WHERE (SELECT count(*) FROM said) <= ${CROWDED} AND c.search_tsv @@ ${terms} AND ${chunkValidity(q.asOf)}
        UNION ALL
        SELECT 'fact', f.id, f.text_id, f.chunk_id, f.sentence, '', '', f.subject_id, f.object_id,
               f.valid_at, f.invalid_at, t.source, ${said}, ${score(sql`f.sentence_tsv`)}
        FROM held
        CROSS JOIN LATERAL (
          SELECT f.id, f.dataset_id, f.text_id, f.chunk_id, f.sentence, f.sentence_tsv, f.subject_id, f.object_id, f.valid_at, f.invalid_at, f.expired_at
          FROM gb_facts f WHERE f.dataset_id = ${q.datasetId} AND f.id = held.id OFFSET 0
        ) f
        CROSS JOIN LATERAL (
          SELECT t.source, t.occurred_at, t.created_at FROM gb_texts t WHERE t.dataset_id = ${q.datasetId} AND t.id = f.text_id OFFSET 0
        ) t
        WHERE (SELECT count(*) FROM held) <= ${CROWDED} AND f.sentence_tsv @@ ${terms} AND ${factValidity(q.asOf)}
        ORDER BY score DESC, at DESC LIMIT ${LIMIT}`;
  return listStatement({ sql: statement, decode: periodRow }, (rows) =>
    rows.map((r) => (r.kind === "fact" ? factCandidate({ ...r, subject_id: r.subject_id ?? "" }) : chunkCandidate(r))),
  );
}
