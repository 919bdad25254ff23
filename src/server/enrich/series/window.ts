import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { column, queryRows, rowDecoder } from "../../db/rows";
import { parseQuantity } from "./quantity";

export interface SeriesFact {
  factId: string;
  subject: string;
  predicate: string;
  object: string;
  sentence: string;
  /** a number the fact holds, with its unit */
  value: number | null;
  unit: string | null;
  validAt: string | null;
}

export interface SeriesMember {
  textId: string;
  position: number | null;
  occurredAt: string | null;
  createdAt: string;
  content: string;
  facts: SeriesFact[];
}

export interface SeriesWindow {
  seriesKey: string;
  /** oldest first; the text being remembered is the last */
  members: SeriesMember[];
}

/** How much of a member's text the window carries (observe_series reads facts, not prose). */
const CONTENT_CHARS = 500;
/** A member's facts beyond this are left out, numeric ones kept first: a long text is not a data point. */
const FACTS_PER_MEMBER = 100;

/**
 * The order of a series: when it happened (a text without occurredAt, when it was remembered),
 * then the order of submission. One expression for the window and for graph.series.
 */
export const seriesOrder = (t: string, direction: "" | " DESC" = ""): SQL =>
  sql.raw(
    [`coalesce(${t}.occurred_at, ${t}.created_at)`, `coalesce(${t}.series_position, 2147483647)`, `${t}.created_at`, `${t}.id`]
      .map((c) => c + direction)
      .join(", "),
  );

const memberRow = rowDecoder({
  id: column.text,
  series_position: column.nullable(column.int),
  occurred_at: column.nullable(column.timestamp),
  created_at: column.timestamp,
  content: column.text,
});

const factRow = rowDecoder({
  id: column.text,
  text_id: column.text,
  subject: column.text,
  predicate: column.text,
  object: column.text,
  num_value: column.nullable(column.number),
  unit: column.nullable(column.text),
  sentence: column.text,
  valid_at: column.nullable(column.timestamp),
});

export type FactRow = ReturnType<typeof factRow>;

/**
 * The facts the given texts stated, both ends named, past ones too (a series keeps its old
 * values): through their chunks' provenance (gb_mentions), so that a fact a member repeats (a
 * duplicate of an earlier one, stored once) is a point of that member too. Every step is an
 * index: chunks by text, mentions by chunk (its key), facts and entities by id. Each step after
 * the chunks is a LATERAL subquery the planner cannot flatten (OFFSET 0), so it is looked up by
 * the row before it whatever the statistics say: with those of a dataset they had never seen,
 * the planner nested whole-dataset scans instead (27-42 s a text; see maintenance.ts).
 */
export async function memberFacts(db: Db, datasetId: string, textIds: string[], limit: number): Promise<FactRow[]> {
  if (textIds.length === 0) return [];
  return queryRows(db, memberFactsSql(datasetId, textIds, limit), factRow);
}

/** memberFacts' statement (at least one text). */
export function memberFactsSql(datasetId: string, textIds: string[], limit: number): SQL {
  const list = sql.join([...new Set(textIds)].map((x) => sql`${x}::uuid`), sql`, `);
  return sql`SELECT f.id, c.text_id, s.name AS subject, f.predicate, coalesce(o.name, f.object_value, '') AS object,
               f.num_value, f.unit, f.sentence, f.valid_at
          FROM gb_chunks c
          CROSS JOIN LATERAL (
            SELECT m.target_id FROM gb_mentions m
            WHERE m.dataset_id = c.dataset_id AND m.chunk_id = c.id AND m.target_kind = 'fact' OFFSET 0
          ) m
          CROSS JOIN LATERAL (
            SELECT f.id, f.subject_id, f.object_id, f.predicate, f.object_value, f.num_value, f.unit, f.sentence, f.valid_at, f.created_at
            FROM gb_facts f WHERE f.dataset_id = c.dataset_id AND f.id = m.target_id OFFSET 0
          ) f
          CROSS JOIN LATERAL (SELECT s.name FROM gb_entities s WHERE s.dataset_id = c.dataset_id AND s.id = f.subject_id OFFSET 0) s
          LEFT JOIN LATERAL (SELECT o.name FROM gb_entities o WHERE o.dataset_id = c.dataset_id AND o.id = f.object_id OFFSET 0) o ON true
         WHERE c.dataset_id = ${datasetId} AND c.text_id IN (${list})
         ORDER BY (f.num_value IS NULL), f.created_at, f.id
         LIMIT ${limit}`;
}

/** A fact's number: the stored one, else read from its literal object (a fact stored before num_value). */
export function factNumber(f: Pick<FactRow, "num_value" | "unit" | "object">): { value: number | null; unit: string | null } {
  if (f.num_value !== null) return { value: f.num_value, unit: f.unit };
  const q = parseQuantity(f.object);
  return q ? { value: q.value, unit: q.unit } : { value: null, unit: null };
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/**
 * fetch_series' work: the last `size` texts of the series up to the one being remembered (it is
 * the last), in series order, each with its facts. Observations are not members.
 */
export async function fetchSeriesWindow(input: { db: Db; datasetId: string; seriesKey: string; textId: string; size: number }): Promise<SeriesWindow> {
  const { db, datasetId, seriesKey, textId, size } = input;
  const rows = await queryRows(
    db,
    sql`WITH cur AS (SELECT ${seriesOrder("c")} FROM gb_texts c WHERE c.dataset_id = ${datasetId} AND c.id = ${textId})
        SELECT x.id, x.series_position, x.occurred_at, x.created_at, left(x.content, ${CONTENT_CHARS}) AS content
          FROM gb_texts x
         WHERE x.dataset_id = ${datasetId} AND x.series_key = ${seriesKey} AND x.kind = 'text'
           AND (${seriesOrder("x")}) <= (SELECT * FROM cur)
         ORDER BY ${seriesOrder("x", " DESC")}
         LIMIT ${size}`,
    memberRow,
  );
  const members = rows.reverse();
  const facts = await memberFacts(db, datasetId, members.map((m) => m.id), members.length * FACTS_PER_MEMBER);
  const byText = new Map<string, SeriesFact[]>();
  for (const f of facts) {
    const list = byText.get(f.text_id) ?? [];
    if (list.length >= FACTS_PER_MEMBER) continue;
    list.push({ factId: f.id, subject: f.subject, predicate: f.predicate, object: f.object, sentence: f.sentence, ...factNumber(f), validAt: iso(f.valid_at) });
    byText.set(f.text_id, list);
  }
  return {
    seriesKey,
    members: members.map((m) => ({
      textId: m.id,
      position: m.series_position,
      occurredAt: iso(m.occurred_at),
      createdAt: m.created_at.toISOString(),
      content: m.content,
      facts: byText.get(m.id) ?? [],
    })),
  };
}

/** fetch_series' output (what the run page shows): each member in a line, its numbers spelt out. */
export function windowOutput(w: SeriesWindow): unknown {
  return {
    seriesKey: w.seriesKey,
    members: w.members.map((m) => ({
      textId: m.textId,
      position: m.position,
      occurredAt: m.occurredAt,
      excerpt: m.content.length > 120 ? `${m.content.slice(0, 119)}…` : m.content,
      facts: m.facts.length,
      values: m.facts.filter((f) => f.value !== null).map((f) => `${f.subject} ${f.predicate} ${f.object}`),
    })),
  };
}
