import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openEmptyDatabase } from "../../test/db";
import type { Database } from "./client";
import { migrate } from "./migrate";
import { queryRows } from "./rows";
import { StartupError } from "./startup-error";

/*
 * A migration that fails: a StartupError naming the migration, the database and the reason, and
 * nothing of that start kept (drizzle runs the pending migrations in one transaction); once the
 * cause is fixed, the next start applies them. On both drivers, with migrations of the test's own.
 */

const pgUrl = inject("pgUrl");

function migrationsFolder(broken: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), "gb-migrations-"));
  mkdirSync(path.join(folder, "meta"));
  const entries = ["0000_good", "0001_broken"].map((tag, idx) => ({ idx, version: "7", when: 1_800_000_000_000 + idx, tag, breakpoints: true }));
  writeFileSync(path.join(folder, "meta/_journal.json"), JSON.stringify({ version: "7", dialect: "postgresql", entries }));
  writeFileSync(path.join(folder, "0000_good.sql"), "CREATE TABLE gb_test_good (id int);");
  writeFileSync(path.join(folder, "0001_broken.sql"), `CREATE TABLE gb_test_second (id int);\n--> statement-breakpoint\n${broken}`);
  return folder;
}

for (const driver of ["pglite", "postgres"] as const) {
  describe.skipIf(driver === "postgres" && !pgUrl)(`a migration that fails [${driver}]`, () => {
    let database: Database | undefined;
    beforeAll(async () => {
      database = await openEmptyDatabase(driver, "gb_t_migrate");
    });
    afterAll(async () => {
      await database?.close();
    });

    it("says which migration, where and why; keeps nothing; applies all once fixed", async () => {
      const db = database!;
      const folder = migrationsFolder("SELECT * FROM gb_no_such_table;");
      try {
        const err = await migrate(db, folder).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StartupError);
        const message = (err as Error).message;
        expect(message).toContain("could not migrate the database");
        expect(message).toContain(`where: ${driver === "pglite" ? "in memory" : db.location}`);
        expect(message).toMatch(/reason: migration 0001_broken failed: relation "gb_no_such_table" does not exist/);
        expect(message).toContain("no migration of this start was kept");
        const tables = async () =>
          (await queryRows<{ t: string }>(db.db, sql`SELECT tablename AS t FROM pg_tables WHERE tablename LIKE 'gb_test_%' ORDER BY 1`)).map((r) => r.t);
        expect(await tables()).toEqual([]);

        writeFileSync(path.join(folder, "0001_broken.sql"), "CREATE TABLE gb_test_second (id int);");
        await migrate(db, folder);
        expect(await tables()).toEqual(["gb_test_good", "gb_test_second"]);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });

    it("no migrations folder: says to start from the project directory", async () => {
      const err = await migrate(database!, path.join(tmpdir(), "gb-no-such-folder")).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StartupError);
      expect((err as Error).message).toContain("start gligabao from its project directory");
    });
  });
}
