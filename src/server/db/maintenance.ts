import { sql } from "drizzle-orm";
import { logError } from "../errors";
import { turn } from "../slices";
import type { Database, Db } from "./client";
import { DatasetTables } from "./dataset-tables";
import { inBackground } from "./lanes";
import { broaderOnly, broaderWords } from "../text/broader";
import { column, queryRows, rowDecoder } from "./rows";
import { placeInCells } from "./vector-cells";

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

/** The error says its table no longer exists (SQLSTATE 42P01), here or in one of its causes. */
function tableGone(e: unknown): boolean {
  for (let err = e, depth = 0; typeof err === "object" && err !== null && depth < 5; err = (err as { cause?: unknown }).cause, depth++) {
    if ((err as { code?: unknown }).code === "42P01") return true;
  }
  return false;
}

/** ANALYZE of a table, unless it was dropped since the list was read (a scratch or test table): false then. */
export async function analyzeTable(db: Db, table: string): Promise<boolean> {
  try {
    await db.execute(sql`ANALYZE ${sql.identifier(table)}`);
    return true;
  } catch (e) {
    if (tableGone(e)) return false;
    throw e;
  }
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
    if (await analyzeTable(db, t.name)) done.push(t.name);
  }
  return done;
}

/*
 * A table's growth is not the only way its statistics go stale. A dataset new beside a large one
 * is, to the planner, a value of dataset_id that the statistics have never seen: it estimates one
 * row of it in every table and joins them in whatever order, each inner scan reading every row of
 * the dataset. Measured on the LoCoMo eval's data dir (four conversations remembered, a fifth
 * being remembered): fetch_series' fact query took 27–42 s a text once the new dataset had ~200
 * facts (7 million index probes; 3 ms after ANALYZE), because the tables had grown by under a tenth.
 * So each pass also weighs the datasets being remembered into (runs queued or started, those this
 * process ran a run of since the pass before, and those weighed in the pass before): in each table, when the planner's estimate of a
 * dataset's rows is under half of what it holds (at least BEHIND_MIN_ROWS), the table is analyzed;
 * and again for that dataset only once it has doubled since, so a dataset that stays too small for
 * the statistics to single out does not have its tables analyzed every pass.
 */

const countRow = rowDecoder({ n: column.int });
const datasetRow = rowDecoder({ dataset_id: column.text });

/**
 * fewer rows than this in a table can be read in any order: not worth an ANALYZE. Small, because
 * the cost of a plan that nests scans of a whole dataset is the product of the tables' rows (four
 * tables of 60 rows: 13 million probes)
 */
export const BEHIND_MIN_ROWS = 16;
/** a dataset the planner already puts at this many rows in a table gets plans that read by index */
const BEHIND_CHECK_BELOW = 10_000;
/** at most this many datasets weighed in a pass */
const BEHIND_DATASETS = 16;

/** What analyzeBehind keeps from one pass to the next. */
export interface BehindMemory {
  /** the datasets weighed in the pass before */
  active: Set<string>;
  /** datasets this process remembered into since the pass before (a run can begin and end between two passes) */
  wrote: Set<string>;
  /** `table dataset` → the rows it held when it last had its table analyzed */
  analyzedAt: Map<string, number>;
}

export const behindMemory = (): BehindMemory => ({ active: new Set(), wrote: new Set(), analyzedAt: new Map() });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The planner's estimate of a dataset's rows in a table (EXPLAIN's top plan rows). */
async function plannedRows(db: Db, table: string, datasetId: string): Promise<number> {
  // the id inline (checked to be a uuid above): a plan for a parameter may be a generic one
  const [row] = await queryRows<Record<string, unknown>>(
    db,
    sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${sql.identifier(table)} WHERE dataset_id = ${sql.raw(`'${datasetId}'::uuid`)}`,
  );
  const raw = row ? Object.values(row)[0] : undefined;
  const plan: unknown = typeof raw === "string" ? JSON.parse(raw) : raw;
  const rows = Array.isArray(plan) ? (plan[0] as { Plan?: { "Plan Rows"?: unknown } } | undefined)?.Plan?.["Plan Rows"] : undefined;
  return typeof rows === "number" ? rows : Number.POSITIVE_INFINITY;
}

/**
 * ANALYZEs each table in which a dataset being remembered into holds at least twice the rows the
 * planner puts it at (and BEHIND_MIN_ROWS), at most once per doubling of that dataset's rows
 * there; returns the tables' names.
 */
export async function analyzeBehind(db: Db, memory: BehindMemory): Promise<string[]> {
  const running = await queryRows(
    db,
    sql`SELECT DISTINCT dataset_id FROM gb_remember_runs WHERE status IN ('queued', 'started') LIMIT ${BEHIND_DATASETS}`,
    datasetRow,
  );
  const now = new Set([...running.map((r) => r.dataset_id), ...memory.wrote]);
  memory.wrote.clear();
  const weigh = [...new Set([...now, ...memory.active])].filter((id) => UUID.test(id)).slice(0, BEHIND_DATASETS);
  memory.active = now;
  // what is kept of a dataset no longer weighed goes (a dataset remembered into again starts afresh)
  for (const key of memory.analyzedAt.keys()) if (!weigh.includes(key.slice(key.indexOf(" ") + 1))) memory.analyzedAt.delete(key);
  const tables = new Set<string>();
  for (const datasetId of weigh)
    for (const table of DatasetTables) {
      if (tables.has(table)) continue;
      await turn();
      const planned = await plannedRows(db, table, datasetId);
      if (planned >= BEHIND_CHECK_BELOW) continue;
      // counted up to the point that says it is behind, not beyond
      const cap = Math.max(2 * Math.ceil(planned), BEHIND_MIN_ROWS, 2 * (memory.analyzedAt.get(`${table} ${datasetId}`) ?? 0));
      const [held] = await queryRows(
        db,
        sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${sql.identifier(table)} WHERE dataset_id = ${datasetId} LIMIT ${cap}) x`,
        countRow,
      );
      if ((held?.n ?? 0) < cap) continue;
      memory.analyzedAt.set(`${table} ${datasetId}`, held!.n);
      tables.add(table);
    }
  for (const table of tables) {
    await turn();
    await db.execute(sql`ANALYZE ${sql.identifier(table)}`);
  }
  return [...tables];
}

const todoRow = rowDecoder({ dataset_id: column.text, id: column.text, content: column.text });

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

/**
 * Fills broader words, places embeddings in their vector cells (with `cells`: pgvector absent,
 * embeddings semantic) and analyzes stale tables now and every ANALYZE_EVERY_MS until stopped.
 */
export function startMaintenance(
  database: Database,
  everyMs = ANALYZE_EVERY_MS,
  opts: { cells?: boolean } = {},
): {
  stop(): Promise<void>;
  /** a run of this process wrote into the dataset: the next pass weighs it (analyzeBehind) */
  wrote(datasetId: string): void;
} {
  let stopped = false;
  let busy: Promise<void> | null = null;
  const behind = behindMemory();
  // one pass at a time: a pass still running when the timer fires is not doubled
  const tick = () => {
    if (stopped || busy) return;
    // behind the calls users wait on (lanes.ts): an ANALYZE takes tens of milliseconds
    busy = inBackground(async () => {
      // the broader words of chunks stored before they existed, a batch at a time behind the calls users wait on
      while (!stopped && (await fillBroader(database.db)) > 0) await turn();
      // the vector cells where pgvector is absent: a batch per dataset and pass (vector-cells.ts)
      if (opts.cells && !stopped) await placeInCells(database.db);
      await analyzeStale(database.db);
      if (!stopped) await analyzeBehind(database.db, behind);
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
    wrote: (datasetId) => {
      behind.wrote.add(datasetId);
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await busy;
    },
  };
}
