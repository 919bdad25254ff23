import { sql } from "drizzle-orm";
import { nameKey } from "../../text/name-key";
import { bm25 } from "../bm25";
import { type ListQuery, type ListStatement, listStatement, type RetrievalList } from "./candidate";
import { factCandidate, factColumns, factRow, factTables, factValidity } from "./facts";

const LIMIT = 30;

/** Normalised 1- to 3-word spans of the question, to find the entities it names. */
export function questionSpans(question: string): string[] {
  const words = nameKey(question).split(" ").filter(Boolean);
  const spans = new Set<string>();
  for (let n = 1; n <= 3; n++) for (let i = 0; i + n <= words.length; i++) spans.add(words.slice(i, i + n).join(" "));
  return [...spans];
}

/**
 * entities: the entities the question names (exact n-grams, then trigram), expanded one hop
 * through their facts: facts about two of them first, then by BM25, then newest. One statement:
 * the names found (`named`, computed once: an InitPlan) and their facts.
 */
export const entities: RetrievalList = { statement: (q) => entitiesStatement(q) };

function entitiesStatement(q: ListQuery): ListStatement | null {
  const spans = questionSpans(q.question);
  if (spans.length === 0) return null;
  const json = sql`${JSON.stringify(spans)}::jsonb`;
  // near misses ("Alise", "acme corp"): trigram-similar names, only when no name matched exactly,
  // and only for the longer one- and two-word spans (each is an index probe: nearest first on
  // gb_entities_name_knn_idx, the order of similarity) that hold a word no text of the dataset
  // says (no document frequency: gb_term_stats). A misspelt name is such a word; a span of words
  // the texts say ("likes", "launch") is a near miss of no name, and its probe cost as much as
  // reading every name of the dataset (6 ms of PGlite, 2 ms of Postgres at 100k facts, #16). The
  // word's frequency is a scalar subquery, a probe of the key per word: as NOT EXISTS it became an
  // anti-join, which PGlite ran as a hash of the dataset's every term (2,400 rows a span, 15 ms
  // a question of only common words at 10k facts)
  const longer = spans.filter((s) => s.length >= 5 && s.split(" ").length <= 2).slice(0, 6);
  const similar = longer.length
    ? sql`UNION
          SELECT e.id FROM jsonb_array_elements_text(${JSON.stringify(longer)}::jsonb) AS s(span)
          CROSS JOIN LATERAL (
            SELECT 1 FROM unnest(tsvector_to_array(to_tsvector('english', s.span))) AS l(lexeme)
            WHERE coalesce((SELECT ts.df FROM gb_term_stats ts WHERE ts.dataset_id = ${q.datasetId} AND ts.lexeme = l.lexeme), 0) = 0
            LIMIT 1
          ) unknown
          CROSS JOIN LATERAL (
            SELECT id FROM gb_entities
            WHERE dataset_id = ${q.datasetId} AND name_key % s.span AND similarity(name_key, s.span) >= 0.6
            ORDER BY name_key <-> s.span LIMIT 2
          ) e
          WHERE NOT EXISTS (SELECT 1 FROM exact)`
    : sql``;
  const w = q.weights;
  // an array (the cast): ANY(SELECT …) would compare with each row
  const ids = sql`(SELECT ids FROM named)::uuid[]`;
  // by name and by alias, each by its index (an OR of the two was a scan of the dataset's entities)
  const keys = sql`ARRAY(SELECT jsonb_array_elements_text(${json}))`;
  const statement = sql`WITH exact AS MATERIALIZED (
          SELECT id FROM (
            SELECT id FROM gb_entities WHERE dataset_id = ${q.datasetId} AND name_key = ANY(${keys})
            UNION
            SELECT id FROM gb_entities WHERE dataset_id = ${q.datasetId} AND alias_keys && ${keys}
          ) e
          LIMIT 20
        ), named AS MATERIALIZED (
          SELECT array_agg(id) AS ids FROM (SELECT id FROM exact ${similar}) x
        )
        SELECT ${factColumns} FROM ${factTables} WHERE f.dataset_id = ${q.datasetId} AND ${factValidity(q.asOf)}
          AND (f.subject_id = ANY(${ids}) OR f.object_id = ANY(${ids}))
        ORDER BY ((f.subject_id = ANY(${ids}))::int + (coalesce(f.object_id = ANY(${ids}), false))::int) DESC,
                 ${w.terms.length ? sql`${bm25(sql`f.sentence_tsv`, w, false)} DESC,` : sql``}
                 f.created_at DESC
        LIMIT ${LIMIT}`;
  return listStatement({ sql: statement, decode: factRow }, (rows) => rows.map(factCandidate));
}
