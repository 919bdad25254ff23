import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { column, queryRows, rowDecoder } from "../../db/rows";
import type { Scope } from "../../auth/caller";
import { resolveDataset } from "../../datasets/datasets";
import { factNumber, memberFacts, seriesOrder } from "./window";
import type { SeriesInput, SeriesKeysInput } from "./schemas";

/** graph.series and graph.seriesKeys: a series' members, its numbers per measure, and what was observed about it. */

export interface SeriesPoint {
  textId: string;
  /** the member's occurredAt, else the fact's validAt, else when the member was remembered */
  time: Date;
  value: number;
  unit: string | null;
  factId: string;
}

export interface SeriesMeasure {
  /** "Acme has_revenue (EUR)": subject, predicate and unit, one line of the chart */
  measure: string;
  subject: string;
  predicate: string;
  unit: string | null;
  points: SeriesPoint[];
}

export interface SeriesView {
  key: string;
  members: { textId: string; position: number | null; occurredAt: Date | null; createdAt: Date; excerpt: string }[];
  measures: SeriesMeasure[];
  observations: { textId: string; content: string; createdAt: Date; textIds: string[] }[];
}

const EXCERPT = 160;
const memberRow = rowDecoder({
  id: column.text,
  series_position: column.nullable(column.int),
  occurred_at: column.nullable(column.timestamp),
  created_at: column.timestamp,
  excerpt: column.text,
});
const observationRow = rowDecoder({ id: column.text, content: column.text, created_at: column.timestamp, text_ids: column.json<string[]>() });

export async function getSeries({ db, scope, input }: { db: Db; scope: Scope; input: SeriesInput }): Promise<SeriesView> {
  const ds = await resolveDataset(db, input.dataset, scope);
  const latest = await queryRows(
    db,
    sql`SELECT x.id, x.series_position, x.occurred_at, x.created_at, left(x.content, ${EXCERPT}) AS excerpt
          FROM gb_texts x
         WHERE x.dataset_id = ${ds.id} AND x.series_key = ${input.key} AND x.kind = 'text'
         ORDER BY ${seriesOrder("x", " DESC")}
         LIMIT ${input.limit}`,
    memberRow,
  );
  const rows = latest.reverse();
  const members = rows.map((m) => ({ textId: m.id, position: m.series_position, occurredAt: m.occurred_at, createdAt: m.created_at, excerpt: m.excerpt }));
  if (members.length === 0) return { key: input.key, members, measures: [], observations: [] };
  const ids = members.map((m) => m.textId);
  const order = new Map(ids.map((id, i) => [id, i]));
  const facts = await memberFacts(db, ds.id, ids, 20_000);
  const measures = new Map<string, SeriesMeasure>();
  for (const f of facts) {
    const n = factNumber(f);
    if (n.value === null) continue;
    const measure = `${f.subject} ${f.predicate}${n.unit ? ` (${n.unit})` : ""}`;
    const m = measures.get(measure) ?? { measure, subject: f.subject, predicate: f.predicate, unit: n.unit, points: [] };
    const member = members[order.get(f.text_id)!]!;
    m.points.push({ textId: f.text_id, time: member.occurredAt ?? f.valid_at ?? member.createdAt, value: n.value, unit: n.unit, factId: f.id });
    measures.set(measure, m);
  }
  for (const m of measures.values()) m.points.sort((a, b) => order.get(a.textId)! - order.get(b.textId)!);
  const list = sql.join(ids.map((id) => sql`${id}`), sql`, `);
  const observed = await queryRows(
    db,
    sql`SELECT id, content, created_at, derived_from->'textIds' AS text_ids
          FROM gb_texts
         WHERE dataset_id = ${ds.id} AND kind = 'observation' AND derived_from->>'stage' = 'observe_series'
           AND jsonb_exists_any(derived_from->'textIds', ARRAY[${list}]::text[])
         ORDER BY created_at, id
         LIMIT 500`,
    observationRow,
  );
  return {
    key: input.key,
    members,
    measures: [...measures.values()].sort((a, b) => b.points.length - a.points.length || a.measure.localeCompare(b.measure)),
    observations: observed.map((o) => ({ textId: o.id, content: o.content, createdAt: o.created_at, textIds: o.text_ids })),
  };
}

const keyRow = rowDecoder({ series_key: column.text, members: column.int, last_at: column.timestamp });

/** The dataset's series, the most recently active first. */
export async function listSeriesKeys({ db, scope, input }: { db: Db; scope: Scope; input: SeriesKeysInput }): Promise<{ items: { key: string; members: number; lastAt: Date }[] }> {
  const ds = await resolveDataset(db, input.dataset, scope);
  const rows = await queryRows(
    db,
    sql`SELECT series_key, count(*)::int AS members, max(coalesce(occurred_at, created_at)) AS last_at
          FROM gb_texts
         WHERE dataset_id = ${ds.id} AND series_key IS NOT NULL AND kind = 'text'
         GROUP BY series_key
         ORDER BY last_at DESC, series_key
         LIMIT ${input.limit}`,
    keyRow,
  );
  return { items: rows.map((r) => ({ key: r.series_key, members: r.members, lastAt: r.last_at })) };
}
