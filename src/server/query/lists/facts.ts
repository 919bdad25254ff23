import { type SQL, sql } from "drizzle-orm";
import { column, rowDecoder } from "../../db/rows";
import type { TextSource } from "../../db/schema/graph";
import type { Candidate } from "./candidate";

/*
 * The lists that find facts select these columns from these tables (a fact `f` with its text `t`)
 * and make candidates of the rows with factCandidate.
 */

export const factColumns = sql`f.id, f.subject_id, f.object_id, f.sentence, f.valid_at, f.invalid_at, f.text_id, f.chunk_id, t.source, coalesce(t.occurred_at, t.created_at) AS at`;
/**
 * A fact `f` with its text `t` (the columns factColumns and factValidity read). The text is looked
 * up by key for each fact (a LATERAL subquery the planner cannot flatten, OFFSET 0): with
 * statistics that had never seen the dataset, the planner joined them by scanning the dataset's
 * texts once per fact (entities: 245 ms for 725 facts, and it grows with the square of the
 * dataset; see db/maintenance.ts).
 */
export const factText = sql`CROSS JOIN LATERAL (SELECT t.source, t.occurred_at, t.created_at FROM gb_texts t WHERE t.dataset_id = f.dataset_id AND t.id = f.text_id OFFSET 0) t`;
export const factTables = sql`gb_facts f ${factText}`;

export const factRow = rowDecoder({
  id: column.text,
  subject_id: column.text,
  object_id: column.nullable(column.text),
  sentence: column.text,
  valid_at: column.nullable(column.timestamp),
  invalid_at: column.nullable(column.timestamp),
  text_id: column.text,
  chunk_id: column.text,
  source: column.json<TextSource>(),
  at: column.timestamp,
});

export type FactRow = ReturnType<typeof factRow>;

export function factCandidate(r: FactRow): Candidate {
  return {
    key: `fact:${r.id}`,
    kind: "fact",
    id: r.id,
    text: r.sentence,
    validAt: r.valid_at,
    invalidAt: r.invalid_at,
    entityIds: r.object_id ? [r.subject_id, r.object_id] : [r.subject_id],
    source: { textId: r.text_id, chunkId: r.chunk_id, ...r.source },
    at: r.at,
  };
}

/** Facts that are current (not expired, not ended), or that held at `asOf`. */
export function factValidity(asOf: Date | null): SQL {
  if (!asOf) return sql`f.expired_at IS NULL AND (f.invalid_at IS NULL OR f.invalid_at > now())`;
  const at = asOf.toISOString();
  // held at asOf: begun by then (its own start, else when its text happened; a fact with neither
  // has no known start) and not yet ended
  return sql`coalesce(coalesce(f.valid_at, t.occurred_at) <= ${at}::timestamptz, true)
             AND (f.invalid_at IS NULL OR f.invalid_at > ${at}::timestamptz)`;
}
