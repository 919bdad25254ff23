import { sql } from "drizzle-orm";
import { logError } from "../errors";
import { turn } from "../slices";
import type { Database, Db } from "./client";
import { inBackground } from "./lanes";
import { queryRows } from "./rows";

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

/** Analyzes stale tables now and every ANALYZE_EVERY_MS until stopped. */
export function startMaintenance(database: Database, everyMs = ANALYZE_EVERY_MS): { stop(): Promise<void> } {
  let stopped = false;
  let busy: Promise<void> | null = null;
  // one pass at a time: a pass still running when the timer fires is not doubled
  const tick = () => {
    if (stopped || busy) return;
    // behind the calls users wait on (lanes.ts): an ANALYZE takes tens of milliseconds
    busy = inBackground(() => analyzeStale(database.db))
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
