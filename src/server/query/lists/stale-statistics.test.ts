import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { seedGraph } from "../../../../scripts/bench/seed";
import { openTestDatabase } from "../../../test/db";
import type { Database } from "../../db/client";
import { queryRows } from "../../db/rows";
import { onlyCommon, termWeights } from "../bm25";
import { namedPeriod } from "../fusion";
import { listsSql } from "../retrieve";
import { memberFactsSql } from "../../enrich/series/window";
import { chunksTextSql } from "./chunks-text";
import { entities } from "./entities";
import { factColumns, factTables, factValidity } from "./facts";
import { factsText } from "./facts-text";
import { MAX_SCORED_COMMON, maxScored } from "./shared";

/*
 * A dataset new beside a large one is, to the planner, a dataset_id its statistics have never
 * seen: it puts the dataset at one row in every table. The lists must not then nest scans of the
 * whole dataset inside one another (they look each step up by key; db/maintenance.ts analyzes
 * soon after, but a query may come first). Measured in buffers read, not time: the nested form
 * read millions on a LoCoMo conversation, the keyed form hundreds.
 */

/** a keyed plan reads tens of thousands of buffers here; a nested one read 22 million (chunks_text) */
const BOUND = 500_000;

interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

/** a statement's plan, run (EXPLAIN (ANALYZE, BUFFERS)) */
async function analyzed(database: Database, statement: ReturnType<typeof sql>): Promise<PlanNode> {
  const [row] = await queryRows<Record<string, unknown>>(database.db, sql`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement}`);
  const raw = Object.values(row!)[0];
  return ((typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }])[0].Plan;
}

/** shared buffers (hit or read) a statement touches */
async function buffers(database: Database, statement: ReturnType<typeof sql>): Promise<number> {
  const plan = await analyzed(database, statement);
  return (plan["Shared Hit Blocks"] ?? 0) + (plan["Shared Read Blocks"] ?? 0);
}

for (const driver of ["pglite", "postgres"] as const) {
  const unavailable = driver === "postgres" && !inject("pgUrl");
  if (unavailable) console.log("lists on statistics that never saw the dataset [postgres]: skipped, TEST_DATABASE_URL is unset");
  describe.skipIf(unavailable)(`lists on statistics that never saw the dataset [${driver}]`, () => {
    let database: Database;
    let fresh: string;
    beforeAll(async () => {
      database = await openTestDatabase(driver);
      await seedGraph(database.db, 6_000);
      fresh = (await seedGraph(database.db, 1_200, { analyze: false })).datasetId;
    }, 120_000);
    afterAll(() => database.close());

    it("the planner has not seen the fresh dataset (the premise)", async () => {
      const [row] = await queryRows<Record<string, unknown>>(database.db, sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM gb_facts WHERE dataset_id = ${sql.raw(`'${fresh}'::uuid`)}`);
      const raw = Object.values(row!)[0];
      const rows = ((typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan: { "Plan Rows": number } }])[0].Plan["Plan Rows"];
      expect(rows).toBeLessThan(20);
    });

    it("the lists' one statement reads what each list chose by key", async () => {
      const question = "What did Person3 do near Place2 in May 2024?";
      const weights = await termWeights(database.db, fresh, question);
      const q = { db: database.db, datasetId: fresh, question, vector: null, asOf: null, pgvector: false, dimensions: 0, period: namedPeriod(question, new Date()), weights };
      const statement = listsSql(q);
      // chunks_text, facts_text, entities, series_around and period, all in it
      expect(new Set([...(statement ? new PgDialect().sqlToQuery(statement).sql.matchAll(/"part_(\w+)" AS MATERIALIZED/g) : [])].map((m) => m[1]))).toEqual(
        new Set(["chunks_text", "facts_text", "entities", "series_around", "period"]),
      );
      expect(await buffers(database, statement!)).toBeLessThan(4 * BOUND);
    });

    it("chunks_text reads its chosen chunks and their series neighbours by key", async () => {
      const question = "What does Person3 like near Place2?";
      const weights = await termWeights(database.db, fresh, question);
      expect(weights.terms.length).toBeGreaterThan(0);
      const q = { db: database.db, datasetId: fresh, question, vector: null, asOf: null, pgvector: false, dimensions: 0, period: namedPeriod(question, new Date()), weights };
      expect(await buffers(database, chunksTextSql(q))).toBeLessThan(BOUND);
    });

    it("a question of only common words scores a sample of what it matches (maxScored), not every match", async () => {
      const question = "Who likes it?";
      const weights = await termWeights(database.db, fresh, question);
      // the premise: its one term is in every chunk, more of them than the sample
      expect(onlyCommon(weights)).toBe(true);
      expect(weights.terms.map((t) => t.df)).toEqual([weights.chunks]);
      expect(weights.chunks).toBeGreaterThan(MAX_SCORED_COMMON);
      expect(maxScored(weights)).toBe(MAX_SCORED_COMMON);
      const q = { db: database.db, datasetId: fresh, question, vector: null, asOf: null, pgvector: false, dimensions: 0, period: namedPeriod(question, new Date()), weights };
      const plan = await analyzed(database, listsSql(q)!);
      // the most rows any read of chunks or facts returned (each loop's rows)
      const most = (n: PlanNode): number =>
        Math.max(["gb_chunks", "gb_facts"].includes(n["Relation Name"] ?? "") ? n["Actual Rows"] : 0, ...(n.Plans ?? []).map(most));
      expect(most(plan)).toBe(MAX_SCORED_COMMON);
      // a question with a rare term is not sampled so
      expect(onlyCommon(await termWeights(database.db, fresh, "Who likes Person3?"))).toBe(false);
    });

    it("fetch_series reads its members' facts by key", async () => {
      const texts = await queryRows<{ id: string }>(
        database.db,
        sql`SELECT id FROM gb_texts WHERE dataset_id = ${fresh} AND series_key = 'chat-3' ORDER BY series_position DESC LIMIT 8`,
      );
      expect(texts).toHaveLength(8);
      expect(await buffers(database, memberFactsSql(fresh, texts.map((t) => t.id), 24))).toBeLessThan(BOUND);
    });

    it("a fact list reads each fact's text by key", async () => {
      const statement = sql`SELECT ${factColumns} FROM ${factTables} WHERE f.dataset_id = ${fresh} AND ${factValidity(null)} ORDER BY f.created_at DESC LIMIT 30`;
      expect(await buffers(database, statement)).toBeLessThan(BOUND);
    });
  });
  describe.skipIf(unavailable)(`a question of only common words, on a dataset stored after another [${driver}]`, () => {
    let database: Database;
    let later: string;
    beforeAll(async () => {
      database = await openTestDatabase(driver);
      // the first dataset's rows come first in each table; both have statistics (seedGraph analyzes)
      await seedGraph(database.db, 6_000);
      later = (await seedGraph(database.db, 1_200)).datasetId;
    }, 120_000);
    afterAll(() => database.close());

    /** rows of chunks and facts (or of `tables`) a statement reads (kept or filtered out), over every loop */
    const rowsRead = async (statement: ReturnType<typeof sql>, tables = ["gb_chunks", "gb_facts"]) => {
      const walk = (n: PlanNode): number =>
        (tables.includes(n["Relation Name"] ?? "") ? (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0)) * (n["Actual Loops"] ?? 1) : 0) +
        (n.Plans ?? []).reduce((a, c) => a + walk(c), 0);
      return walk(await analyzed(database, statement));
    };

    it("the text lists read the dataset's own rows, not the table up to them (sampled, matchOrder)", async () => {
      const question = "Who likes it?";
      const weights = await termWeights(database.db, later, question);
      expect(onlyCommon(weights)).toBe(true);
      const q = { db: database.db, datasetId: later, question, vector: null, asOf: null, pgvector: false, dimensions: 0, period: namedPeriod(question, new Date()), weights };
      // every term is in more than a fifth of the facts: the sample is found within five times its
      // size (a scan of the table read the 6,000 facts stored before it: 6,199 rows)
      const facts = "statement" in factsText ? factsText.statement(q, () => null) : null;
      expect(await rowsRead(facts!.part.sql)).toBeLessThan(5 * MAX_SCORED_COMMON);
      // chunks_text: at most the dataset's own 600 chunks and its places' lookups (720 here, the
      // planner reading this small dataset whole), not the 3,000 chunks stored before it
      expect(await rowsRead(chunksTextSql(q))).toBeLessThan(1_000);
    });

    it("the entities list, finding no name, looks each word's frequency up by key, not among the dataset's terms", async () => {
      // no name matches, and "w0a3f" and "likes w0a3f" are spans long enough for a near miss: each
      // of their words is looked up in the term statistics (as an anti-join, PGlite hashed all
      // 2,400 terms of the dataset for each span: 15 ms)
      const question = "Who likes w0a3f?";
      const q = { db: database.db, datasetId: later, question, vector: null, asOf: null, pgvector: false, dimensions: 0, period: null, weights: await termWeights(database.db, later, question) };
      const list = "statement" in entities ? entities.statement(q, () => null) : null;
      const read = await rowsRead(list!.part.sql, ["gb_term_stats"]);
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(20);
    });
  });
}
