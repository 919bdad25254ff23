import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { type Child, reap, spawnChild as spawnProgram, waitForLine } from "../../../test/child";
import type { Db } from "../../db/client";
import { column, queryRows, rowDecoder } from "../../db/rows";
import { createRememberManager } from "./manager";
import { newDataset, privateServerDatabase, queueRuns, recorder, runRow, runRows, until } from "./queue.test-util";
import type { RememberManager } from "./types";

/*
 * The remember manager across processes (src/test/queue-child.ts), on the Postgres server: a
 * process killed with SIGKILL while running a run (with and without a liveness lock), and two
 * processes draining one queue.
 */

const pgUrl = inject("pgUrl");
if (!pgUrl) console.log("remember manager across processes [postgres]: skipped, TEST_DATABASE_URL is unset (they need a Postgres server)");

const spawnChild = (env: Record<string, string>) => spawnProgram("src/test/queue-child.ts", env);

describe.skipIf(!pgUrl)("remember manager across processes [postgres]", () => {
  let own: Awaited<ReturnType<typeof privateServerDatabase>> | undefined;
  const db = (): Db => {
    if (!own) throw new Error("database not open");
    return own.database.db;
  };
  beforeAll(async () => {
    own = await privateServerDatabase();
  });
  afterAll(async () => {
    await own?.drop();
  });

  const children: Child[] = [];
  const managers: RememberManager[] = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.stop()));
    await reap(children);
  });

  const childEnv = (extra: Record<string, string>) => ({
    QUEUE_CHILD_DB_URL: own!.url,
    QUEUE_CHILD_LEASE_MS: "1000",
    QUEUE_CHILD_POLL_MS: "20",
    ...extra,
  });

  async function killedWhileRunning(extra: Record<string, string>) {
    const ds = await newDataset(db());
    const [hung, behind] = (await queueRuns(db(), [ds], 2)).get(ds)!;
    const child = spawnChild(childEnv({ QUEUE_CHILD_MODE: "hang", QUEUE_CHILD_OWNER: "doomed", ...extra }));
    children.push(child);
    // the child has claimed the run and started its first stage
    await until(
      "the child to start the run",
      async () => {
        const r = await runRow(db(), hung!);
        return r.status === "started" && r.classify_complexity_status === "started";
      },
      15_000,
    );
    expect(child.proc.kill("SIGKILL")).toBe(true);
    await child.exited;
    const killedAt = performance.now();

    const rec = recorder(db(), { ms: 5 });
    const m = createRememberManager({ db: db(), execute: rec.execute, concurrency: 2, pollMs: 50, owner: "survivor", log: () => {} });
    managers.push(m);
    m.start();
    // taken back, run again first (resumed), then the run behind it
    expect(await m.waitFor(hung!, 5000)).toEqual({ status: "succeeded", error: null });
    const movedAfterMs = performance.now() - killedAt;
    expect(await m.waitFor(behind!, 5000)).toEqual({ status: "succeeded", error: null });
    const row = await runRow(db(), hung!);
    expect(row).toMatchObject({ lease_owner: "survivor", attempts: 2, failed_attempts: 1 });
    expect(row.attempt_errors).toMatchObject([{ attempt: 1, kind: "abandoned" }]);
    const next = await runRow(db(), behind!);
    expect(next.lease_owner).toBe("survivor");
    expect(next.started_at!.getTime()).toBeGreaterThanOrEqual(row.finished_at!.getTime());
    expect(rec.runs.map((r) => r.id)).toEqual([hung, behind]);
    return { row, movedAfterMs };
  }

  it("a process killed with SIGKILL: its run is taken back once its lease expires and run again, before the run behind it", async () => {
    const { row } = await killedWhileRunning({});
    expect(row.attempt_errors[0]!.error).toMatch(/^abandoned: the process running it stopped \(lease expired at .+\)$/);
  });

  it("a process holding a liveness lock is seen dead at once, not after its lease (30 s)", async () => {
    const { row, movedAfterMs } = await killedWhileRunning({ QUEUE_CHILD_LIVENESS: "1", QUEUE_CHILD_LEASE_MS: "30000" });
    expect(row.attempt_errors[0]!.error).toBe("abandoned: the process running it stopped (its database session ended)");
    expect(movedAfterMs).toBeLessThan(10_000);
  });

  it("two processes drain one queue: every run once, in order per dataset, no overlap, both do some", async () => {
    const table = `gb_test_exec_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await db().execute(sql.raw(`CREATE TABLE ${table} (run_id uuid NOT NULL, owner text NOT NULL, started timestamptz NOT NULL, ended timestamptz)`));
    const env = (owner: string) =>
      childEnv({ QUEUE_CHILD_MODE: "work", QUEUE_CHILD_OWNER: owner, QUEUE_CHILD_EXEC_TABLE: table, QUEUE_CHILD_CONCURRENCY: "2", QUEUE_CHILD_WORK_MS: "60" });
    const a = spawnChild(env("proc-a"));
    const b = spawnChild(env("proc-b"));
    children.push(a, b);
    await Promise.all([waitForLine(a, "ready"), waitForLine(b, "ready")]);

    const datasets = [await newDataset(db()), await newDataset(db()), await newDataset(db())];
    const ids = await queueRuns(db(), datasets, 6);
    const all = [...ids.values()].flat();
    // a manager that is not started: waitFor only watches the rows the children write
    const watcher = createRememberManager({ db: db(), execute: async () => {}, concurrency: 1, pollMs: 50 });
    for (const id of all) expect(await watcher.waitFor(id, 15_000)).toEqual({ status: "succeeded", error: null });

    // told to stop, each stops its manager, closes its database and exits by itself
    for (const c of [a, b]) c.proc.kill("SIGTERM");
    const exit = (c: Child) =>
      Promise.race([c.exited.then((e) => e.code), new Promise((r) => setTimeout(() => r("still running 5 s after SIGTERM"), 5000).unref())]);
    expect(await exit(a)).toBe(0);
    expect(await exit(b)).toBe(0);

    const execs = await queryRows(
      db(),
      sql.raw(`SELECT run_id, owner, started, ended FROM ${table}`),
      rowDecoder({ run_id: column.text, owner: column.text, started: column.timestamp, ended: column.nullable(column.timestamp) }),
    );
    // exactly once each
    expect(execs.map((e) => e.run_id).sort()).toEqual([...all].sort());
    const t = (v: Date | null) => (v === null ? NaN : v.getTime());
    const rows = await runRows(db(), all);
    for (const e of execs) expect(rows.get(e.run_id)?.lease_owner).toBe(e.owner);
    expect(new Set(execs.map((e) => e.owner))).toEqual(new Set(["proc-a", "proc-b"]));
    for (const [, runIds] of ids) {
      // started in submission order, each after the previous one ended (the server's clock)
      const mine = execs.filter((e) => runIds.includes(e.run_id)).sort((x, y) => t(x.started) - t(y.started));
      expect(mine.map((e) => e.run_id)).toEqual(runIds);
      for (let k = 1; k < mine.length; k++) expect(t(mine[k]!.started)).toBeGreaterThanOrEqual(t(mine[k - 1]!.ended));
    }
    await db().execute(sql.raw(`DROP TABLE ${table}`));
  });
});
