import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { seedGraph } from "../../../../scripts/bench/seed";
import { openTestDatabase } from "../../../test/db";
import type { Database } from "../../db/client";
import { queryRows } from "../../db/rows";
import { termWeights } from "../bm25";
import { namedPeriod } from "../fusion";
import { retrieveList } from "../retrieve";

/*
 * The entities list finds the entities a question names by their name or by an alias (each
 * looked up by its own index), and gives their facts.
 */
for (const driver of ["pglite", "postgres"] as const) {
  const unavailable = driver === "postgres" && !inject("pgUrl");
  if (unavailable) console.log("the entities list [postgres]: skipped, TEST_DATABASE_URL is unset");
  describe.skipIf(unavailable)(`the entities list [${driver}]`, () => {
    let database: Database;
    let datasetId: string;
    let person3: string;
    beforeAll(async () => {
      database = await openTestDatabase(driver);
      datasetId = (await seedGraph(database.db, 1_000)).datasetId;
      const [row] = await queryRows<{ id: string }>(
        database.db,
        sql`UPDATE gb_entities SET aliases = '{"The Boss"}', alias_keys = '{"the boss"}' WHERE dataset_id = ${datasetId} AND name = 'Person3' RETURNING id`,
      );
      person3 = row!.id;
    }, 60_000);
    afterAll(() => database.close());

    const subjects = async (question: string) => {
      const weights = await termWeights(database.db, datasetId, question);
      const q = { db: database.db, datasetId, question, vector: null, asOf: null, pgvector: false, dimensions: 0, period: namedPeriod(question, new Date()), weights };
      const found = await retrieveList("entities", q);
      const ids = found.map((c) => c.id);
      if (!ids.length) return [];
      const rows = await queryRows<{ subject_id: string }>(database.db, sql`SELECT subject_id FROM gb_facts WHERE dataset_id = ${datasetId} AND id = ANY(${`{${ids.join(",")}}`}::uuid[])`);
      return [...new Set(rows.map((r) => r.subject_id))];
    };

    it("finds an entity by its name", async () => {
      expect(await subjects("What does Person3 like?")).toEqual([person3]);
    });

    it("finds an entity by an alias", async () => {
      expect(await subjects("What does the boss like?")).toEqual([person3]);
    });

    it("finds by name and alias together, and nothing for a question that names no entity", async () => {
      const both = await subjects("Does the boss know Person4?");
      expect(both).toContain(person3);
      expect(both).toHaveLength(2);
      expect(await subjects("What is the weather?")).toEqual([]);
    });

    it("finds a misspelt name by a similar one; a word the texts say is a near miss of no name", async () => {
      const rename = async (from: string, to: string) =>
        (await queryRows<{ id: string }>(database.db, sql`UPDATE gb_entities SET name = ${to}, name_key = ${to.toLowerCase()} WHERE dataset_id = ${datasetId} AND name = ${from} RETURNING id`))[0]!.id;
      const margaret = await rename("Person5", "Margaret Thornton");
      // "margret" is in no text: a near miss of a name, looked for
      expect(await subjects("What does Margret Thornton like?")).toEqual([margaret]);
      // "likes" is in every text (the seed's): no near miss, though "Likes Co" is as similar to it
      await rename("Person6", "Likes Co");
      expect(await subjects("Who likes cooking?")).toEqual([]);
    });
  });
}
