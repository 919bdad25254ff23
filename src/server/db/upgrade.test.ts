import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openEmptyDatabase } from "../../test/db";
import type { Database } from "./client";
import { fillBroader } from "./maintenance";
import { migrate, migrationsFolder } from "./migrate";
import { queryRows } from "./rows";
import { signBits } from "./vector-cells";

/*
 * A database made by an earlier release, upgraded: its rows go through the migrations written since.
 * The project's own migrations, cut at the one before the change under test; on both drivers.
 */

const pgUrl = inject("pgUrl");

/** The project's migrations up to and including `lastTag`, in a folder of their own. */
function migrationsUpTo(lastTag: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), "gb-upgrade-"));
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = path.join(folder, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string; idx: number }[] };
  const last = journal.entries.find((e) => e.tag === lastTag);
  if (!last) throw new Error(`no migration ${lastTag}`);
  journal.entries = journal.entries.filter((e) => e.idx <= last.idx);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

for (const driver of ["pglite", "postgres"] as const) {
  describe.skipIf(driver === "postgres" && !pgUrl)(`an upgraded database [${driver}]`, () => {
    let database: Database | undefined;
    beforeAll(async () => {
      database = await openEmptyDatabase(driver, "gb_t_upgrade");
    });
    afterAll(async () => {
      await database?.close();
    });

    it('0016 reads "/" as a space in stored chunks and counts their terms again', async () => {
      const db = database!;
      const before = migrationsUpTo("0015_similar_names_knn");
      try {
        await migrate(db, before);
        const datasetId = randomUUID();
        // chunks and their statistics as store kept them before 0016
        for (const content of ["Omar plays jazz/blues on Fridays.", "The blues bar opens late."]) {
          await db.db.execute(sql`
            WITH c AS (
              INSERT INTO gb_chunks (dataset_id, id, text_id, run_id, idx, content, summary, token_count, created_at)
              VALUES (${datasetId}, ${randomUUID()}, ${randomUUID()}, ${randomUUID()}, 0, ${content}, ${content}, 6, now())
              RETURNING search_tsv),
            t AS (
              INSERT INTO gb_term_stats (dataset_id, lexeme, df) SELECT ${datasetId}, unnest(tsvector_to_array(search_tsv)), 1 FROM c
              ON CONFLICT (dataset_id, lexeme) DO UPDATE SET df = gb_term_stats.df + 1)
            INSERT INTO gb_search_stats (dataset_id, chunks, lexemes) SELECT ${datasetId}, 1, length(search_tsv) FROM c
            ON CONFLICT (dataset_id) DO UPDATE SET chunks = gb_search_stats.chunks + 1, lexemes = gb_search_stats.lexemes + excluded.lexemes`);
        }
        const df = async (lexeme: string) =>
          (await queryRows<{ df: number }>(db.db, sql`SELECT df FROM gb_term_stats WHERE dataset_id = ${datasetId} AND lexeme = ${lexeme}`))[0]?.df ?? 0;
        expect(await df("jazz/blues")).toBe(1);
        expect(await df("blue")).toBe(1);

        await migrate(db);
        expect(await df("jazz/blues")).toBe(0);
        expect(await df("blue")).toBe(2);
        expect(await df("jazz")).toBe(1);
        const [found] = await queryRows<{ n: number }>(
          db.db,
          sql`SELECT count(*)::int AS n FROM gb_chunks WHERE dataset_id = ${datasetId} AND search_tsv @@ 'jazz'::tsquery`,
        );
        expect(found?.n).toBe(1);
        const [stats] = await queryRows<{ chunks: number; lexemes: number; actual: number }>(
          db.db,
          sql`SELECT s.chunks, s.lexemes, (SELECT sum(length(search_tsv))::int FROM gb_chunks WHERE dataset_id = ${datasetId}) AS actual
              FROM gb_search_stats s WHERE s.dataset_id = ${datasetId}`,
        );
        expect(stats).toEqual({ chunks: 2, lexemes: stats!.actual, actual: stats!.actual });
        // "omar play jazz/blues friday" had 4 lexemes; read as words, 5
        expect(stats!.actual).toBe(5 + 4);

        // 0017: the broader words of chunks stored before them, filled in by the maintenance loop
        const bdf = async (lexeme: string) =>
          (await queryRows<{ bdf: number }>(db.db, sql`SELECT bdf FROM gb_term_stats WHERE dataset_id = ${datasetId} AND lexeme = ${lexeme}`))[0]?.bdf ?? 0;
        const todo = async () =>
          (await queryRows<{ n: number }>(db.db, sql`SELECT count(*)::int AS n FROM gb_chunks WHERE dataset_id = ${datasetId} AND broader IS NULL`))[0]?.n;
        expect(await todo()).toBe(2);
        expect(await bdf("weekday")).toBe(0);
        while ((await fillBroader(db.db, 1)) > 0);
        expect(await todo()).toBe(0);
        // "Fridays" are weekdays, "blues" is music in both texts; counted once per chunk, and once only
        expect(await bdf("weekday")).toBe(1);
        expect(await bdf("music")).toBe(2);
        expect(await fillBroader(db.db)).toBe(0);
        expect(await bdf("weekday")).toBe(1);
      } finally {
        rmSync(before, { recursive: true, force: true });
      }
    });

    it("0024 gives the entities stored before it their embeddings' sign bits, and no cell yet", async () => {
      const db = await openEmptyDatabase(driver, "gb_t_upgrade24");
      const before = migrationsUpTo("0023_chunk_retired");
      try {
        await migrate(db, before);
        const datasetId = randomUUID();
        const vector = [0.5, -0.25, 0, 1, -2];
        const [withEmbedding, without] = [randomUUID(), randomUUID()];
        await db.db.execute(sql`
          INSERT INTO gb_entities (dataset_id, id, name, name_key, type, embedding, created_at, updated_at)
          VALUES (${datasetId}, ${withEmbedding}, 'Ada', 'ada', 'person', ${`{${vector.join(",")}}`}::real[], now(), now()),
                 (${datasetId}, ${without}, 'Bo', 'bo', 'person', NULL, now(), now())`);
        await migrate(db);
        const rows = await queryRows<{ id: string; bits: string | null; cell: number | null }>(
          db.db,
          sql`SELECT id, embedding_bits::text AS bits, embedding_cell AS cell FROM gb_entities WHERE dataset_id = ${datasetId}`,
        );
        const byId = new Map(rows.map((r) => [r.id, r]));
        expect(byId.get(withEmbedding)).toEqual({ id: withEmbedding, bits: signBits(vector), cell: null });
        expect(byId.get(without)).toEqual({ id: without, bits: null, cell: null });
      } finally {
        rmSync(before, { recursive: true, force: true });
        await db.close();
      }
    });
  });
}
