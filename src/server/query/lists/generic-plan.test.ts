import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { seedGraph } from "../../../../scripts/bench/seed";
import { openTestDatabase } from "../../../test/db";
import type { Database } from "../../db/client";
import { explainAnalyzed } from "../../db/explain";
import { queryRows } from "../../db/rows";
import { placeInCells } from "../../db/vector-cells";
import { onlyCommon, termWeights } from "../bm25";
import { namedPeriod } from "../fusion";
import { listsDbFor, listsSql, retrieveLists } from "../retrieve";
import { COMMON_SAMPLE, keyAtShare } from "./shared";

/*
 * The lists' one statement of a question goes to Database.genericDb
 * (query/retrieve.ts): on both databases it is planned once, without the values (plan_cache_mode
 * force_generic_plan), and that one plan serves every dataset and every question of its shape. So it must not depend on them: a plan
 * that, not knowing the terms or the dataset, reads every match or every row of the dataset
 * costs a large dataset what a small one never shows. Measured in rows read by every scan (index
 * scans too), over every loop, of the plan as genericDb runs it (db/explain.ts).
 */

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** The statement's plan as genericDb makes it, run (a prepared statement, on one of its connections). */
const genericPlan = async (database: Database, statement: SQL) => (await explainAnalyzed<PlanNode>(database.genericDb, statement, { prepared: true })).Plan;

/** The statement's plan as the rest of the app makes it (for its values), run. */
const customPlan = async (database: Database, statement: SQL) => (await explainAnalyzed<PlanNode>(database.db, statement)).Plan;

/** Rows every scan of chunks and facts returned or filtered out (an index's entries too), over every loop. */
function rowsRead(plan: PlanNode): number {
  const tables = ["gb_chunks", "gb_facts"];
  const own = (n: PlanNode) =>
    tables.includes(n["Relation Name"] ?? "") || /^gb_(chunks|facts)_/.test(n["Index Name"] ?? "")
      ? (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0) + (n["Rows Removed by Index Recheck"] ?? 0)) * (n["Actual Loops"] ?? 1)
      : 0;
  const walk = (n: PlanNode): number => own(n) + (n.Plans ?? []).reduce((a, c) => a + walk(c), 0);
  return walk(plan);
}

const DIMENSIONS = 64;

for (const driver of ["pglite", "postgres"] as const) {
  const unavailable = driver === "postgres" && !inject("pgUrl");
  if (unavailable) console.log("the lists' one plan for every question of its shape [postgres]: skipped, TEST_DATABASE_URL is unset");
  describe.skipIf(unavailable)(`the lists' one plan for every question of its shape [${driver}]`, () => {
    let database: Database;
    let large: string;
    let people: number;
    /** a dataset with embeddings (a semantic provider's), in their cells where pgvector is absent */
    let semantic: string;
    beforeAll(async () => {
      database = await openTestDatabase(driver);
      // a large dataset and a small one beside it (seedGraph analyzes both)
      ({ datasetId: large, people } = await seedGraph(database.db, 6_000));
      await seedGraph(database.db, 600);
      semantic = (await seedGraph(database.db, 2_000, { embeddings: DIMENSIONS })).datasetId;
      if (!database.vector) while ((await placeInCells(database.db, 20_000)) > 0);
    }, 120_000);
    afterAll(() => database.close());

    const listsOf = async (question: string, asOf: Date | null = null) => {
      const weights = await termWeights(database.db, large, question);
      return { weights, statement: listsSql({ db: database.db, datasetId: large, question, vector: null, asOf, pgvector: false, dimensions: 0, period: namedPeriod(question, asOf ?? new Date()), weights })! };
    };

    it("genericDb plans once for any values, in a transaction too; the rest of the app for the values", async () => {
      const mode = sql`SELECT current_setting('plan_cache_mode') AS mode`;
      const [row] = await queryRows<{ mode: string }>(database.genericDb, mode);
      expect(row!.mode).toBe("force_generic_plan");
      expect((await database.genericDb.transaction((tx) => queryRows<{ mode: string }>(tx, mode)))[0]!.mode).toBe("force_generic_plan");
      // the rest of the app plans for the values
      const [other] = await queryRows<{ mode: string }>(database.db, sql`SELECT current_setting('plan_cache_mode') AS mode`);
      expect(other!.mode).toBe("force_custom_plan");
    });

    it("a statement of genericDb that fails, alone or in a transaction, leaves the rest of the app planning for the values", async () => {
      const mode = sql`SELECT current_setting('plan_cache_mode') AS mode`;
      const failing = sql`SELECT 1 / ${0}::int AS x`;
      await expect(queryRows(database.genericDb, failing)).rejects.toThrow(/Failed query/);
      expect((await queryRows<{ mode: string }>(database.db, mode))[0]!.mode).toBe("force_custom_plan");
      await expect(database.genericDb.transaction((tx) => queryRows(tx, failing))).rejects.toThrow(/Failed query/);
      expect((await queryRows<{ mode: string }>(database.db, mode))[0]!.mode).toBe("force_custom_plan");
      expect((await queryRows<{ mode: string }>(database.genericDb, mode))[0]!.mode).toBe("force_generic_plan");
    });

    it("a statement of genericDb sent again and again (prepared: on PGlite its SETs go in its own exchange) plans once, answers its own rows, and one that fails changes nothing else", async () => {
      const mode = (k: number) => sql`SELECT current_setting('plan_cache_mode') AS mode, ${k}::int + 1 AS k`;
      const failing = (k: number) => sql`SELECT 1 / (${k}::int - ${k}::int) AS x`;
      const modeOf = async (db: Database["db"], k: number) => (await queryRows<{ mode: string; k: number }>(db, mode(k)))[0];
      const divisionByZero = { cause: { message: expect.stringMatching(/division by zero/) } };
      for (let k = 0; k < 4; k++) {
        expect(await modeOf(database.genericDb, k)).toEqual({ mode: "force_generic_plan", k: k + 1 });
        expect(await modeOf(database.db, k)).toEqual({ mode: "force_custom_plan", k: k + 1 });
        // the error is the statement's own, not a SET's after it
        await expect(queryRows(database.genericDb, failing(k))).rejects.toMatchObject(divisionByZero);
        expect(await modeOf(database.db, k)).toEqual({ mode: "force_custom_plan", k: k + 1 });
        await expect(database.genericDb.transaction((tx) => queryRows(tx, failing(k)))).rejects.toMatchObject(divisionByZero);
        expect(await modeOf(database.db, k)).toEqual({ mode: "force_custom_plan", k: k + 1 });
        expect(await database.genericDb.transaction((tx) => modeOf(tx, k))).toEqual({ mode: "force_generic_plan", k: k + 1 });
        expect(await modeOf(database.db, k)).toEqual({ mode: "force_custom_plan", k: k + 1 });
      }
    });

    it("a question naming a person reads that person's rows, not the dataset's (its full-text index starts with dataset_id)", async () => {
      expect(people).toBeGreaterThan(100);
      for (const question of [`What does Person${people - 7} like?`, `Where did Person12 live in May 2024?`]) {
        const { weights, statement } = await listsOf(question);
        expect(onlyCommon(weights)).toBe(false);
        // the dataset has 6,000 facts and 3,000 chunks: a plan that ANDed the full-text bitmap
        // with one of the dataset's rows read 6,000 index entries for facts_text alone
        expect(rowsRead(await genericPlan(database, statement))).toBeLessThan(1_500);
      }
    });

    it("a question of only common words goes there too, and its one plan reads a sample in key order", async () => {
      const question = "Who likes it?";
      const { weights, statement } = await listsOf(question);
      expect(onlyCommon(weights)).toBe(true);
      expect(weights.terms.map((t) => t.df)).toEqual([weights.chunks]);
      const q = { db: database.db, listsDb: database.genericDb, datasetId: large, question, vector: null, asOf: null, pgvector: false, dimensions: 0, period: null, weights };
      expect(listsDbFor(q)).toBe(database.genericDb);
      // each text list reads at most its sample (the rows of the first share of the key space
      // that holds about COMMON_SAMPLE chunks: whole by a bitmap, its index and its rows, or up
      // to the hundredth match) and looks up its places by key. Planned without the values, "the
      // first matches in key order" read every match by the full-text index and sorted them:
      // 6,320 rows of the dataset's 6,000 facts and 3,000 chunks
      const hi = keyAtShare(COMMON_SAMPLE / weights.chunks);
      const [inSample] = await queryRows<{ n: number }>(
        database.db,
        sql`SELECT ((SELECT count(*) FROM gb_chunks WHERE dataset_id = ${large} AND id <= ${hi}::uuid) + (SELECT count(*) FROM gb_facts WHERE dataset_id = ${large} AND id <= ${hi}::uuid))::int AS n`,
      );
      expect(inSample!.n).toBeGreaterThan(COMMON_SAMPLE);
      expect(inSample!.n).toBeLessThan(4 * COMMON_SAMPLE);
      expect(rowsRead(await genericPlan(database, statement))).toBeLessThan(2 * inSample!.n + 500);
      // and finds what to score in it: every term is in more than a fifth of the rows
      const { lists } = await retrieveLists(q);
      expect(lists.facts_text.length).toBeGreaterThan(0);
      expect(lists.chunks_text.length).toBeGreaterThan(0);
    });

    it("a question about a past moment (asOf) reads no more", async () => {
      const { statement } = await listsOf(`What did Person${people - 3} like?`, new Date("2025-01-01T00:00:00Z"));
      expect(rowsRead(await genericPlan(database, statement))).toBeLessThan(1_500);
    });

    it("with a semantic provider's embeddings (the vector lists too), the one plan reads about what a plan for the values reads", async () => {
      // the question's vector: a stored chunk's, so that its cells hold rows near it
      const [row] = await queryRows<{ embedding: string }>(database.db, sql`SELECT embedding::text AS embedding FROM gb_chunks WHERE dataset_id = ${semantic} AND embedding IS NOT NULL LIMIT 1`);
      // "{…}" (real[]) or "[…]" (pgvector)
      const vector = row!.embedding.replace(/^[[{]|[\]}]$/g, "").split(",").map(Number);
      expect(vector).toHaveLength(DIMENSIONS);
      for (const question of ["What does Person7 like?", "Who likes it?"]) {
        const weights = await termWeights(database.db, semantic, question);
        const q = { db: database.db, datasetId: semantic, question, vector, asOf: null, pgvector: database.vector, dimensions: DIMENSIONS, period: null, weights };
        const statement = listsSql(q)!;
        expect(new PgDialect().sqlToQuery(statement).sql).toMatch(/"part_facts_vector" AS MATERIALIZED[\s\S]*"part_chunks_vector" AS MATERIALIZED/);
        const generic = rowsRead(await genericPlan(database, statement));
        const custom = rowsRead(await customPlan(database, statement));
        expect(generic).toBeGreaterThan(0);
        expect(generic).toBeLessThanOrEqual(1.5 * custom + 100);
      }
    });
  });
}
