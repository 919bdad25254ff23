import { sql } from "drizzle-orm";
import { logError } from "../errors";
import { turn } from "../slices";
import type { Database, Db } from "./client";
import { inBackground } from "./lanes";
import { broaderOnly, broaderWords } from "../text/broader";
import { column, queryRows, rowDecoder } from "./rows";

/*
 * The planner's statistics must keep up with a dataset that grows fast. PGlite has no autovacuum,
 * so nothing ever ANALYZEs its tables; a Postgres server's autovacuum does, but a minute apart at
 * best (autovacuum_naptime), and a remember of a megabyte makes 20,000 facts in that minute. With
 * the statistics of the day a dataset was empty the planner takes any index that starts with
 * dataset_id for one that matches the whole condition: measured, load_candidates' fact query
 * scanned every fact of the dataset per pair (0.3–0.7 s a chunk on the server; 1.7 s on PGlite
 * once). So the app analyzes, every ANALYZE_EVERY_MS, each table whose file grew by more than a
 * tenth (plus 8 pages) since its last ANALYZE, and each table never analyzed, one statement at a
 * time with a turn of the event loop between, on either database.
 */

export const ANALYZE_EVERY_MS = 5_000;

interface TableSize {
  name: string;
  /** pages at the last ANALYZE or VACUUM (pg_class.relpages) */
  relpages: number;
  /** tuples at the last ANALYZE or VACUUM; -1 when never analyzed */
  reltuples: number;
  /** pages the table's file has now */
  pages: number;
}

/** Whether a table's statistics are stale: never gathered, or its file grew by > 10 % + 8 pages. */
export function stale(t: Pick<TableSize, "relpages" | "reltuples" | "pages">): boolean {
  if (t.reltuples < 0) return true;
  return t.pages > t.relpages * 1.1 + 8;
}

/** ANALYZEs this schema's tables whose statistics are stale; returns their names. */
export async function analyzeStale(db: Db): Promise<string[]> {
  const tables = await queryRows<TableSize>(
    db,
    sql`SELECT c.relname AS name, c.relpages AS relpages, c.reltuples AS reltuples,
               (pg_relation_size(c.oid) / current_setting('block_size')::int)::int AS pages
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
  );
  const done: string[] = [];
  for (const t of tables) {
    if (!stale({ relpages: Number(t.relpages), reltuples: Number(t.reltuples), pages: Number(t.pages) })) continue;
    await turn();
    await db.execute(sql`ANALYZE ${sql.identifier(t.name)}`);
    done.push(t.name);
  }
  return done;
}

const todoRow = rowDecoder({ dataset_id: column.text, id: column.text, content: column.text });
const countRow = rowDecoder({ n: column.int });

/**
 * Computes the broader words (src/server/text/broader.ts) of up to `batch` chunks that have none
 * yet (stored before they existed), and counts their lexemes in gb_term_stats.bdf as store counts
 * a new chunk's. Returns how many it filled; a chunk another process filled first, or one deleted
 * meanwhile, is skipped.
 */
export async function fillBroader(db: Db, batch = 200): Promise<number> {
  const todo = await queryRows(db, sql`SELECT dataset_id, id, content FROM gb_chunks WHERE broader IS NULL LIMIT ${batch}`, todoRow);
  if (!todo.length) return 0;
  const rows: { dataset_id: string; id: string; broader: string }[] = [];
  for (const c of todo) rows.push({ dataset_id: c.dataset_id, id: c.id, broader: await broaderWords(c.content) });
  const [done] = await queryRows(
    db,
    sql`WITH filled AS (
          UPDATE gb_chunks c SET broader = x.broader
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(dataset_id uuid, id uuid, broader text)
          WHERE c.dataset_id = x.dataset_id AND c.id = x.id AND c.broader IS NULL
          RETURNING c.dataset_id, c.search_tsv, c.broader_tsv
        ),
        counted AS (
          INSERT INTO gb_term_stats (dataset_id, lexeme, df, bdf)
          SELECT f.dataset_id, l.lexeme, 0, count(*)::int FROM filled f CROSS JOIN LATERAL (${broaderOnly(sql`f`)}) AS l(lexeme)
          GROUP BY f.dataset_id, l.lexeme
          ON CONFLICT (dataset_id, lexeme) DO UPDATE SET bdf = gb_term_stats.bdf + excluded.bdf
        )
        SELECT count(*)::int AS n FROM filled`,
    countRow,
  );
  return done?.n ?? 0;
}

/** Fills broader words and analyzes stale tables now and every ANALYZE_EVERY_MS until stopped. */
export function startMaintenance(database: Database, everyMs = ANALYZE_EVERY_MS): { stop(): Promise<void> } {
  let stopped = false;
  let busy: Promise<void> | null = null;
  // one pass at a time: a pass still running when the timer fires is not doubled
  const tick = () => {
    if (stopped || busy) return;
    // behind the calls users wait on (lanes.ts): an ANALYZE takes tens of milliseconds
    busy = inBackground(async () => {
      // the broader words of chunks stored before they existed, a batch at a time behind the calls users wait on
      while (!stopped && (await fillBroader(database.db)) > 0) await turn();
      await analyzeStale(database.db);
    })
      .then(
        () => {},
        (e: unknown) => {
          if (!stopped) logError("analyzing the tables failed", e);
        },
      )
      .finally(() => {
        busy = null;
      });
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await busy;
    },
  };
}
