import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { column, queryRows, rowDecoder } from "../db/rows";
import { cosineDistance, vectorRows } from "../db/vector";
import { factColumns } from "../graph/shape";
import { nameKey, sqlNameKey } from "../text/name-key";

/*
 * load_candidates: what the dataset already knows that the new entities and facts may be the
 * same as or conflict with. Entities by exact normalised name or alias, similar name (pg_trgm),
 * and embedding neighbours. Facts: exactly those resolve_edges may compare a new fact with, the
 * current facts (expired_at IS NULL) whose subject is one of those entities and that have the
 * same predicate as one of the chunk's facts, or the same object. All within the dataset.
 *
 * Bounded per subject and predicate, never overall: under one overall limit a busy town's many
 * facts pushed a person's own "lives in" out of the candidates, and the person's move to another
 * town never retired it.
 */

export interface EntityCandidate {
  id: string;
  name: string;
  nameKey: string;
  type: string;
  aliases: string[];
  aliasKeys: string[];
  summary: string | null;
  /** how it was found: exact | trigram (similarity) | vector (cosine similarity) */
  via: "exact" | "trigram" | "vector";
  /** the new key it was found for (trigram, vector) */
  forKey: string | null;
  score: number;
}

export interface FactCandidate {
  id: string;
  subjectId: string;
  subjectName: string;
  predicate: string;
  objectId: string | null;
  objectName: string | null;
  objectValue: string | null;
  sentence: string;
  validAt: Date | null;
}

export interface Candidates {
  entities: EntityCandidate[];
  facts: FactCandidate[];
}

/** One of the chunk's facts, as load_candidates reads it: the keys of its subject's (and object's) entity, its predicate, its literal value. */
export interface ChunkFactShape {
  subjectKeys: string[];
  predicate: string;
  /** the object entity's keys; none for a literal value */
  objectKeys: string[];
  value: string | null;
}

export interface CandidateQuery {
  datasetId: string;
  /** normalised names and aliases of the chunk's entities */
  keys: string[];
  /**
   * The same keys by entity, its name's key first. When given, similar names are searched only
   * for the entities no existing entity is named exactly like: resolve_edges takes an exact name
   * match as it is and never looks at the similar names found for it (on a long text most names
   * are met again, and the trigram search was most of the time of load_candidates).
   */
  entityKeys?: string[][];
  /** name embeddings of the entities no exact match found, by key */
  vectors: { key: string; vector: number[] }[];
  /** The chunk's facts: the current facts each may repeat or contradict are loaded (currentFacts). */
  chunkFacts: ChunkFactShape[];
  pgvector: boolean;
  dimensions: number;
}

const entityColumns = sql.raw("id, name, name_key, type, aliases, alias_keys, summary");
const entity = {
  id: column.text,
  name: column.text,
  name_key: column.text,
  type: column.text,
  aliases: column.texts,
  alias_keys: column.texts,
  summary: column.nullable(column.text),
};
type EntityRow = ReturnType<ReturnType<typeof rowDecoder<typeof entity>>>;
const nearRow = rowDecoder({ ...entity, d: column.number });

const json = (v: unknown) => sql`${JSON.stringify(v)}::jsonb`;
const fromRow = (r: EntityRow, via: EntityCandidate["via"], forKey: string | null, score: number): EntityCandidate => ({
  id: r.id,
  name: r.name,
  nameKey: r.name_key,
  type: r.type,
  aliases: r.aliases,
  aliasKeys: r.alias_keys,
  summary: r.summary,
  via,
  forKey,
  score,
});

/**
 * A text[] (or uuid[]) parameter, as an array literal: the planner sees its values (an
 * ARRAY(SELECT …) is a subplan it cannot match to the index's predicate column).
 */
const textArray = (v: string[]) => `{${v.map((x) => `"${x.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`;
const texts = (v: string[]) => sql`${textArray(v)}::text[]`;
const uuids = (v: string[]) => sql`${textArray(v)}::uuid[]`;

const namedRow = rowDecoder({ ...entity, via: column.text, key: column.nullable(column.text), sim: column.number });

/**
 * The entities named like the chunk's, in one statement: exactly (name or alias key), and, for
 * the chunk entities no existing entity is named exactly like, by a similar name (pg_trgm, the
 * five most similar per key). resolve_edges takes an exact name match as it is and never looks at
 * the similar names found for it, and on a long text most names are met again: the trigram search
 * was most of load_candidates' time. Without entityKeys every key is compared.
 */
async function namedEntities(db: Db, datasetId: string, keys: string[], entityKeys: string[][] | undefined): Promise<EntityCandidate[]> {
  if (keys.length === 0) return [];
  const compare = entityKeys
    ? sql`SELECT DISTINCT k.key FROM jsonb_to_recordset(${json(entityKeys.map((ks) => ({ keys: ks })))}) AS e(keys text[]), unnest(e.keys) AS k(key)
          WHERE k.key <> '' AND NOT EXISTS (SELECT 1 FROM exact x WHERE x.name_key = e.keys[1])`
    : sql`SELECT DISTINCT k.key FROM unnest(${texts(keys)}) AS k(key) WHERE k.key <> ''`;
  const rows = await queryRows(
    db,
    // the exact matches as two index scans (gb_entities_name_key_idx, gb_entities_alias_keys_idx):
    // one condition with OR read every entity of the dataset
    sql`WITH exact AS (
          SELECT ${entityColumns} FROM gb_entities WHERE dataset_id = ${datasetId} AND name_key = ANY(${texts(keys)})
          UNION
          SELECT ${entityColumns} FROM gb_entities WHERE dataset_id = ${datasetId} AND alias_keys && ${texts(keys)}
        ),
        compare AS (${compare})
        SELECT 'exact' AS via, NULL::text AS key, exact.*, 1::float8 AS sim FROM exact
        UNION ALL
        SELECT 'trigram', c.key, s.* FROM compare c
        CROSS JOIN LATERAL (
          SELECT ${entityColumns}, similarity(name_key, c.key)::float8 AS sim FROM gb_entities
          WHERE dataset_id = ${datasetId} AND name_key % c.key
          ORDER BY sim DESC LIMIT 5
        ) s`,
    namedRow,
  );
  return rows.map((r) => (r.via === "exact" ? fromRow(r, "exact", null, 1) : fromRow(r, "trigram", r.key, r.sim)));
}

async function nearEntities(db: Db, q: CandidateQuery): Promise<EntityCandidate[]> {
  const out: EntityCandidate[] = [];
  for (const { key, vector } of q.vectors) {
    const distance = cosineDistance(sql`embedding`, vector, { pgvector: q.pgvector, dimensions: q.dimensions });
    const rows = await queryRows(
      db,
      sql`SELECT ${entityColumns}, ${distance} AS d FROM gb_entities
          WHERE dataset_id = ${q.datasetId} AND ${vectorRows(sql`embedding`, q.dimensions)}
          ORDER BY d LIMIT 3`,
      nearRow,
    );
    for (const r of rows) if (r.d <= 0.35) out.push(fromRow(r, "vector", key, 1 - r.d));
  }
  return out;
}

/** the newest current facts kept per subject and predicate (a subject may like hundreds of things) */
export const FACTS_PER_PREDICATE = 20;


const { id, subject_id, predicate, object_id, object_name, object_value, sentence, valid_at, created_at } = factColumns;
const factCandidateRow = rowDecoder({ id, subject_id, predicate, object_id, object_name, object_value, sentence, valid_at, created_at });

/** The existing entities a chunk entity with these keys may be: those found by one of its keys (as resolve_edges matches them). */
export const candidatesFor = (keys: string[], cands: EntityCandidate[]): EntityCandidate[] =>
  cands.filter((c) => (c.via === "exact" ? keys.some((k) => k === c.nameKey || c.aliasKeys.includes(k)) : keys.includes(c.forKey ?? "")));

/**
 * The current facts each of the chunk's facts may repeat or contradict: of the existing entities
 * its subject may be, those with its predicate (the newest FACTS_PER_PREDICATE per subject and
 * predicate), or with an entity its object may be, or its literal value, as object (all of them).
 * By pairs of the same fact, not every subject with every predicate, object and value of the
 * chunk: on a long text a chunk names fifty people and places, and the cross product loaded hundreds of
 * facts no new fact could be compared with, from a statement that read every fact of the dataset.
 */
async function currentFacts(db: Db, datasetId: string, entities: EntityCandidate[], said: ChunkFactShape[]): Promise<FactCandidate[]> {
  // pairs, each once: (subject, predicate), (subject, object entity), (subject, value's key)
  const pairs = { predicate: new Map<string, [string, string]>(), object: new Map<string, [string, string]>(), value: new Map<string, [string, string]>() };
  const add = (m: Map<string, [string, string]>, a: string, b: string) => m.set(`${a}\u0000${b}`, [a, b]);
  for (const f of said) {
    const objects = candidatesFor(f.objectKeys, entities).map((e) => e.id);
    const value = f.value === null ? "" : nameKey(f.value);
    for (const { id } of candidatesFor(f.subjectKeys, entities)) {
      add(pairs.predicate, id, f.predicate);
      for (const o of objects) add(pairs.object, id, o);
      if (value) add(pairs.value, id, value);
    }
  }
  if (pairs.predicate.size === 0) return [];
  const names = new Map(entities.map((e) => [e.id, e.name]));
  const columns = sql.raw("f.id, f.subject_id, f.predicate, f.object_id, f.object_value, f.sentence, f.valid_at, f.created_at");
  const current = sql`f.dataset_id = ${datasetId} AND f.expired_at IS NULL`;
  const unnest = (m: Map<string, [string, string]>, second: "text" | "uuid") => {
    const list = [...m.values()];
    const b = list.map((p) => p[1]);
    return sql`unnest(${uuids(list.map((p) => p[0]))}, ${second === "uuid" ? uuids(b) : texts(b)})`;
  };
  const sameObject = pairs.object.size
    ? sql`UNION SELECT ${columns} FROM ${unnest(pairs.object, "uuid")} AS p(subject_id, object_id)
          JOIN gb_facts f ON ${current} AND f.subject_id = p.subject_id AND f.object_id = p.object_id`
    : sql``;
  // the value's key is computed only for the literal facts of the subjects that state a value
  const sameValue = pairs.value.size
    ? sql`UNION SELECT ${columns} FROM ${unnest(pairs.value, "text")} AS p(subject_id, value_key)
          JOIN gb_facts f ON ${current} AND f.subject_id = p.subject_id AND f.object_value IS NOT NULL AND ${sqlNameKey(sql`f.object_value`)} = p.value_key`
    : sql``;
  // Every pair is an index scan of gb_facts_subject_idx (dataset_id, subject_id, predicate) WHERE
  // expired_at IS NULL; the object's name is looked up per row, by primary key.
  const rows = await queryRows(
    db,
    sql`SELECT c.*, (SELECT o.name FROM gb_entities o WHERE o.dataset_id = ${datasetId} AND o.id = c.object_id) AS object_name
        FROM (
          SELECT l.* FROM ${unnest(pairs.predicate, "text")} AS p(subject_id, predicate)
          CROSS JOIN LATERAL (
            SELECT ${columns} FROM gb_facts f
            WHERE ${current} AND f.subject_id = p.subject_id AND f.predicate = p.predicate
            ORDER BY f.created_at DESC LIMIT ${FACTS_PER_PREDICATE}
          ) l
          ${sameObject}
          ${sameValue}
        ) c
        ORDER BY c.created_at DESC`,
    factCandidateRow,
  );
  return rows.map((r) => ({
    id: r.id,
    subjectId: r.subject_id,
    subjectName: names.get(r.subject_id) ?? "",
    predicate: r.predicate,
    objectId: r.object_id,
    objectName: r.object_name,
    objectValue: r.object_value,
    sentence: r.sentence,
    validAt: r.valid_at,
  }));
}

export async function loadCandidates(db: Db, q: CandidateQuery): Promise<Candidates> {
  const named = await namedEntities(db, q.datasetId, q.keys, q.entityKeys);
  const near = await nearEntities(db, q);
  // one entry per entity: the strongest way it was found
  const rank = { exact: 0, trigram: 1, vector: 2 } as const;
  const byId = new Map<string, EntityCandidate>();
  for (const c of [...named, ...near]) {
    const seen = byId.get(c.id);
    if (!seen || rank[c.via] < rank[seen.via] || (c.via === seen.via && c.score > seen.score)) byId.set(c.id, c);
  }
  const entities = [...byId.values()];
  const facts = await currentFacts(db, q.datasetId, entities, q.chunkFacts);
  return { entities, facts };
}
