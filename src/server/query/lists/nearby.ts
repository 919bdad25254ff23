import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { column, queryRows, type RowDecoder, rowDecoder } from "../../db/rows";
import type { Candidate, ListQuery, NearQuery, RetrievalList } from "./candidate";
import { chunkCandidate, chunkColumns, chunkRow, chunkTables, chunkValidity } from "./chunks";
import { factCandidate, factColumns, factRow, factTables, factValidity } from "./facts";
import { uuidArray } from "./shared";

/** the nearest entities looked at, and the most candidates given */
const ENTITIES = 50;
const LIMIT = 30;

const EARTH_KM = 6371.0088;
const KM_PER_DEGREE = (EARTH_KM * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;

export interface Box {
  latMin: number;
  latMax: number;
  /** longitude ranges (two when the box crosses the antimeridian); null: every longitude */
  lon: [number, number][] | null;
}

/**
 * The latitude/longitude box that holds every point within `radiusKm` of the centre: what the
 * index on (dataset_id, lat, lon) serves. The longitude half-width of a spherical cap is
 * asin(sin(r/R) / cos(lat)); a cap that reaches a pole, or a radius beyond a quarter of the
 * Earth's circumference, takes every longitude.
 */
export function boundingBox({ lat, lon, radiusKm }: NearQuery): Box {
  const dLat = radiusKm / KM_PER_DEGREE;
  const latMin = Math.max(-90, lat - dLat);
  const latMax = Math.min(90, lat + dLat);
  const angle = radiusKm / EARTH_KM;
  const s = Math.sin(angle) / Math.cos((lat * Math.PI) / 180);
  if (latMin <= -90 || latMax >= 90 || angle >= Math.PI / 2 || s >= 1) return { latMin, latMax, lon: null };
  const dLon = deg(Math.asin(s));
  const [lo, hi] = [lon - dLon, lon + dLon];
  if (lo < -180) return { latMin, latMax, lon: [[lo + 360, 180], [-180, hi]] };
  if (hi > 180) return { latMin, latMax, lon: [[lo, 180], [-180, hi - 360]] };
  return { latMin, latMax, lon: [[lo, hi]] };
}

/** Great-circle distance in km from the centre to the row's e.lat, e.lon (haversine, as distanceKm). */
function distanceSql(c: NearQuery): SQL {
  return sql`(2 * ${EARTH_KM}::float8 * asin(least(1, sqrt(
    power(sin(radians(e.lat - ${c.lat}::float8) / 2), 2)
    + cos(radians(${c.lat}::float8)) * cos(radians(e.lat)) * power(sin(radians(e.lon - ${c.lon}::float8) / 2), 2)))))`;
}

const nearRow = rowDecoder({ id: column.text, name: column.text, km: column.number });
export type NearEntity = ReturnType<typeof nearRow>;

/** The dataset's entities within the radius, nearest first: the box on the index, then the exact distance. */
export async function entitiesNear(q: { db: Db; datasetId: string }, c: NearQuery, limit = ENTITIES): Promise<NearEntity[]> {
  const box = boundingBox(c);
  const lon = box.lon ? sql`AND (${sql.join(box.lon.map(([a, b]) => sql`e.lon BETWEEN ${a}::float8 AND ${b}::float8`), sql` OR `)})` : sql``;
  return queryRows(
    q.db,
    sql`SELECT id, name, km FROM (
          SELECT e.id, e.name, ${distanceSql(c)} AS km FROM gb_entities e
          WHERE e.dataset_id = ${q.datasetId} AND e.lat IS NOT NULL
            AND e.lat BETWEEN ${box.latMin}::float8 AND ${box.latMax}::float8 ${lon}
        ) n
        WHERE km <= ${c.radiusKm}::float8
        ORDER BY km, id LIMIT ${limit}`,
    nearRow,
  );
}

/** a row of `decode`'s columns and the nearby entity it was found by */
const nearBy =
  <T>(decode: RowDecoder<T>): RowDecoder<T & { near_id: string }> =>
  (raw) => ({ ...decode(raw), near_id: column.text(raw.near_id) });

/**
 * nearby: what the dataset knows within the radius of the question's place (nearby_geo; nothing
 * without one): the current facts (or those of asOf) of the nearest entities, nearest first, and
 * for an entity of no such fact the latest chunk that mentions it. Each says how far it is.
 */
export const nearby: RetrievalList = { run: nearbyCandidates };

async function nearbyCandidates(q: ListQuery): Promise<Candidate[]> {
  if (!q.near) return [];
  const near = await entitiesNear(q, q.near);
  if (!near.length) return [];
  const byId = new Map(near.map((e) => [e.id, e]));
  const ids = uuidArray(near.map((e) => e.id));
  const facts = await queryRows(
    q.db,
    sql`SELECT ${factColumns}, n.id AS near_id FROM ${factTables}
        JOIN unnest(${ids}) WITH ORDINALITY AS n(id, ord) ON f.subject_id = n.id OR f.object_id = n.id
        WHERE f.dataset_id = ${q.datasetId} AND ${factValidity(q.asOf)}
        ORDER BY n.ord, f.created_at DESC LIMIT ${LIMIT * 3}`,
    nearBy(factRow),
  );
  const out = new Map<string, Candidate>();
  const place = (c: Candidate, nearId: string): Candidate => {
    const e = byId.get(nearId)!;
    return { ...c, distanceKm: Math.round(e.km * 10) / 10, nearEntity: { id: e.id, name: e.name } };
  };
  // a fact about two nearby entities: at the nearer one's distance (rows come nearest first)
  for (const r of facts) if (!out.has(`fact:${r.id}`)) out.set(`fact:${r.id}`, place(factCandidate(r), r.near_id));
  const told = new Set(facts.flatMap((r) => [r.subject_id, r.object_id]));
  const silent = near.filter((e) => !told.has(e.id));
  if (silent.length) {
    const chunks = await queryRows(
      q.db,
      sql`SELECT DISTINCT ON (n.ord) ${chunkColumns}, n.id AS near_id
          FROM unnest(${uuidArray(silent.map((e) => e.id))}) WITH ORDINALITY AS n(id, ord)
          JOIN gb_mentions m ON m.dataset_id = ${q.datasetId} AND m.target_kind = 'entity' AND m.target_id = n.id
          JOIN ${chunkTables} ON c.dataset_id = m.dataset_id AND c.id = m.chunk_id
          WHERE ${chunkValidity(q.asOf)}
          ORDER BY n.ord, at DESC`,
      nearBy(chunkRow),
    );
    for (const r of chunks) if (!out.has(`summary:${r.id}`)) out.set(`summary:${r.id}`, place(chunkCandidate(r), r.near_id));
  }
  return [...out.values()].sort((a, b) => a.distanceKm! - b.distanceKm!).slice(0, LIMIT);
}
