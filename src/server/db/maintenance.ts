import { sql } from "drizzle-orm";
import { logError } from "../errors";
import { turn } from "../slices";
import type { Database, Db } from "./client";
import { queryRows } from "./rows";

/*
 * PGlite has no autovacuum, so nothing ever ANALYZEs its tables: the planner goes on with the
 * statistics of the day the table was small (or none at all), and on a grown table picks plans
 * that are catastrophically wrong. Measured: with a 1k-fact dataset beside it, load_candidates'
 * fact query became a nested loop of 1.7 s a chunk instead of 14 ms, and a 1 MiB remember held
 * every request for a second at a time. So on PGlite the app analyzes, every ANALYZE_EVERY_MS,
 * each table whose file grew by more than a tenth (plus 8 pages) since its last ANALYZE, and each
 * table never analyzed, one statement at a time with a turn of the event loop between. A Postgres
 * server's autovacuum does this itself.
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

/** On PGlite: analyzes stale tables now and every ANALYZE_EVERY_MS until stopped. Elsewhere nothing. */
export function startMaintenance(database: Database, everyMs = ANALYZE_EVERY_MS): { stop(): Promise<void> } {
  if (database.driver !== "pglite") return { stop: async () => {} };
  let stopped = false;
  let busy: Promise<void> | null = null;
  // one pass at a time: a pass still running when the timer fires is not doubled
  const tick = () => {
    if (stopped || busy) return;
    busy = analyzeStale(database.db)
      .then(
        () => {},
        (e: unknown) => {
          if (!stopped) logError("analyzing PGlite's tables failed", e);
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
