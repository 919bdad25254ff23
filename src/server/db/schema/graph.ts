import { type SQL, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { ts } from "./columns";

/*
 * The temporal knowledge graph: what `remember` stores and `query` reads. Facts are never
 * deleted by remember: a contradicted fact gets invalid_at (when it stopped holding in the world)
 * and expired_at (when we retired it), and the run that did it.
 */

/**
 * GIN indexes without a pending list: each insert updates the index at once (a little slower)
 * rather than queueing entries that the next search must scan (a query after a burst of
 * remembers would otherwise pay for it; measured: p99 of 0.5–0.8 s at 100k facts).
 */
const noPendingList = { fastupdate: false } as const;

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
const varbit = customType<{ data: string }>({ dataType: () => "varbit" });
/**
 * Where pgvector is absent, what the vector lists search by (src/server/db/vector-cells.ts): the
 * embedding's sign bits (one per dimension, gb_sign_bits in migration 0021), kept by Postgres,
 * and the cell the maintenance loop put it in (the nearest of its dataset's pivots by those bits;
 * NULL until then, and where pgvector is installed).
 */
const embeddingBits = () => varbit("embedding_bits").generatedAlwaysAs(sql`gb_sign_bits(embedding)`);
const embeddingCell = () => bigint("embedding_cell", { mode: "number" });
/**
 * The English tsvector of `expr`, with "/" read as a space: PostgreSQL's parser takes
 * "artists/bands", "and/or" or "team/support" for one file-path token, so that neither word
 * would match (#13). The question's terms are read the same way (termWeights in src/server/query/bm25.ts).
 */
const englishTsv = (name: string, expr: SQL) => tsvector(name).generatedAlwaysAs(sql`to_tsvector('english', translate(${expr}, '/', ' '))`);

export interface TextSource {
  kind?: string;
  id?: string;
  url?: string;
  speaker?: string;
}

export interface DerivedFrom {
  stage: "observe_series" | "web_search";
  /** the text whose run wrote the observation */
  textId: string;
  /** observe_series: the series members the observation is about */
  textIds?: string[];
  /** web_search: the result's page and the query that found it */
  url?: string;
  query?: string;
}

/** One input to remember, whole. */
export const texts = pgTable(
  "gb_texts",
  {
    datasetId: uuid("dataset_id").notNull(),
    id: uuid("id").notNull(),
    runId: uuid("run_id").notNull(),
    content: text("content").notNull(),
    /** the person the text belongs to, as the app names them; subjects.purge finds it by this */
    userId: text("user_id"),
    source: jsonb("source").$type<TextSource>().notNull(),
    seriesKey: text("series_key"),
    /** 1-based place in its series, set by store_series */
    seriesPosition: integer("series_position"),
    occurredAt: ts("occurred_at"),
    /** "text" (given to remember) or "observation" (written by web_search or observe_series) */
    kind: text("kind").$type<"text" | "observation">().notNull().default("text"),
    /**
     * An observation's provenance: the series members it was drawn from (text ids) or the web
     * page it came from (url), and the stage that wrote it. NULL for a text given to remember.
     */
    derivedFrom: jsonb("derived_from").$type<DerivedFrom>(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.id] }),
    // a run's text (changes, purge)
    index("gb_texts_run_idx").on(t.datasetId, t.runId),
    // a series in order (store_series, fetch_series)
    index("gb_texts_user_idx").on(t.datasetId, t.userId),
    index("gb_texts_series_idx").on(t.datasetId, t.seriesKey, t.seriesPosition),
    // the period list: what was said in the period a question names
    index("gb_texts_said_at_idx").on(t.datasetId, sql`coalesce(${t.occurredAt}, ${t.createdAt})`),
  ],
);

export const chunks = pgTable(
  "gb_chunks",
  {
    datasetId: uuid("dataset_id").notNull(),
    id: uuid("id").notNull(),
    textId: uuid("text_id").notNull(),
    runId: uuid("run_id").notNull(),
    /** 0-based place in its text */
    index: integer("idx").notNull(),
    content: text("content").notNull(),
    summary: text("summary").notNull(),
    tokenCount: integer("token_count").notNull(),
    embedding: real("embedding").array(),
    embeddingBits: embeddingBits(),
    embeddingCell: embeddingCell(),
    createdAt: ts("created_at").notNull(),
    searchTsv: englishTsv("search_tsv", sql`coalesce(summary, '') || ' ' || content`),
    /**
     * What the content's nouns are kinds of (WordNet hypernyms: src/server/text/broader.ts), that
     * chunks_text reads at a fraction of the chunk's own words; NULL until computed (chunks stored
     * before it existed are filled in by the maintenance loop).
     */
    broader: text("broader"),
    broaderTsv: englishTsv("broader_tsv", sql`coalesce(broader, '')`),
    /**
     * Every fact the chunk states has been retired (expired_at set: "Alice lives in Paris" after
     * she moved), so that its summary is past, not current context. Kept by triggers on
     * gb_mentions and gb_facts (migration 0023) whatever writes them, so that the lists read a
     * column rather than two subqueries per chunk. False for a chunk that states no fact.
     */
    retired: boolean("retired").notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.id] }),
    // a text's chunks in order; unique, so that no retry can ever store a chunk twice
    uniqueIndex("gb_chunks_text_idx").on(t.datasetId, t.textId, t.index),
    // query: full text over chunk summaries and content, within a dataset (btree_gin for the
    // dataset_id): one index answers both conditions, so the lists' generic plan (#16) never ANDs
    // the full-text bitmap with one of every row of the dataset
    index("gb_chunks_tsv_idx").using("gin", t.datasetId, t.searchTsv).with(noPendingList),
    index("gb_chunks_broader_tsv_idx").using("gin", t.datasetId, t.broaderTsv).with(noPendingList),
    // the maintenance loop: chunks whose broader words are still to compute
    index("gb_chunks_broader_todo_idx").on(t.datasetId).where(sql`broader IS NULL`),
    // the vector lists without pgvector: a cell's rows, and those not in a cell yet (NULL); with
    // the id and bits a question ranks them by, so that it reads the index alone (#16)
    index("gb_chunks_embedding_cell_idx").on(t.datasetId, t.embeddingCell, t.id, t.embeddingBits),
    // the maintenance loop: embeddings still to place in a cell (vector-cells.ts), without reading the rest
    index("gb_chunks_embedding_todo_idx").on(t.datasetId).where(sql`embedding_cell IS NULL AND embedding_bits IS NOT NULL`),
  ],
);

export const entities = pgTable(
  "gb_entities",
  {
    datasetId: uuid("dataset_id").notNull(),
    id: uuid("id").notNull(),
    name: text("name").notNull(),
    /** normalised name: lowercase, accents and punctuation folded */
    nameKey: text("name_key").notNull(),
    type: text("type").notNull(),
    aliases: text("aliases").array().notNull().default([]),
    /** normalised aliases, for exact alias matches */
    aliasKeys: text("alias_keys").array().notNull().default([]),
    summary: text("summary"),
    embedding: real("embedding").array(),
    embeddingBits: embeddingBits(),
    embeddingCell: embeddingCell(),
    /** a place's coordinates, set by resolve_geo from the geocoder */
    lat: doublePrecision("lat"),
    lon: doublePrecision("lon"),
    /** a place's ISO 3166-1 alpha-2 country, from the geocoder */
    country: text("country"),
    /** the geocoder's id of the place ("geonames:2988507", "osm:node/123") */
    geoId: text("geo_id"),
    createdAt: ts("created_at").notNull(),
    createdRunId: uuid("created_run_id"),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.id] }),
    // load_candidates: exact normalised name
    index("gb_entities_name_key_idx").on(t.datasetId, t.nameKey),
    // load_candidates: exact alias
    index("gb_entities_alias_keys_idx").using("gin", t.aliasKeys).with(noPendingList),
    // load_candidates and query: similar names (pg_trgm), nearest first within a dataset
    // (ORDER BY name_key <-> key: btree_gist for the dataset_id); graph.entities' ILIKE search
    index("gb_entities_name_knn_idx").using("gist", t.datasetId, t.nameKey.op("gist_trgm_ops")),
    // graph.entities: a dataset's entities by name
    index("gb_entities_name_idx").on(t.datasetId, t.name),
    // changes: what a run created
    index("gb_entities_run_idx").on(t.datasetId, t.createdRunId),
    // nearby_geo: a bounding box on lat/lon within a dataset, then the exact distance
    index("gb_entities_geo_idx").on(t.datasetId, t.lat, t.lon).where(sql`lat IS NOT NULL`),
    // load_candidates without pgvector: the entities of a vector cell (vector-cells.ts)
    index("gb_entities_embedding_cell_idx").on(t.datasetId, t.embeddingCell, t.id, t.embeddingBits),
    // the maintenance loop: embeddings still to place in a cell, without reading the rest
    index("gb_entities_embedding_todo_idx").on(t.datasetId).where(sql`embedding_cell IS NULL AND embedding_bits IS NOT NULL`),
  ],
);

export const facts = pgTable(
  "gb_facts",
  {
    datasetId: uuid("dataset_id").notNull(),
    id: uuid("id").notNull(),
    subjectId: uuid("subject_id").notNull(),
    /** snake_case verb phrase */
    predicate: text("predicate").notNull(),
    objectId: uuid("object_id"),
    /** the object when it is a literal value rather than an entity */
    objectValue: text("object_value"),
    /** a literal object that is a number: its value and unit ("3.1 M EUR" = 3100000, "EUR"), for series charts */
    numValue: doublePrecision("num_value"),
    unit: text("unit"),
    sentence: text("sentence").notNull(),
    /** when it started / stopped holding in the world, when the text says */
    validAt: ts("valid_at"),
    invalidAt: ts("invalid_at"),
    /** when we learnt it / retired it */
    createdAt: ts("created_at").notNull(),
    expiredAt: ts("expired_at"),
    textId: uuid("text_id").notNull(),
    chunkId: uuid("chunk_id").notNull(),
    createdRunId: uuid("created_run_id").notNull(),
    invalidatedRunId: uuid("invalidated_run_id"),
    /** the fact that replaced this one, when one did */
    invalidatedBy: uuid("invalidated_by"),
    embedding: real("embedding").array(),
    embeddingBits: embeddingBits(),
    embeddingCell: embeddingCell(),
    sentenceTsv: englishTsv("sentence_tsv", sql`sentence`),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.id] }),
    // resolve_edges: a subject's current facts, by predicate
    index("gb_facts_subject_idx").on(t.datasetId, t.subjectId, t.predicate).where(sql`expired_at IS NULL`),
    // graph.entity and neighbourhood: facts pointing at an entity
    index("gb_facts_object_idx").on(t.datasetId, t.objectId),
    // graph.entity: all of a subject's facts, past ones too
    index("gb_facts_subject_all_idx").on(t.datasetId, t.subjectId),
    // query and load_candidates: full text over fact sentences, within a dataset (as gb_chunks_tsv_idx)
    index("gb_facts_tsv_idx").using("gin", t.datasetId, t.sentenceTsv).with(noPendingList),
    // the period list: the facts that held from the period a question names
    index("gb_facts_valid_at_idx").on(t.datasetId, t.validAt).where(sql`valid_at IS NOT NULL`),
    // changes: what a run created and what it invalidated
    index("gb_facts_created_run_idx").on(t.datasetId, t.createdRunId),
    index("gb_facts_invalidated_run_idx").on(t.datasetId, t.invalidatedRunId),
    // the vector lists without pgvector: a cell's rows, and those not in a cell yet (NULL)
    index("gb_facts_embedding_cell_idx").on(t.datasetId, t.embeddingCell, t.id, t.embeddingBits),
    // the maintenance loop: embeddings still to place in a cell (vector-cells.ts), without reading the rest
    index("gb_facts_embedding_todo_idx").on(t.datasetId).where(sql`embedding_cell IS NULL AND embedding_bits IS NOT NULL`),
  ],
);

/**
 * Provenance beyond the first: every chunk that stated an entity or a fact, including the ones
 * that found it already known. Purge (#5) uses it to find what only one person supports.
 */
export const mentions = pgTable(
  "gb_mentions",
  {
    datasetId: uuid("dataset_id").notNull(),
    chunkId: uuid("chunk_id").notNull(),
    targetKind: text("target_kind").$type<"entity" | "fact">().notNull(),
    targetId: uuid("target_id").notNull(),
    textId: uuid("text_id").notNull(),
    runId: uuid("run_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.chunkId, t.targetKind, t.targetId] }),
    // who supports an entity or fact
    index("gb_mentions_target_idx").on(t.datasetId, t.targetKind, t.targetId),
  ],
);

/*
 * Full-text statistics per dataset, kept by store in the chunk's transaction: how many chunks
 * hold each lexeme (document frequency) and how many chunks and lexemes there are in all. query
 * weighs its terms by them (BM25's idf and length norm), which Postgres's ts_rank cannot.
 */
export const termStats = pgTable(
  "gb_term_stats",
  {
    datasetId: uuid("dataset_id").notNull(),
    lexeme: text("lexeme").notNull(),
    df: integer("df").notNull(),
    /** chunks whose broader words (broader_tsv) hold the lexeme and whose own words do not */
    bdf: integer("bdf").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.lexeme] })],
);

export const searchStats = pgTable("gb_search_stats", {
  datasetId: uuid("dataset_id").primaryKey(),
  chunks: integer("chunks").notNull(),
  /** lexemes summed over chunks (length(search_tsv)), for the average chunk length */
  lexemes: integer("lexemes").notNull(),
});

/**
 * Where pgvector is absent: the pivots of a dataset's chunk, fact or entity embeddings, rows of its own
 * chosen at random (their sign bits), each the centre of a cell (src/server/db/vector-cells.ts).
 * A generation is chosen when the dataset has enough rows, and again when it has grown fourfold
 * (`rows`: how many it had then); the rows of an older generation's cells are moved to the new
 * one's a batch at a time, and the older pivots are deleted once none is left in them.
 */
export const vectorPivots = pgTable(
  "gb_vector_pivots",
  {
    datasetId: uuid("dataset_id").notNull(),
    /** the cell's id (embedding_cell): later generations' are greater */
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity(),
    /** "chunk", "fact" or "entity" */
    kind: text("kind").notNull(),
    generation: integer("generation").notNull(),
    /** the dataset's rows of that kind when the generation was chosen */
    rows: integer("rows").notNull(),
    bits: varbit("bits").notNull(),
    /**
     * Raised each time a row enters or leaves the cell (placeInCells), in the same statement: a
     * copy of the cell's rows read with its version is the cell's rows while the version stays
     * (db/vector-memo.ts).
     */
    version: bigint("version", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.id] }), index("gb_vector_pivots_kind_idx").on(t.datasetId, t.kind, t.generation)],
);
