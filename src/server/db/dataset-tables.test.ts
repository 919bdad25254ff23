import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openTestDatabase } from "../../test/db";
import type { Database } from "./client";
import { DatasetTables } from "./dataset-tables";
import { queryRows } from "./rows";

/*
 * The tables that dataset deletion and subjects.purge go through are read from the Drizzle
 * schema; the migrated database is the truth they are held to. A table with a dataset_id that a
 * migration made outside the schema, or one the schema builds without a dataset_id column,
 * fails here.
 */

for (const driver of ["pglite", "postgres"] as const) {
  describe.skipIf(driver === "postgres" && !inject("pgUrl"))(`the dataset tables [${driver}]`, () => {
    let database: Database | undefined;
    beforeAll(async () => {
      database = await openTestDatabase(driver);
    });
    afterAll(async () => {
      await database?.close();
    });

    it("are every table of the migrated database with a dataset_id column", async () => {
      const rows = await queryRows<{ table_name: string }>(
        database!.db,
        sql`SELECT c.table_name FROM information_schema.columns c
            JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema = current_schema() AND c.column_name = 'dataset_id' AND t.table_type = 'BASE TABLE'
            ORDER BY 1`,
      );
      expect(rows.map((r) => r.table_name)).toEqual([...DatasetTables].sort());
    });
  });
}

describe("the dataset tables", () => {
  it("include the graph and the run logs (the schema is read, not an empty list)", () => {
    expect(DatasetTables).toEqual(expect.arrayContaining(["gb_texts", "gb_facts", "gb_remember_runs", "gb_query_run_stage_outputs"]));
  });
});
