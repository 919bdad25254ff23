import { sql } from "drizzle-orm";
import { column, queryRows, rowDecoder } from "../../db/rows";
import { nameKey } from "../../text/name-key";
import { bm25 } from "../bm25";
import type { ListQuery, RetrievalList } from "./candidate";
import { factCandidate, factColumns, factRow, factTables, factValidity } from "./facts";
import { uuidArray } from "./shared";

const LIMIT = 30;

const idRow = rowDecoder({ id: column.text });

/** Normalised 1- to 3-word spans of the question, to find the entities it names. */
export function questionSpans(question: string): string[] {
  const words = nameKey(question).split(" ").filter(Boolean);
  const spans = new Set<string>();
  for (let n = 1; n <= 3; n++) for (let i = 0; i + n <= words.length; i++) spans.add(words.slice(i, i + n).join(" "));
  return [...spans];
}

async function entityIdsNamed(q: ListQuery): Promise<string[]> {
  const spans = questionSpans(q.question);
  if (spans.length === 0) return [];
  const json = sql`${JSON.stringify(spans)}::jsonb`;
  const exact = await queryRows(
    q.db,
    sql`SELECT id FROM gb_entities
        WHERE dataset_id = ${q.datasetId}
          AND (name_key IN (SELECT jsonb_array_elements_text(${json}))
               OR alias_keys && ARRAY(SELECT jsonb_array_elements_text(${json})))
        LIMIT 20`,
    idRow,
  );
  // near misses ("Alise", "acme corp"): trigram-similar names, only when no name matched exactly,
  // and only for the longer one- and two-word spans (each is an index probe: nearest first on
  // gb_entities_name_knn_idx, the order of similarity)
  const longer = exact.length ? [] : spans.filter((s) => s.length >= 5 && s.split(" ").length <= 2).slice(0, 6);
  const similar = longer.length
    ? await queryRows(
        q.db,
        sql`SELECT DISTINCT e.id FROM jsonb_array_elements_text(${JSON.stringify(longer)}::jsonb) AS s(span)
            CROSS JOIN LATERAL (
              SELECT id FROM gb_entities
              WHERE dataset_id = ${q.datasetId} AND name_key % s.span AND similarity(name_key, s.span) >= 0.6
              ORDER BY name_key <-> s.span LIMIT 2
            ) e`,
        idRow,
      )
    : [];
  return [...new Set([...exact, ...similar].map((r) => r.id))];
}

/**
 * entities: the entities the question names (exact n-grams, then trigram), expanded one hop
 * through their facts: facts about two of them first, then by BM25, then newest.
 */
export const entities: RetrievalList = async (q) => {
  const named = await entityIdsNamed(q);
  if (!named.length) return [];
  const ids = uuidArray(named);
  const w = q.weights;
  const rows = await queryRows(
    q.db,
    sql`SELECT ${factColumns} FROM ${factTables} WHERE f.dataset_id = ${q.datasetId} AND ${factValidity(q.asOf)}
          AND (f.subject_id = ANY(${ids}) OR f.object_id = ANY(${ids}))
        ORDER BY ((f.subject_id = ANY(${ids}))::int + (coalesce(f.object_id = ANY(${ids}), false))::int) DESC,
                 ${w.terms.length ? sql`${bm25(sql`f.sentence_tsv`, w, false)} DESC,` : sql``}
                 f.created_at DESC
        LIMIT ${LIMIT}`,
    factRow,
  );
  return rows.map(factCandidate);
};
