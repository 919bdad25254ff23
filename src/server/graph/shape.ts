import { sql } from "drizzle-orm";

/** How the graph API shows a fact: both ends named, its validity and its runs. */
export interface FactView {
  id: string;
  subject: { id: string; name: string };
  predicate: string;
  object: { id: string; name: string } | null;
  objectValue: string | null;
  sentence: string;
  validAt: Date | null;
  invalidAt: Date | null;
  createdAt: Date;
  expiredAt: Date | null;
  /** current = not expired */
  current: boolean;
  textId: string;
  chunkId: string;
  createdRunId: string;
  invalidatedRunId: string | null;
  invalidatedBy: string | null;
}

export interface EntityView {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  summary: string | null;
  lat: number | null;
  lon: number | null;
  createdAt: Date;
  createdRunId: string | null;
  updatedAt: Date;
}

export type FactRow = {
  id: string;
  subject_id: string;
  subject_name: string;
  predicate: string;
  object_id: string | null;
  object_name: string | null;
  object_value: string | null;
  sentence: string;
  valid_at: Date | string | null;
  invalid_at: Date | string | null;
  created_at: Date | string;
  expired_at: Date | string | null;
  text_id: string;
  chunk_id: string;
  created_run_id: string;
  invalidated_run_id: string | null;
  invalidated_by: string | null;
};

/** The SELECT list and joins for FactRow; alias the facts table `f`. */
export const factSelect = sql`SELECT f.id, f.subject_id, s.name AS subject_name, f.predicate, f.object_id, o.name AS object_name,
  f.object_value, f.sentence, f.valid_at, f.invalid_at, f.created_at, f.expired_at, f.text_id, f.chunk_id,
  f.created_run_id, f.invalidated_run_id, f.invalidated_by
  FROM gb_facts f
  JOIN gb_entities s ON s.dataset_id = f.dataset_id AND s.id = f.subject_id
  LEFT JOIN gb_entities o ON o.dataset_id = f.dataset_id AND o.id = f.object_id`;

// Raw rows come back as Date (postgres.js) or string (PGlite for some types): one shape out.
export const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

export function toFactView(r: FactRow): FactView {
  return {
    id: r.id,
    subject: { id: r.subject_id, name: r.subject_name },
    predicate: r.predicate,
    object: r.object_id ? { id: r.object_id, name: r.object_name ?? "" } : null,
    objectValue: r.object_value,
    sentence: r.sentence,
    validAt: date(r.valid_at),
    invalidAt: date(r.invalid_at),
    createdAt: date(r.created_at)!,
    expiredAt: date(r.expired_at),
    current: r.expired_at === null,
    textId: r.text_id,
    chunkId: r.chunk_id,
    createdRunId: r.created_run_id,
    invalidatedRunId: r.invalidated_run_id,
    invalidatedBy: r.invalidated_by,
  };
}
