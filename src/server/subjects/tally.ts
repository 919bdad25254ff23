import { type SQL, sql } from "drizzle-orm";

/** The tables a purge deletes from, as its receipt names them. */
export const PurgedTables = [
  "gb_texts",
  "gb_chunks",
  "gb_facts",
  "gb_entities",
  "gb_mentions",
  "gb_term_stats",
  "gb_inferences",
  "gb_remember_run_stage_outputs",
  "gb_query_run_stage_outputs",
  "short_term_memories",
  "short_term_memory_versions",
] as const;
export type PurgedTable = (typeof PurgedTables)[number];

/** The run-log tables whose params a purge replaces. */
export const RedactedTables = ["gb_remember_runs", "gb_query_runs"] as const;
export type RedactedTable = (typeof RedactedTables)[number];

/**
 * The dataset tables a purge deletes nothing from, each with why it holds no subject data.
 * Together with PurgedTables and RedactedTables these are exactly the tables with a dataset_id
 * (DatasetTables, read from the schema; tally.test.ts): a new dataset table fails that test until
 * it is decided what a purge does with it.
 */
export const HoldsNoSubjectData: Readonly<Record<string, string>> = {
  gb_search_stats: "two totals per dataset (chunks, lexemes) and no text; a purge lowers them to match the chunks left",
  gb_vector_pivots:
    "the sign bits (one per dimension) of embeddings of rows chosen at random, copied and not linked to any row: no text can be read back from them; the purged rows leave their cells with themselves (db/vector-cells.ts)",
};

export type Tally<K extends string> = Record<K, number>;

export function zeroTally<K extends string>(keys: readonly K[]): Tally<K> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Tally<K>;
}

/**
 * A parenthesised subquery of the given ids, for `inArray(column, inIds(ids))` or raw `IN`. One
 * JSON parameter rather than one per id: a person's data can exceed Postgres's 65,535 parameters.
 */
export function inIds(ids: Iterable<string>, type: "uuid" | "text" = "uuid"): SQL {
  const json = JSON.stringify([...ids]);
  return type === "uuid"
    ? sql`(SELECT jsonb_array_elements_text(${json}::jsonb)::uuid)`
    : sql`(SELECT jsonb_array_elements_text(${json}::jsonb))`;
}
