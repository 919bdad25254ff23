import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { cosineDistance, vectorRows } from "../db/vector";
import { date, type FactRow, factSelect } from "../graph/shape";

/*
 * load_candidates: what the dataset already knows that the new entities and facts may be the
 * same as or conflict with. Entities by exact normalised name or alias, similar name (pg_trgm),
 * and embedding neighbours; then the current facts (expired_at IS NULL) about any of them, and
 * those whose sentence matches the chunk's names in full text. All within the dataset.
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

export interface CandidateQuery {
  datasetId: string;
  /** normalised names and aliases of the chunk's entities */
  keys: string[];
  /** name embeddings of the entities no exact match found, by key */
  vectors: { key: string; vector: number[] }[];
  /** words of the chunk's entity names, for full text over fact sentences */
  words: string[];
  pgvector: boolean;
  dimensions: number;
}

type EntityRow = { id: string; name: string; name_key: string; type: string; aliases: string[]; alias_keys: string[]; summary: string | null };
const entityColumns = sql.raw("id, name, name_key, type, aliases, alias_keys, summary");

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

export async function exactEntities(db: Db, datasetId: string, keys: string[]): Promise<EntityCandidate[]> {
  if (keys.length === 0) return [];
  const rows = await queryRows<EntityRow>(
    db,
    sql`SELECT ${entityColumns} FROM gb_entities
        WHERE dataset_id = ${datasetId}
          AND (name_key IN (SELECT jsonb_array_elements_text(${json(keys)}))
               OR alias_keys && ARRAY(SELECT jsonb_array_elements_text(${json(keys)})))`,
  );
  return rows.map((r) => fromRow(r, "exact", null, 1));
}

async function similarNames(db: Db, datasetId: string, keys: string[]): Promise<EntityCandidate[]> {
  if (keys.length === 0) return [];
  const rows = await queryRows<EntityRow & { key: string; sim: number }>(
    db,
    sql`SELECT k.key, e.* FROM jsonb_array_elements_text(${json(keys)}) AS k(key)
        CROSS JOIN LATERAL (
          SELECT ${entityColumns}, similarity(name_key, k.key) AS sim FROM gb_entities
          WHERE dataset_id = ${datasetId} AND name_key % k.key
          ORDER BY sim DESC LIMIT 5
        ) e`,
  );
  return rows.map((r) => fromRow(r, "trigram", r.key, Number(r.sim)));
}

async function nearEntities(db: Db, q: CandidateQuery): Promise<EntityCandidate[]> {
  const out: EntityCandidate[] = [];
  for (const { key, vector } of q.vectors) {
    const distance = cosineDistance(sql`embedding`, vector, { pgvector: q.pgvector, dimensions: q.dimensions });
    const rows = await queryRows<EntityRow & { d: number }>(
      db,
      sql`SELECT ${entityColumns}, ${distance} AS d FROM gb_entities
          WHERE dataset_id = ${q.datasetId} AND ${vectorRows(sql`embedding`, q.dimensions)}
          ORDER BY d LIMIT 3`,
    );
    for (const r of rows) if (Number(r.d) <= 0.35) out.push(fromRow(r, "vector", key, 1 - Number(r.d)));
  }
  return out;
}

const toFact = (r: FactRow): FactCandidate => ({
  id: r.id,
  subjectId: r.subject_id,
  subjectName: r.subject_name,
  predicate: r.predicate,
  objectId: r.object_id,
  objectName: r.object_name,
  objectValue: r.object_value,
  sentence: r.sentence,
  validAt: date(r.valid_at),
});

async function currentFacts(db: Db, datasetId: string, entityIds: string[], words: string[]): Promise<FactCandidate[]> {
  const query = words.map((w) => w.replace(/[^\p{L}\p{N}]/gu, "")).filter(Boolean).join(" | ");
  if (entityIds.length === 0 && !query) return [];
  const ids = sql`${`{${entityIds.join(",")}}`}::uuid[]`;
  const byText = query ? sql`OR f.sentence_tsv @@ to_tsquery('english', ${query})` : sql``;
  return (
    await queryRows<FactRow>(
      db,
      sql`${factSelect}
          WHERE f.dataset_id = ${datasetId} AND f.expired_at IS NULL
            AND (f.subject_id = ANY(${ids}) OR f.object_id = ANY(${ids}) ${byText})
          ORDER BY f.created_at DESC LIMIT 200`,
    )
  ).map(toFact);
}

export async function loadCandidates(db: Db, q: CandidateQuery): Promise<Candidates> {
  const [exact, similar, near] = [
    await exactEntities(db, q.datasetId, q.keys),
    await similarNames(db, q.datasetId, q.keys),
    await nearEntities(db, q),
  ];
  // one entry per entity: the strongest way it was found
  const rank = { exact: 0, trigram: 1, vector: 2 } as const;
  const byId = new Map<string, EntityCandidate>();
  for (const c of [...exact, ...similar, ...near]) {
    const seen = byId.get(c.id);
    if (!seen || rank[c.via] < rank[seen.via] || (c.via === seen.via && c.score > seen.score)) byId.set(c.id, c);
  }
  const entities = [...byId.values()];
  const facts = await currentFacts(db, q.datasetId, entities.map((e) => e.id), q.words);
  return { entities, facts };
}
