import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, expect, inject, it } from "vitest";
import { describeEachDriver } from "../../../test/db";
import { type Database, type Db, openDatabase } from "../../db/client";
import { createQueuedRun } from "../../runs/run-log";
import { createRememberManager } from "./manager";
import { attachRunLog } from "../../runs/run-log";
import { requeueAbandoned } from "./queue";
import {
  drainQueue,
  newDataset,
  privateServerDatabase,
  queueRuns,
  recorder,
  runRow,
  runRows,
  sleep,
  until,
} from "./queue.test-util";
import type { RememberManager, RememberManagerOptions } from "./types";

const ABANDONED = /^abandoned: the process running it stopped \(lease expired at (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\)$/;

describeEachDriver("remember manager", (ctx, driver) => {
  // The Postgres variant runs on a database of its own (see queue.test-util.ts). The PGlite one
  // uses the file's own instance, without the app's remember worker, which would execute our
  // runs with the real pipeline.
  let own: Awaited<ReturnType<typeof privateServerDatabase>> | undefined;
  beforeAll(async () => {
    if (driver === "postgres") own = await privateServerDatabase();
    else await ctx().app.remember.stop();
  });
  afterAll(async () => {
    await own?.drop();
  });
  const database = (): Database => own?.database ?? ctx().database;
  const db = (): Db => database().db;

  const managers: RememberManager[] = [];
  function manager(opts: Partial<RememberManagerOptions> & Pick<RememberManagerOptions, "execute">, on: Db = db()) {
    const m = createRememberManager({ db: on, concurrency: 2, pollMs: 20, leaseMs: 3000, log: () => {}, ...opts });
    managers.push(m);
    return m;
  }
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.stop()));
    await drainQueue(db());
  });

  it("runs each dataset's runs once, in seq order, one at a time; datasets in parallel up to concurrency", async () => {
    const datasets = [await newDataset(db()), await newDataset(db()), await newDataset(db())];
    // in blocks: the oldest queued runs all belong to the first dataset, which runs one at a time
    const ids = await queueRuns(db(), datasets, 4, "blocks");
    const rec = recorder(db(), { ms: 40 });
    const m = manager({ execute: rec.execute, concurrency: 2, owner: "one" });
    m.start();
    m.start(); // idempotent
    const all = [...ids.values()].flat();
    for (const id of all) expect(await m.waitFor(id, 8000)).toEqual({ status: "succeeded", error: null });

    // every run executed exactly once
    expect(rec.runs.map((r) => r.id).sort()).toEqual([...all].sort());
    const rows = await runRows(db(), all);
    for (const [datasetId, runIds] of ids) {
      const mine = rec.runs.filter((r) => r.datasetId === datasetId).sort((a, b) => a.start - b.start);
      // started in submission order (ids and seq agree), each after the previous ended
      expect(mine.map((r) => r.id)).toEqual(runIds);
      expect(mine.map((r) => r.seq)).toEqual(runIds.map((id) => rows.get(id)?.seq));
      for (let k = 1; k < mine.length; k++) expect(mine[k]!.start).toBeGreaterThanOrEqual(mine[k - 1]!.end);
      // the row agrees: claimed by us, started after the previous run finished
      for (let k = 1; k < runIds.length; k++) {
        const prev = rows.get(runIds[k - 1]!)!;
        const row = rows.get(runIds[k]!)!;
        expect(row.started_at!.getTime()).toBeGreaterThanOrEqual(prev.finished_at!.getTime());
      }
    }
    for (const row of rows.values()) {
      expect(row).toMatchObject({ status: "succeeded", lease_owner: "one", classify_complexity_status: "succeeded" });
    }
    // at most 2 at once, and different datasets did overlap
    expect(rec.maxLive).toBe(2);
    let maxOverlap = 0;
    for (const r of rec.runs) maxOverlap = Math.max(maxOverlap, rec.runs.filter((o) => o.start <= r.start && r.start < o.end).length);
    expect(maxOverlap).toBe(2);
    const crossOverlap = rec.runs.some((a) => rec.runs.some((b) => a.datasetId !== b.datasetId && a.start < b.end && b.start < a.end));
    expect(crossOverlap).toBe(true);
  });

  it("concurrency 1 runs one run at a time across datasets", async () => {
    const datasets = [await newDataset(db()), await newDataset(db())];
    const all = [...(await queueRuns(db(), datasets, 2)).values()].flat();
    const rec = recorder(db(), { ms: 20 });
    const m = manager({ execute: rec.execute, concurrency: 1 });
    m.start();
    for (const id of all) await m.waitFor(id, 5000);
    expect(rec.runs).toHaveLength(4);
    expect(rec.maxLive).toBe(1);
  });

  it("a queued run survives a restart: a new manager on the same database runs it", async () => {
    if (driver === "pglite") {
      // A PGlite on a data dir, closed with runs queued and opened again.
      const dir = path.join(mkdtempSync(path.join(tmpdir(), "gb-queue-")), "pglite");
      try {
        const template = new Blob([readFileSync(inject("pgliteTemplate"))]);
        const first = await openDatabase({ driver: "pglite", dataDir: dir, loadDataDir: template });
        const ds = await newDataset(first.db);
        const ids = (await queueRuns(first.db, [ds], 3)).get(ds)!;
        await first.close();
        const second = await openDatabase({ driver: "pglite", dataDir: dir });
        try {
          const rec = recorder(second.db, { ms: 5 });
          const m = manager({ execute: rec.execute }, second.db);
          m.start();
          for (const id of ids) expect((await m.waitFor(id, 5000)).status).toBe("succeeded");
          await m.stop();
          expect(rec.runs.map((r) => r.id)).toEqual(ids);
        } finally {
          await second.close();
        }
      } finally {
        rmSync(path.dirname(dir), { recursive: true, force: true });
      }
      return;
    }
    // Postgres: queued through one connection pool, run by a manager on another.
    const ds = await newDataset(db());
    const ids = (await queueRuns(db(), [ds], 3)).get(ds)!;
    const other = await openDatabase({ driver: "postgres", url: own!.url, max: 2 });
    try {
      const rec = recorder(other.db, { ms: 5 });
      const m = manager({ execute: rec.execute }, other.db);
      m.start();
      for (const id of ids) expect((await m.waitFor(id, 5000)).status).toBe("succeeded");
      await m.stop();
      expect(rec.runs.map((r) => r.id)).toEqual(ids);
    } finally {
      await other.close();
    }
  });

  it("stop waits for the runs in progress and claims no more; another manager runs the rest", async () => {
    const ds = await newDataset(db());
    const ids = (await queueRuns(db(), [ds], 3)).get(ds)!;
    const first = recorder(db(), { ms: 250 });
    const a = manager({ execute: first.execute, owner: "a" });
    a.start();
    await until("the first run to start", async () => first.started.length === 1);
    await a.stop();
    // the run in progress ended before stop resolved, and finished its log
    expect(first.runs.map((r) => r.id)).toEqual([ids[0]]);
    expect((await runRow(db(), ids[0]!)).status).toBe("succeeded");
    await sleep(100);
    expect(first.started).toHaveLength(1);
    const after = await runRows(db(), ids.slice(1));
    expect([...after.values()].map((r) => r.status)).toEqual(["queued", "queued"]);

    const second = recorder(db(), { ms: 5 });
    const b = manager({ execute: second.execute, owner: "b" });
    b.start();
    for (const id of ids.slice(1)) expect((await b.waitFor(id, 5000)).status).toBe("succeeded");
    expect(second.runs.map((r) => r.id)).toEqual(ids.slice(1));
    // a stopped manager may start again
    await b.stop();
    a.start();
    const late = await createQueuedRun(db(), "remember", { datasetId: ds, userId: null, params: {} });
    a.poke();
    expect((await a.waitFor(late, 5000)).status).toBe("succeeded");
    expect(first.runs.map((r) => r.id)).toEqual([ids[0], late]);
  });

  it("waitFor: succeeded, failed with the error, a clear timeout, no such run", async () => {
    const ds = await newDataset(db());
    const [ok, bad] = (await queueRuns(db(), [ds], 2)).get(ds)!;
    const rec = recorder(db(), { ms: 5, fail: (r) => (r.id === bad ? "the model said no" : undefined) });
    const m = manager({ execute: rec.execute });
    // not started yet: the run stays queued and waitFor times out, naming the status
    await expect(m.waitFor(ok!, 150)).rejects.toThrow(`remember run ${ok}: not finished after 150 ms (status queued)`);
    m.start();
    expect(await m.waitFor(ok!, 5000)).toEqual({ status: "succeeded", error: null });
    expect(await m.waitFor(bad!, 5000)).toEqual({ status: "failed", error: "the model said no" });
    const missing = randomUUID();
    await expect(m.waitFor(missing, 1000)).rejects.toThrow(`remember run ${missing}: no such run`);
    await expect(m.waitFor("not-a-run", 1000)).rejects.toThrow("remember run not-a-run: no such run");
  });

  it("waitFor is woken by the run's end in this process, not only by its poll", async () => {
    const ds = await newDataset(db());
    const [id] = (await queueRuns(db(), [ds], 1)).get(ds)!;
    const rec = recorder(db(), { ms: 100 });
    // a long poll: the row is read at the call, then again only when the run ends here
    const m = manager({ execute: rec.execute, pollMs: 5000 });
    m.start();
    const t0 = performance.now();
    expect((await m.waitFor(id!, 3000)).status).toBe("succeeded");
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it("execute throwing fails the run with its message (and its started stage); the dataset's next run runs", async () => {
    const ds = await newDataset(db());
    const [first, second, third] = (await queueRuns(db(), [ds], 3)).get(ds)!;
    const rec = recorder(db(), { ms: 5, fail: (r) => (r.id === first ? "boom" : undefined) });
    // the second returns without finishing its run log: failed too, not left started
    const execute = async (run: Parameters<typeof rec.execute>[0]) => (run.id === second ? undefined : rec.execute(run));
    const m = manager({ execute, owner: "thrower" });
    m.start();
    expect(await m.waitFor(first!, 5000)).toEqual({ status: "failed", error: "boom" });
    expect(await m.waitFor(second!, 5000)).toEqual({ status: "failed", error: "the run ended without finishing its run log" });
    expect(await m.waitFor(third!, 5000)).toEqual({ status: "succeeded", error: null });
    const row = await runRow(db(), first!);
    expect(row).toMatchObject({ classify_complexity_status: "failed", classify_complexity_error: "boom", chunk_text_status: "not_started" });
    expect(row.finished_at).toBeInstanceOf(Date);
    expect(rec.runs.map((r) => r.id)).toEqual([first, third]);
  });

  it("takes back a started run with an expired lease: queued again with the attempt's reason, before the runs behind it", async () => {
    const [d, e] = [await newDataset(db()), await newDataset(db())];
    const [dead, behind] = (await queueRuns(db(), [d], 2)).get(d)!;
    const [live, waiting] = (await queueRuns(db(), [e], 2)).get(e)!;
    const set = (id: string, s: ReturnType<typeof sql>) => db().execute(sql`UPDATE gb_remember_runs SET ${s} WHERE id = ${id}`);
    // a run whose process died: one stage done, one in progress, the lease expired a second ago
    await set(
      dead!,
      sql`status = 'started', attempts = 1, started_at = now() - interval '5 s', lease_owner = 'ghost', lease_expires_at = now() - interval '1 s',
          classify_complexity_status = 'succeeded', chunk_text_status = 'started', chunk_text_started_at = now()`,
    );
    // a queued run with an old lease time (never taken back: only started runs are)
    await set(behind!, sql`lease_expires_at = now() - interval '1 h'`);
    // a run of another process that is alive (lease in the future)
    await set(live!, sql`status = 'started', attempts = 1, started_at = now(), lease_owner = 'alive', lease_expires_at = now() + interval '1 min'`);

    const retry = { maxAttempts: 3, baseMs: 0, maxMs: 0 };
    const taken = await requeueAbandoned(db(), retry);
    expect(taken.map((r) => [r.id, r.status])).toEqual([[dead, "queued"]]);
    const row = await runRow(db(), dead!);
    expect(row).toMatchObject({ status: "queued", error: null, finished_at: null, attempts: 1, failed_attempts: 1 });
    expect(row.attempt_errors).toHaveLength(1);
    expect(row.attempt_errors[0]).toMatchObject({ attempt: 1, kind: "abandoned" });
    expect(ABANDONED.exec(row.attempt_errors[0]!.error)?.[1]).toBe(row.lease_expires_at?.toISOString());
    // the attempt's stage in progress failed with the reason; the one done stays done
    expect(row).toMatchObject({ classify_complexity_status: "succeeded", chunk_text_status: "failed", chunk_text_error: row.attempt_errors[0]!.error });
    expect((await runRow(db(), behind!)).status).toBe("queued");
    expect((await runRow(db(), live!)).status).toBe("started");
    expect(await requeueAbandoned(db(), retry)).toEqual([]);

    // the manager runs the taken-back run first, then the one behind it; the other dataset
    // waits for its live run
    const rec = recorder(db(), { ms: 5 });
    const m = manager({ execute: rec.execute, retry });
    m.start();
    expect(await m.waitFor(dead!, 5000)).toEqual({ status: "succeeded", error: null });
    expect((await m.waitFor(behind!, 5000)).status).toBe("succeeded");
    expect((await runRow(db(), dead!)).attempts).toBe(2);
    await sleep(150);
    expect((await runRow(db(), waiting!)).status).toBe("queued");
    expect((await runRow(db(), live!)).status).toBe("started");
    // once that lease expires, the manager takes it back and runs it, then the one behind it
    await set(live!, sql`lease_expires_at = now() - interval '1 ms'`);
    expect((await m.waitFor(waiting!, 5000)).status).toBe("succeeded");
    expect((await runRow(db(), live!)).status).toBe("succeeded");
    expect(rec.runs.map((r) => r.id)).toEqual([dead, behind, live, waiting]);
  });

  it("a run abandoned once too often fails with every attempt's reason", async () => {
    const ds = await newDataset(db());
    const [id] = (await queueRuns(db(), [ds], 1)).get(ds)!;
    const retry = { maxAttempts: 2, baseMs: 0, maxMs: 0 };
    const die = (attempt: number) =>
      db().execute(sql`UPDATE gb_remember_runs SET status = 'started', attempts = ${attempt}, lease_owner = 'ghost', lease_expires_at = now() - interval '1 s' WHERE id = ${id!}`);
    await die(1);
    expect((await requeueAbandoned(db(), retry))[0]).toMatchObject({ id, status: "queued" });
    await die(2);
    const [gone] = await requeueAbandoned(db(), retry);
    expect(gone).toMatchObject({ id, status: "failed" });
    const row = await runRow(db(), id!);
    expect(row).toMatchObject({ status: "failed", failed_attempts: 2 });
    expect(row.finished_at).toBeInstanceOf(Date);
    expect(row.error).toMatch(/^failed after 2 attempts: \[1 abandoned\] abandoned: the process running it stopped .*; \[2 abandoned\] abandoned: /);
  });

  it("a transient failure queues the run again after a backoff; the dataset's next run waits for it", async () => {
    const ds = await newDataset(db());
    const [flaky, behind] = (await queueRuns(db(), [ds], 2)).get(ds)!;
    let failures = 0;
    const outage = Object.assign(new Error("model server unreachable (fake)"), { transient: true });
    const rec = recorder(db(), { ms: 5, fail: (r) => (r.id === flaky && failures++ < 2 ? outage : undefined) });
    const m = manager({ execute: rec.execute, retry: { maxAttempts: 5, baseMs: 300, maxMs: 10_000 } });
    m.start();
    await until("the first attempt to fail", async () => (await runRow(db(), flaky!)).failed_attempts === 1);
    const waiting = await runRow(db(), flaky!);
    expect(waiting).toMatchObject({ status: "queued", error: null });
    expect(waiting.attempt_errors[0]).toMatchObject({ attempt: 1, kind: "transient", error: "model server unreachable (fake)" });
    // its backoff: ±25 % around 300 ms, the next around 600 ms
    const wait = waiting.retry_at!.getTime() - Date.now();
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(375);
    expect((await runRow(db(), behind!)).status).toBe("queued");
    expect(await m.waitFor(flaky!, 10_000)).toEqual({ status: "succeeded", error: null });
    expect((await m.waitFor(behind!, 5000)).status).toBe("succeeded");
    const row = await runRow(db(), flaky!);
    expect(row).toMatchObject({ attempts: 3, failed_attempts: 2 });
    expect(row.attempt_errors.map((a) => [a.attempt, a.kind])).toEqual([
      [1, "transient"],
      [2, "transient"],
    ]);
    // in order: the flaky run's three attempts, then the run behind it
    expect(rec.started.map((r) => [r.id, r.attempt])).toEqual([
      [flaky, 1],
      [flaky, 2],
      [flaky, 3],
      [behind, 1],
    ]);
  });

  it("a transient failure past the maximum fails the run with every attempt's reason; a permanent one at once", async () => {
    const ds = await newDataset(db());
    const [flaky, broken] = (await queueRuns(db(), [ds], 2)).get(ds)!;
    const outage = Object.assign(new Error("HTTP 503 (fake)"), { transient: true });
    const rec = recorder(db(), { ms: 5, fail: (r) => (r.id === flaky ? outage : r.id === broken ? "HTTP 400 (fake)" : undefined) });
    const m = manager({ execute: rec.execute, retry: { maxAttempts: 3, baseMs: 10, maxMs: 10 } });
    m.start();
    const end = await m.waitFor(flaky!, 10_000);
    expect(end.status).toBe("failed");
    expect(end.error).toBe("failed after 3 attempts: [1 transient] HTTP 503 (fake); [2 transient] HTTP 503 (fake); [3 transient] HTTP 503 (fake)");
    expect(await m.waitFor(broken!, 5000)).toEqual({ status: "failed", error: "HTTP 400 (fake)" });
    expect((await runRow(db(), broken!)).attempts).toBe(1);
  });

  it("stop with a grace period hands back the runs still in flight, uncounted; another manager runs them", async () => {
    const ds = await newDataset(db());
    const [slow, quick] = (await queueRuns(db(), [ds], 2)).get(ds)!;
    const rec = recorder(db(), { ms: 5 });
    const signals: AbortSignal[] = [];
    // a run that would take a minute, unless its signal says stop
    const execute = async (run: Parameters<typeof rec.execute>[0], signal: AbortSignal) => {
      signals.push(signal);
      const log = attachRunLog(db(), "remember", run);
      await log.start("classify_complexity");
      await new Promise((resolve, reject) => {
        const t = setTimeout(resolve, 60_000);
        signal.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason as Error)));
      });
    };
    const a = manager({ execute, owner: "a" });
    a.start();
    await until("the run to start", async () => (await runRow(db(), slow!)).classify_complexity_status === "started");
    const t0 = performance.now();
    expect(await a.stop({ graceMs: 200 })).toEqual({ finished: 0, handedBack: 1 });
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(signals[0]?.aborted).toBe(true);
    const row = await runRow(db(), slow!);
    expect(row).toMatchObject({ status: "queued", attempts: 1, failed_attempts: 0, retry_at: null, classify_complexity_status: "failed" });
    expect(row.attempt_errors).toMatchObject([{ attempt: 1, kind: "handed_back" }]);
    expect(row.attempt_errors[0]!.error).toMatch(/shutting down/);

    const b = manager({ execute: rec.execute, owner: "b" });
    b.start();
    expect(await b.waitFor(slow!, 5000)).toEqual({ status: "succeeded", error: null });
    expect((await b.waitFor(quick!, 5000)).status).toBe("succeeded");
    expect((await runRow(db(), slow!)).attempts).toBe(2);
  });

  it("a run that ends within the grace period finishes; stop reports it", async () => {
    const ds = await newDataset(db());
    const [id] = (await queueRuns(db(), [ds], 1)).get(ds)!;
    const rec = recorder(db(), { ms: 150 });
    const m = manager({ execute: rec.execute });
    m.start();
    await until("the run to start", async () => rec.started.length === 1);
    expect(await m.stop({ graceMs: 5000 })).toEqual({ finished: 1, handedBack: 0 });
    expect((await runRow(db(), id!)).status).toBe("succeeded");
  });

  it("a lost lease aborts the run's pipeline, and nothing it writes afterwards lands", async () => {
    const ds = await newDataset(db());
    const [id] = (await queueRuns(db(), [ds], 1)).get(ds)!;
    let release: () => void = () => {};
    const reasons: unknown[] = [];
    const late: string[] = [];
    const stuck = async (run: Parameters<ReturnType<typeof recorder>["execute"]>[0], signal: AbortSignal) => {
      const log = attachRunLog(db(), "remember", run);
      await log.start("classify_complexity");
      signal.addEventListener("abort", () => reasons.push(signal.reason));
      // ignores the signal on purpose: what it writes after losing the run must not land
      await new Promise<void>((r) => (release = r));
      log.done("classify_complexity", null);
      late.push(await log.finish(null));
    };
    // one slot: a's stuck attempt holds it, so a cannot claim the run again once b's sweep has
    // queued it (with two, a and b raced for it, and a's second attempt hung like its first)
    const a = manager({ execute: stuck, owner: "a", leaseMs: 300, concurrency: 1 });
    a.start();
    await until("the run to start", async () => (await runRow(db(), id!)).status === "started");
    // the lease is lost: expired, and no longer a's (a heartbeat that came too late; were the
    // owner left as it is, a's next heartbeat could renew it before b's sweep on a loaded machine)
    await db().execute(sql`UPDATE gb_remember_runs SET lease_expires_at = now() - interval '1 s', lease_owner = 'a (lost)' WHERE id = ${id!}`);
    const rec = recorder(db(), { ms: 5 });
    const b = manager({ execute: rec.execute, owner: "b", retry: { maxAttempts: 3, baseMs: 0, maxMs: 0 } });
    b.start();
    try {
      // a bound, not a timing: on a loaded machine b's sweep and run take seconds
      expect(await b.waitFor(id!, 20_000)).toEqual({ status: "succeeded", error: null });
      await until("a's heartbeat to see the run lost", async () => reasons.length === 1);
      expect((reasons[0] as Error).name).toBe("LeaseLostError");
    } finally {
      // else a failure above leaves a's execute waiting, and stopping a (afterEach) with it
      release();
    }
    await until("the stale run to end", async () => late.length === 1);
    expect(late).toEqual(["fenced"]);
    const row = await runRow(db(), id!);
    expect(row).toMatchObject({ status: "succeeded", lease_owner: "b", attempts: 2 });
    expect(row.attempt_errors).toMatchObject([{ attempt: 1, kind: "abandoned" }]);
  });

  it("sole: a manager that owns its database takes back every run found started when it starts", async () => {
    const ds = await newDataset(db());
    const [id] = (await queueRuns(db(), [ds], 1)).get(ds)!;
    // left by a process killed a moment ago: its lease has 10 minutes to go
    await db().execute(
      sql`UPDATE gb_remember_runs SET status = 'started', attempts = 1, lease_owner = 'killed', lease_expires_at = now() + interval '10 min' WHERE id = ${id!}`,
    );
    const rec = recorder(db(), { ms: 5 });
    const m = manager({ execute: rec.execute, sole: true });
    m.start();
    expect(await m.waitFor(id!, 5000)).toEqual({ status: "succeeded", error: null });
    const row = await runRow(db(), id!);
    expect(row.attempt_errors).toMatchObject([{ attempt: 1, kind: "abandoned", error: "abandoned: the process running it stopped (found started when the app started)" }]);
  });

  it("the heartbeat keeps a long run's lease alive while another manager sweeps", async () => {
    const ds = await newDataset(db());
    const [id, next] = (await queueRuns(db(), [ds], 2)).get(ds)!;
    const leases: number[] = [];
    const rec = recorder(db(), { ms: 5 });
    const slow = async (run: Parameters<typeof rec.execute>[0]) => {
      if (run.id === id) {
        for (let i = 0; i < 4; i++) {
          leases.push((await runRow(db(), run.id)).lease_expires_at!.getTime());
          await sleep(300);
        }
      }
      await rec.execute(run);
    };
    // lease 500 ms, the run takes 1.2 s: only the heartbeat (every 166 ms) keeps it
    const a = manager({ execute: slow, leaseMs: 500, owner: "a", concurrency: 1 });
    a.start();
    await until("the run to start", async () => (await runRow(db(), id!)).status === "started");
    const b = manager({ execute: rec.execute, owner: "b" });
    b.start();
    expect(await a.waitFor(id!, 5000)).toEqual({ status: "succeeded", error: null });
    expect(await a.waitFor(next!, 5000)).toEqual({ status: "succeeded", error: null });
    // the lease only moves forward, and moved while the run took more than twice its length (a
    // sample may see the same lease as the one before when the heartbeat is late under load)
    for (let i = 1; i < leases.length; i++) expect(leases[i]!).toBeGreaterThanOrEqual(leases[i - 1]!);
    expect(leases.at(-1)!).toBeGreaterThan(leases[0]!);
    expect(rec.runs.map((r) => r.id)).toEqual([id, next]);
    expect((await runRow(db(), id!)).lease_owner).toBe("a");
  });
});
