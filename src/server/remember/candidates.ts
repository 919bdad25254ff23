import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { column, queryRows, rowDecoder } from "../db/rows";
import { cosineDistance, vectorRows } from "../db/vector";
import { cellSearch, PROBE, RESCORE } from "../db/vector-cells";
import { factColumns } from "../graph/shape";
import { nameKey, sqlNameKey } from "../text/name-key";
import { NO_PENDING_WRITES, type PendingWrites, pendingEntitiesFor } from "./pending";

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
   * The same keys by entity, its name's key first, with the entity's type. When given, similar
   * names are searched only for the entities no existing entity is named exactly like:
   * resolve_edges takes an exact name match as it is and never looks at the similar names found
   * for it (on a long text most names are met again, and the trigram search was most of the time
   * of load_candidates).
   */
  entityKeys?: { keys: string[]; type: string }[];
  /** name embeddings of the entities no exact match found, by key */
  vectors: { key: string; vector: number[] }[];
  /** The chunk's facts: the current facts each may repeat or contradict are loaded (currentFacts). */
  chunkFacts: ChunkFactShape[];
  pgvector: boolean;
  dimensions: number;
  /**
   * What the chunk before, stored alongside this load, writes (pending.ts): read as if it were
   * stored already, whether the store has committed when this load reads or not. Without it,
   * the dataset as it is.
   */
  pending?: PendingWrites;
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
 * The most words a key may have to be compared by similar name. A name is a few words; a longer
 * key is a phrase the extractor took for one, compared exactly only: on text full of them (random
 * capitalised runs) the similar-name search of each was most of a chunk's time, and grew with
 * every such phrase stored.
 */
export const SIMILAR_MAX_WORDS = 4;

/**
 * The most keys of one chunk compared by similar name. A similar-name search costs what the
 * entities sharing trigrams with the key cost to read, and on text made of few words (word salad,
 * a list, a log) that is most of the dataset for every key: with 40 new "names" a chunk, the
 * searches were three quarters of a remember's time. A chunk of prose names fewer new things than
 * this; past it, the names of persons, organisations and places go first, then the shorter ones,
 * and the rest are matched by exact name and alias only.
 */
export const SIMILAR_PER_CHUNK = 8;

/** types that say nothing of what a thing is (their similar names matter least) */
const VAGUE_TYPES = new Set(["", "thing", "entity", "unknown", "other", "concept"]);
const wordCount = (key: string) => key.split(" ").length;
/** the order in which an entity's keys are compared by similar name: specific types first, then fewer words */
const similarRank = (e: { keys: string[]; type: string }) => (VAGUE_TYPES.has(e.type.toLowerCase()) ? 100 : 0) + wordCount(e.keys[0] || e.keys[1] || "");

const similarKey = sql.raw(`k.key <> '' AND k.key !~ '^(\\S+ ){${SIMILAR_MAX_WORDS}}'`);

/**
 * The entities named like the chunk's, in one statement: exactly (name or alias key), and, for
 * the chunk entities no existing entity is named exactly like (at most SIMILAR_PER_CHUNK keys),
 * by a similar name (pg_trgm, the five most similar per key, nearest first on the GiST index).
 * resolve_edges takes an exact name match as it is and never looks at the similar names found for
 * it, and on a long text most names are met again. Without entityKeys every key is compared.
 */
async function namedEntities(db: Db, q: CandidateQuery): Promise<EntityCandidate[]> {
  const { datasetId, keys, entityKeys } = q;
  if (keys.length === 0) return [];
  const pending = q.pending ?? NO_PENDING_WRITES;
  const compare = entityKeys
    ? sql`SELECT k.key FROM jsonb_to_recordset(${json(entityKeys.map((e) => ({ keys: e.keys, rank: similarRank(e) })))}) AS e(keys text[], rank int), unnest(e.keys) AS k(key)
          WHERE ${similarKey} AND NOT EXISTS (SELECT 1 FROM exact x WHERE x.name_key = e.keys[1])
          GROUP BY k.key ORDER BY min(e.rank), k.key LIMIT ${SIMILAR_PER_CHUNK}`
    : sql`SELECT k.key FROM unnest(${texts(keys)}) AS k(key) WHERE ${similarKey}
          GROUP BY k.key ORDER BY array_length(string_to_array(k.key, ' '), 1), k.key LIMIT ${SIMILAR_PER_CHUNK}`;
  // the pending chunk's new and grown entities as they will be (those these keys may find); the
  // stored rows of all of them are not read
  const written = uuids(pending.entities.map((e) => e.id));
  const findable = pendingEntitiesFor(pending.entities, keys, keys.filter((k) => wordCount(k) <= SIMILAR_MAX_WORDS));
  const rows = await queryRows(
    db,
    // the exact matches as two index scans (gb_entities_name_key_idx, gb_entities_alias_keys_idx):
    // one condition with OR read every entity of the dataset
    sql`WITH pending AS (
          SELECT * FROM jsonb_to_recordset(${json(findable)})
            AS x(id uuid, name text, name_key text, type text, aliases text[], alias_keys text[], summary text)
        ),
        exact AS (
          SELECT ${entityColumns} FROM gb_entities WHERE dataset_id = ${datasetId} AND name_key = ANY(${texts(keys)}) AND id <> ALL(${written})
          UNION
          SELECT ${entityColumns} FROM gb_entities WHERE dataset_id = ${datasetId} AND alias_keys && ${texts(keys)} AND id <> ALL(${written})
          UNION
          SELECT ${entityColumns} FROM pending WHERE name_key = ANY(${texts(keys)}) OR alias_keys && ${texts(keys)}
        ),
        compare AS (${compare})
        SELECT 'exact' AS via, NULL::text AS key, exact.*, 1::float8 AS sim FROM exact
        UNION ALL
        SELECT 'trigram', c.key, s.* FROM compare c
        CROSS JOIN LATERAL (
          SELECT * FROM (
            (SELECT ${entityColumns}, similarity(name_key, c.key)::float8 AS sim FROM gb_entities
             WHERE dataset_id = ${datasetId} AND name_key % c.key AND id <> ALL(${written})
             ORDER BY name_key <-> c.key LIMIT 5)
            UNION ALL
            SELECT ${entityColumns}, similarity(name_key, c.key)::float8 FROM pending WHERE name_key % c.key
          ) u ORDER BY sim DESC LIMIT 5
        ) s`,
    namedRow,
  );
  return rows.map((r) => (r.via === "exact" ? fromRow(r, "exact", null, 1) : fromRow(r, "trigram", r.key, r.sim)));
}

/** the entities a chunk entity's vector may be, nearest first, and how near they must be */
const NEAR_PER_VECTOR = 3;
const NEAR_DISTANCE = 0.35;
/**
 * Without pgvector, the entities ranked by the cosine, of those nearest by sign bits: twice the
 * lists' RESCORE, as the second and third nearest are often near ties (vector-cells.test.ts:
 * 3,000 clustered entities, the three nearest found 0.72 of the time with 12, 0.83 with 24; the
 * nearest always). The 12 more cosines cost about 0.4 ms a vector.
 */
const NEAR_BY_BITS = 2 * RESCORE * NEAR_PER_VECTOR;
/**
 * and the cells read, as many as the lists' PROBE: missing the entity a new one duplicates costs a
 * duplicate in the graph, and with 8 the nearest was missed for 1 vector of 12 in some draws of
 * the pivots (vector-cells.test.ts); 800 more rows' bits cost about a millisecond.
 */
const NEAR_PROBE = PROBE;

/**
 * The entities nearest each chunk entity's embedding. With pgvector, by its HNSW index; without,
 * the exact cosine of every entity of the dataset cost 30 µs and more a row (150 ms a vector at
 * 5,000 entities, for each entity of each chunk): instead the rows of the vector's cells are
 * ranked by their sign bits and the nearest RESCORE × NEAR_PER_VECTOR of those by the cosine
 * (db/vector-cells.ts), as the query's vector lists are.
 */
async function nearEntities(db: Db, q: CandidateQuery): Promise<EntityCandidate[]> {
  const out: EntityCandidate[] = [];
  const alias = sql`gb_entities`;
  const embedding = sql`${alias}.embedding`;
  for (const { key, vector } of q.vectors) {
    const distance = cosineDistance(embedding, vector, { pgvector: q.pgvector, dimensions: q.dimensions });
    const where = sql`${alias}.dataset_id = ${q.datasetId} AND ${vectorRows(embedding, q.dimensions)}`;
    let statement: SQL;
    if (q.pgvector) {
      statement = sql`SELECT ${entityColumns}, ${distance} AS d FROM gb_entities WHERE ${where} ORDER BY d LIMIT ${NEAR_PER_VECTOR}`;
    } else {
      const cells = cellSearch(alias, "entity", q.datasetId, vector, NEAR_PROBE);
      statement = sql`SELECT * FROM (
            SELECT ${entityColumns}, ${distance} AS d FROM gb_entities
            WHERE ${where} AND ${cells.nearest(NEAR_BY_BITS)}
          ) n ORDER BY d LIMIT ${NEAR_PER_VECTOR}`;
    }
    const rows = await queryRows(db, statement, nearRow);
    for (const r of rows) if (r.d <= NEAR_DISTANCE) out.push(fromRow(r, "vector", key, 1 - r.d));
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
async function currentFacts(db: Db, q: CandidateQuery, entities: EntityCandidate[]): Promise<FactCandidate[]> {
  const { datasetId } = q;
  const pending = q.pending ?? NO_PENDING_WRITES;
  // pairs, each once: (subject, predicate), (subject, object entity), (subject, value's key)
  const pairs = { predicate: new Map<string, [string, string]>(), object: new Map<string, [string, string]>(), value: new Map<string, [string, string]>() };
  const add = (m: Map<string, [string, string]>, a: string, b: string) => m.set(`${a}\u0000${b}`, [a, b]);
  for (const f of q.chunkFacts) {
    const objects = candidatesFor(f.objectKeys, entities).map((e) => e.id);
    const value = f.value === null ? "" : nameKey(f.value);
    for (const { id } of candidatesFor(f.subjectKeys, entities)) {
      add(pairs.predicate, id, f.predicate);
      for (const o of objects) add(pairs.object, id, o);
      if (value) add(pairs.value, id, value);
    }
  }
  if (pairs.predicate.size === 0) return [];
  const names = new Map([...pending.entities.map((e) => [e.id, e.name] as const), ...entities.map((e) => [e.id, e.name] as const)]);
  // a pending fact can only be found through its subject, one of the candidates
  const subjects = new Set(entities.map((e) => e.id));
  const pendingFacts = pending.facts.filter((f) => subjects.has(f.subject_id));
  const columns = sql.raw("f.id, f.subject_id, f.predicate, f.object_id, f.object_value, f.sentence, f.valid_at, f.created_at");
  // current, and not written by the pending chunk (its new facts are read from `pending`, its retired ones not at all)
  const current = sql`f.dataset_id = ${datasetId} AND f.expired_at IS NULL AND f.id <> ALL(${uuids([...pending.facts.map((f) => f.id), ...pending.retired])})`;
  const unnest = (m: Map<string, [string, string]>, second: "text" | "uuid") => {
    const list = [...m.values()];
    const b = list.map((p) => p[1]);
    return sql`unnest(${uuids(list.map((p) => p[0]))}, ${second === "uuid" ? uuids(b) : texts(b)})`;
  };
  /** the facts matching `where` (on `f`), stored and pending */
  const both = (where: SQL, tail: SQL = sql``) =>
    sql`(SELECT ${columns} FROM gb_facts f WHERE ${current} AND ${where} ${tail})
        UNION ALL
        SELECT ${columns} FROM pending f WHERE ${where}`;
  const sameObject = pairs.object.size
    ? sql`UNION SELECT o.* FROM ${unnest(pairs.object, "uuid")} AS p(subject_id, object_id)
          CROSS JOIN LATERAL (${both(sql`f.subject_id = p.subject_id AND f.object_id = p.object_id`, sql`OFFSET 0`)}) o`
    : sql``;
  // the value's key is computed only for the literal facts of the subjects that state a value
  const sameValue = pairs.value.size
    ? sql`UNION SELECT v.* FROM ${unnest(pairs.value, "text")} AS p(subject_id, value_key)
          CROSS JOIN LATERAL (${both(sql`f.subject_id = p.subject_id AND f.object_value IS NOT NULL AND ${sqlNameKey(sql`f.object_value`)} = p.value_key`, sql`OFFSET 0`)}) v`
    : sql``;
  // Every pair is an index scan of gb_facts_subject_idx (dataset_id, subject_id, predicate) WHERE
  // expired_at IS NULL, each in a LATERAL of its own (OFFSET 0: not pulled up into a join, as a
  // LATERAL without a LIMIT is): joined as a whole, the planner read every current fact of the
  // dataset for the pairs of the same object, a cost that grew chunk after chunk of a long text.
  // The object's name is looked up per row, by primary key (a pending entity's, from `names`).
  const rows = await queryRows(
    db,
    sql`WITH pending AS (
          SELECT * FROM jsonb_to_recordset(${json(pendingFacts)})
            AS x(id uuid, subject_id uuid, predicate text, object_id uuid, object_value text, sentence text, valid_at timestamptz, created_at timestamptz)
        )
        SELECT c.*, (SELECT o.name FROM gb_entities o WHERE o.dataset_id = ${datasetId} AND o.id = c.object_id) AS object_name
        FROM (
          SELECT l.* FROM ${unnest(pairs.predicate, "text")} AS p(subject_id, predicate)
          CROSS JOIN LATERAL (
            SELECT * FROM (${both(sql`f.subject_id = p.subject_id AND f.predicate = p.predicate`, sql`ORDER BY f.created_at DESC LIMIT ${FACTS_PER_PREDICATE}`)}) u
            ORDER BY u.created_at DESC LIMIT ${FACTS_PER_PREDICATE}
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
    objectName: r.object_name ?? (r.object_id ? (names.get(r.object_id) ?? null) : null),
    objectValue: r.object_value,
    sentence: r.sentence,
    // a time the pending chunk sets on a fact that had none (a duplicate that says when)
    validAt: r.valid_at ?? pending.dated.get(r.id) ?? null,
  }));
}

export async function loadCandidates(db: Db, q: CandidateQuery): Promise<Candidates> {
  const named = await namedEntities(db, q);
  const near = await nearEntities(db, q);
  // one entry per entity: the strongest way it was found
  const rank = { exact: 0, trigram: 1, vector: 2 } as const;
  const byId = new Map<string, EntityCandidate>();
  for (const c of [...named, ...near]) {
    const seen = byId.get(c.id);
    if (!seen || rank[c.via] < rank[seen.via] || (c.via === seen.via && c.score > seen.score)) byId.set(c.id, c);
  }
  const entities = [...byId.values()];
  const facts = await currentFacts(db, q, entities);
  return { entities, facts };
}
