import { sql } from "drizzle-orm";
import { column, rowDecoder } from "../db/rows";

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
  /** a place's country (ISO alpha-2) and the geocoder's id of it, from resolve_geo */
  country: string | null;
  geoId: string | null;
  createdAt: Date;
  createdRunId: string | null;
  updatedAt: Date;
}

/** A fact's columns as the row decoders read them (factRow; load_candidates reads some of them). */
export const factColumns = {
  id: column.text,
  subject_id: column.text,
  subject_name: column.text,
  predicate: column.text,
  object_id: column.nullable(column.text),
  object_name: column.nullable(column.text),
  object_value: column.nullable(column.text),
  sentence: column.text,
  valid_at: column.nullable(column.timestamp),
  invalid_at: column.nullable(column.timestamp),
  created_at: column.timestamp,
  expired_at: column.nullable(column.timestamp),
  text_id: column.text,
  chunk_id: column.text,
  created_run_id: column.text,
  invalidated_run_id: column.nullable(column.text),
  invalidated_by: column.nullable(column.text),
};
export const factRow = rowDecoder(factColumns);
export type FactRow = ReturnType<typeof factRow>;

/** The SELECT list and joins for factRow; alias the facts table `f`. */
export const factSelect = sql`SELECT f.id, f.subject_id, s.name AS subject_name, f.predicate, f.object_id, o.name AS object_name,
  f.object_value, f.sentence, f.valid_at, f.invalid_at, f.created_at, f.expired_at, f.text_id, f.chunk_id,
  f.created_run_id, f.invalidated_run_id, f.invalidated_by
  FROM gb_facts f
  JOIN gb_entities s ON s.dataset_id = f.dataset_id AND s.id = f.subject_id
  LEFT JOIN gb_entities o ON o.dataset_id = f.dataset_id AND o.id = f.object_id`;

export function toFactView(r: FactRow): FactView {
  return {
    id: r.id,
    subject: { id: r.subject_id, name: r.subject_name },
    predicate: r.predicate,
    object: r.object_id ? { id: r.object_id, name: r.object_name ?? "" } : null,
    objectValue: r.object_value,
    sentence: r.sentence,
    validAt: r.valid_at,
    invalidAt: r.invalid_at,
    createdAt: r.created_at,
    expiredAt: r.expired_at,
    current: r.expired_at === null,
    textId: r.text_id,
    chunkId: r.chunk_id,
    createdRunId: r.created_run_id,
    invalidatedRunId: r.invalidated_run_id,
    invalidatedBy: r.invalidated_by,
  };
}
