import { sql } from "drizzle-orm";
import type { ListQuery } from "./candidate";

/** A uuid[] parameter (uuids need no quoting in an array literal). */
export const uuidArray = (ids: string[]) => sql`${`{${ids.join(",")}}`}::uuid[]`;

/**
 * The most full-text matches a text list scores. A question of only common words matches most of
 * a large dataset; scoring all of it would take seconds, and the best of a bounded sample is as
 * good an answer to such a question.
 */
export const MAX_SCORED = 3000;

/**
 * Embedding neighbours further than this (cosine distance; 1 = unrelated) are not candidates:
 * the nearest rows of a dataset are not an answer to a question about something else.
 */
export const MAX_DISTANCE = 0.75;

/** The question's embedding if the vector lists can use it (of the stored size, not all zero). */
export function questionVector(q: ListQuery): number[] | null {
  const v = q.vector;
  return v && v.length === q.dimensions && v.some((x) => x !== 0) ? v : null;
}
