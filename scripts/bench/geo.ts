import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { LOCAL_CALLER } from "../../src/server/auth/caller";
import { createDataset } from "../../src/server/datasets/datasets";
import { column, queryRows, rowDecoder } from "../../src/server/db/rows";
import { gazetteer } from "../../src/server/enrich/geo/gazetteer";
import { gazetteerGeocoder } from "../../src/server/enrich/geo/geocoder";
import { retrieveList } from "../../src/server/query/retrieve";
import type { BenchDatabase } from "./databases";
import { pct } from "./query";

/*
 * The offline geocoder's figures (#15): the gazetteer's load time, and lookups per second of
 * place names, unique ones and names many places share (Springfield, Richmond), with and
 * without a country hint.
 */
export async function benchGeo(): Promise<string[][]> {
  let t = performance.now();
  const g = await gazetteer();
  const loadMs = performance.now() - t;
  const sample = ["Paris", "Springfield", "Lyon", "Villeurbanne", "São Paulo", "Lisbon", "Portland", "Richmond", "Cambridge", "Valencia"];
  const geo = gazetteerGeocoder();
  const rows: string[][] = [["geocoder", "places", "load ms", "lookups", "per second", "with a country hint per second"]];
  const rounds = 2000;
  t = performance.now();
  for (let i = 0; i < rounds; i++) await geo.lookup({ name: sample[i % sample.length]! });
  const plain = rounds / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let i = 0; i < rounds; i++) await geo.lookup({ name: sample[i % sample.length]!, countries: ["US"] });
  const hinted = rounds / ((performance.now() - t) / 1000);
  rows.push(["gazetteer (offline)", String(g.size), loadMs.toFixed(0), String(rounds), plain.toFixed(0), hinted.toFixed(0)]);
  return rows;
}

/**
 * nearby_geo's figure (#15): the nearby list (a box on gb_entities_geo_idx, then the exact
 * distance, then the nearest entities' current facts) at `sizes` places with coordinates, spread
 * over a box of Europe (36–60° N, 10° W–30° E) with one fact each, written straight in SQL.
 * Each query is centred on a random place; radii of 25 km (the default) and 250 km.
 */
export async function benchNearby(dbs: BenchDatabase[], sizes: number[], queries: number): Promise<string[][]> {
  const rows: string[][] = [["db", "places", "radius km", "queries", "found (mean)", "p50 ms", "p99 ms"]];
  for (const { name, database } of dbs) {
    const db = database.db;
    for (const size of sizes) {
      const ds = await createDataset({ db, caller: LOCAL_CALLER, input: { name: `bench-geo-${randomUUID().slice(0, 8)}` } });
      const id = ds.id;
      const run = randomUUID();
      const text = randomUUID();
      // coordinates from the place's number, hashed: spread evenly, the same on every run
      const frac = (salt: string) => sql.raw(`(('x' || substr(md5(i::text || '${salt}'), 1, 8))::bit(32)::bigint / 4294967296.0)`);
      await db.execute(sql`
        INSERT INTO gb_entities (dataset_id, id, name, name_key, type, aliases, alias_keys, lat, lon, country, geo_id, created_at, created_run_id, updated_at)
        SELECT ${id}, md5(${id} || 'g' || i)::uuid, 'Town' || i, 'town' || i, 'place', '{}', '{}',
          36 + 24 * ${frac("a")}, -10 + 40 * ${frac("o")}, 'FR', 'bench:' || i, now(), ${run}, now()
        FROM generate_series(1, ${size}) i`);
      await db.execute(sql`INSERT INTO gb_texts (dataset_id, id, run_id, content, source, created_at) VALUES (${id}, ${text}, ${run}, 'bench', '{}'::jsonb, now())`);
      await db.execute(sql`
        INSERT INTO gb_chunks (dataset_id, id, text_id, run_id, idx, content, summary, token_count, created_at)
        VALUES (${id}, ${text}, ${text}, ${run}, 0, 'bench', 'bench', 1, now())`);
      await db.execute(sql`
        INSERT INTO gb_facts (dataset_id, id, subject_id, predicate, object_id, object_value, sentence, created_at, text_id, chunk_id, created_run_id)
        SELECT ${id}, md5(${id} || 'f' || i)::uuid, md5(${id} || 'g' || i)::uuid, 'has', NULL, 'a bakery',
          'Town' || i || ' has a bakery.', now(), ${text}, ${text}, ${run}
        FROM generate_series(1, ${size}) i`);
      await db.execute(sql`VACUUM ANALYZE`);
      const centres = await queryRows(
        db,
        sql`SELECT lat, lon FROM gb_entities WHERE dataset_id = ${id} ORDER BY md5(id::text) LIMIT ${queries + 20}`,
        rowDecoder({ lat: column.number, lon: column.number }),
      );
      for (const radiusKm of [25, 250]) {
        const times: number[] = [];
        let found = 0;
        for (let i = 0; i < centres.length; i++) {
          const c = centres[i]!;
          const t = performance.now();
          const list = await retrieveList("nearby", {
            db,
            datasetId: id,
            question: "What is near here?",
            vector: null,
            asOf: null,
            period: null,
            pgvector: database.vector,
            dimensions: 256,
            weights: { terms: [], chunks: 1, avgLength: 1 },
            near: { lat: c.lat, lon: c.lon, radiusKm },
          });
          if (i < 20) continue; // warm-up
          times.push(performance.now() - t);
          found += list.length;
        }
        rows.push([name, String(size), String(radiusKm), String(times.length), (found / times.length).toFixed(1), pct(times, 50).toFixed(2), pct(times, 99).toFixed(2)]);
      }
    }
  }
  return rows;
}
