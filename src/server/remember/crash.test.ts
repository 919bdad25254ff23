import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, describe, expect, inject, it } from "vitest";
import { type Child, reap, spawnChild, waitForLine } from "../../test/child";
import { type Database, openDatabase } from "../db/client";
import { migrate } from "../db/migrate";
import { column, queryRows, rowDecoder } from "../db/rows";
import { createScratchDatabase } from "../db/scratch";

/*
 * The crash test: the whole app (src/test/app-child.ts: real pipeline, builtin models) in child
 * processes, killed with SIGKILL and stopped with SIGTERM while they remember, again and again;
 * every child submits every text again (a client retrying with its idempotency keys). Then one
 * child runs the queue dry, and the database is counted: every accepted text succeeded exactly
 * once, nothing is stored twice, and each dataset's runs ran in submission order.
 */

/**
 * The first child submits FIRST_TEXTS texts; each child started after it submits MORE_TEXTS new ones
 * besides all the earlier ones again, so that every kill lands on a process with work to do (the
 * pipeline runs the first batch dry within a few seconds, and a kill of an idle process proves nothing)
 */
const FIRST_TEXTS = 40;
const MORE_TEXTS = 16;
/** the signal of each cycle; between them, a child starts again on the same database */
const CYCLES: NodeJS.Signals[] = ["SIGKILL", "SIGTERM", "SIGKILL", "SIGKILL", "SIGTERM", "SIGKILL"];
const PROGRAM = "src/test/app-child.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pgUrl = inject("pgUrl");
if (!pgUrl) console.log("crash test [postgres]: skipped, TEST_DATABASE_URL is unset");

const runRow = rowDecoder({
  id: column.text,
  dataset: column.text,
  seq: column.int,
  status: column.text,
  error: column.nullable(column.text),
  attempts: column.int,
  attempt_errors: column.json<{ kind: string }[]>(),
  started_at: column.timestamp,
  finished_at: column.timestamp,
});
const chunkTimesRow = rowDecoder({ run_id: column.text, first: column.timestamp, last: column.timestamp });

async function verify(database: Database, texts: number) {
  const db = database.db;
  const runs = await queryRows(
    db,
    sql`SELECT r.id, d.name AS dataset, r.seq, r.status, r.error, r.attempts, r.attempt_errors, r.started_at, r.finished_at
        FROM gb_remember_runs r JOIN datasets d ON d.id = r.dataset_id
        WHERE d.name IN ('crash-a', 'crash-b') ORDER BY r.seq`,
    runRow,
  );
  // every accepted text: one run (client retries made no second one), succeeded
  expect(runs).toHaveLength(texts);
  expect(runs.filter((r) => r.status !== "succeeded").map((r) => [r.id, r.status, r.error])).toEqual([]);

  // exactly one text per run, with every chunk of its plan stored once
  const stored = await queryRows<{ run_id: string; texts: number; chunks: number; distinct_idx: number; planned: number | null }>(
    db,
    sql`SELECT r.id AS run_id,
               (SELECT count(*)::int FROM gb_texts t WHERE t.dataset_id = r.dataset_id AND t.run_id = r.id) AS texts,
               (SELECT count(*)::int FROM gb_chunks c WHERE c.dataset_id = r.dataset_id AND c.run_id = r.id) AS chunks,
               (SELECT count(DISTINCT c.idx)::int FROM gb_chunks c WHERE c.dataset_id = r.dataset_id AND c.run_id = r.id) AS distinct_idx,
               (SELECT jsonb_array_length(o.output -> 'chunks') FROM gb_remember_run_stage_outputs o
                 WHERE o.dataset_id = r.dataset_id AND o.run_id = r.id AND o.stage = 'chunk_text') AS planned
        FROM gb_remember_runs r WHERE r.id IN (${sql.join(runs.map((r) => sql`${r.id}::uuid`), sql`, `)})`,
  );
  for (const s of stored) {
    expect(s, `run ${s.run_id}`).toMatchObject({ texts: 1, chunks: s.planned, distinct_idx: s.planned });
    expect(s.planned, `run ${s.run_id}`).toBeGreaterThan(1);
  }

  // in submission order per dataset: each run's (last) attempt began after the one before ended,
  // and its chunks were stored after every chunk of the one before
  const chunkTimes = await queryRows(
    db,
    sql`SELECT run_id, min(created_at) AS first, max(created_at) AS last FROM gb_chunks GROUP BY run_id`,
    chunkTimesRow,
  );
  const times = new Map(chunkTimes.map((c) => [c.run_id, { first: c.first.getTime(), last: c.last.getTime() }]));
  for (const name of ["crash-a", "crash-b"]) {
    const mine = runs.filter((r) => r.dataset === name);
    for (let k = 1; k < mine.length; k++) {
      const [prev, run] = [mine[k - 1]!, mine[k]!];
      expect(run.started_at.getTime()).toBeGreaterThanOrEqual(prev.finished_at.getTime());
      expect(times.get(run.id)!.first).toBeGreaterThanOrEqual(times.get(prev.id)!.last);
    }
  }
  const kinds = runs.flatMap((r) => r.attempt_errors).map((a) => a.kind);
  return { runs, kinds, retried: runs.filter((r) => r.attempts > 1).length };
}

describe("crash test: kill -9 and SIGTERM while remembering", () => {
  const children: Child[] = [];
  afterEach(() => reap(children));
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  /** submitted so far, by every child started */
  let texts = 0;
  const start = (env: Record<string, string>) => {
    texts = texts === 0 ? FIRST_TEXTS : texts + MORE_TEXTS;
    const child = spawnChild(PROGRAM, { APP_CHILD_TEXTS: String(texts), ...env });
    children.push(child);
    return child;
  };
  /** the last child: submits nothing new, runs the queue dry and exits */
  const finish = (env: Record<string, string>) => {
    const child = spawnChild(PROGRAM, { APP_CHILD_TEXTS: String(texts), APP_CHILD_EXIT_WHEN_DONE: "1", ...env });
    children.push(child);
    return child;
  };
  /** the stops that landed on a process running a run (the rest found it idle) */
  let busyKills = 0;
  /**
   * Stops a child with `signal` a moment into its work, once it is running a run (or after 15 s,
   * when the queue has nothing left for it): a faster pipeline must not let the kills land on an
   * idle process. A SIGTERM must end in a clean exit.
   */
  async function stop(child: Child, signal: NodeJS.Signals) {
    await waitForLine(child, "ready", 60_000);
    await sleep(100 + Math.random() * 1500);
    const until = Date.now() + 15_000;
    const holds = () => / [1-9]\d*$/.test(child.lines.filter((l) => l.startsWith("progress ")).at(-1) ?? "");
    while (Date.now() < until && !holds()) await sleep(20);
    if (holds()) busyKills++;
    child.proc.kill(signal);
    const end = await child.exited;
    if (signal === "SIGTERM") expect(end, child.stderr.join("")).toEqual({ code: 0, signal: null });
    else expect(end.signal).toBe("SIGKILL");
  }

  it("PGlite: one process at a time, killed and restarted on its data dir", async () => {
    texts = 0;
    busyKills = 0;
    const dir = mkdtempSync(path.join(tmpdir(), "gb-crash-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const env = { APP_CHILD_DATA_DIR: dir, APP_CHILD_DATABASE_URL: "" };
    for (const signal of CYCLES) await stop(start(env), signal);
    const last = finish(env);
    expect(await last.exited, last.stderr.join("")).toEqual({ code: 0, signal: null });

    const database = await openDatabase({ driver: "pglite", dataDir: path.join(dir, "pglite") });
    try {
      const { kinds } = await verify(database, texts);
      // the kills did land on runs in flight
      expect(kinds).toContain("abandoned");
      expect(kinds).toContain("handed_back");
      // most stops landed on runs in flight (each child brings new work)
      expect(busyKills).toBeGreaterThanOrEqual(CYCLES.length / 2);
    } finally {
      await database.close();
    }
  }, 240_000);

  it.skipIf(!pgUrl)("Postgres: two processes at once, one of them stopped each time", async () => {
    texts = 0;
    busyKills = 0;
    const scratch = await createScratchDatabase(pgUrl!, "gb_test_crash");
    const database = await migrate(await openDatabase({ driver: "postgres", url: scratch.url, max: 2 }));
    cleanups.push(async () => {
      await database.close();
      await scratch.drop();
    });
    const env = { APP_CHILD_DATABASE_URL: scratch.url, APP_CHILD_DATA_DIR: "" };
    const alive = [start(env)];
    for (const signal of CYCLES) {
      alive.push(start(env));
      await waitForLine(alive[1]!, "ready", 60_000);
      await stop(alive.shift()!, signal);
    }
    // the last one hands its runs back; one more runs the queue dry
    await stop(alive.shift()!, "SIGTERM");
    const last = finish(env);
    expect(await last.exited, last.stderr.join("")).toEqual({ code: 0, signal: null });

    const { kinds } = await verify(database, texts);
    expect(kinds).toContain("abandoned");
    expect(busyKills).toBeGreaterThanOrEqual(CYCLES.length / 2);
  }, 240_000);
});
