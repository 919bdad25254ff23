import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { parseEnv } from "../../../env";
import { type Child, reap, spawnChild, waitForLine } from "../../../test/child";
import { openTestDatabase } from "../../../test/db";
import { createApp } from "../../app";
import { LOCAL_CALLER } from "../../auth/caller";
import { createDataset } from "../../datasets/datasets";
import type { Database, Db, SessionLock } from "../../db/client";
import { column, queryRows, rowDecoder } from "../../db/rows";
import { createQueuedRun } from "../../runs/run-log";
import { submitRemember } from "../submit";
import { createRememberManager } from "./manager";
import { newDataset, privateServerDatabase, recorder, runRow, sleep, until } from "./queue.test-util";
import type { RememberManager } from "./types";

/*
 * Processes of other models on one database (#16's several processes): a remember run records the
 * embeddings of the process that submitted it, and a process of other embeddings claims it only
 * while no live process of those holds their lock. Without it a builtin worker stored an openai
 * process's remembers without the embeddings its questions search (found by a test, #16's note).
 */

const OPENAI = "openai embed-test 8";
const BUILTIN = "builtin";
const pgUrl = inject("pgUrl");
if (!pgUrl) console.log("remember runs and the embeddings of the process that submitted them [postgres]: skipped, TEST_DATABASE_URL is unset");

const randomKey = () => randomBytes(8).readBigInt64BE() & 0x7fff_ffff_ffff_ffffn;

const spaceRow = rowDecoder({ embedding_space: column.nullable(column.text), lease_owner: column.nullable(column.text), status: column.text });
async function spaceOf(db: Db, id: string) {
  const [row] = await queryRows(db, sql`SELECT embedding_space, lease_owner, status FROM gb_remember_runs WHERE id = ${id}`, spaceRow);
  if (!row) throw new Error(`no run ${id}`);
  return row;
}

const queue = (db: Db, datasetId: string, embeddingSpace: string | null, k: number) =>
  createQueuedRun(db, "remember", { datasetId, userId: null, params: { k }, embeddingSpace });

describe.skipIf(!pgUrl)("remember runs and the embeddings of the process that submitted them [postgres]", () => {
  let own: Awaited<ReturnType<typeof privateServerDatabase>> | undefined;
  const database = (): Database => {
    if (!own) throw new Error("database not open");
    return own.database;
  };
  const db = () => database().db;
  beforeAll(async () => {
    own = await privateServerDatabase();
  });
  afterAll(async () => {
    await own?.drop();
  });
  const managers: RememberManager[] = [];
  const locks: SessionLock[] = [];
  const children: Child[] = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.stop()));
    await Promise.all(locks.splice(0).map((l) => l.release()));
    await reap(children);
  });

  const manager = (owner: string, embeddingSpace: string, logs: string[] = []) => {
    const rec = recorder(db(), { ms: 10 });
    const m = createRememberManager({
      db: db(),
      owner,
      execute: rec.execute,
      concurrency: 2,
      pollMs: 30,
      liveness: (key, opts) => database().sessionLock(key, opts),
      embeddingSpace,
      log: (message) => logs.push(message),
    });
    managers.push(m);
    m.start();
    return { m, rec };
  };

  it("a run waits for a process of its submitter's embeddings while one runs; each process takes its own, in order per dataset", async () => {
    // a live process of the openai embeddings, not claiming yet
    const holder = await database().sessionLock(randomKey(), { shared: [OPENAI] });
    if (!holder) throw new Error("no session lock on the server");
    locks.push(holder);
    const logs: string[] = [];
    const builtin = manager("builtin-proc", BUILTIN, logs);
    const [d1, d2] = [await newDataset(db()), await newDataset(db())];
    const waiting = await queue(db(), d1, OPENAI, 0);
    const mine = await queue(db(), d2, BUILTIN, 0);
    const older = await queue(db(), d2, null, 1);
    expect(await builtin.m.waitFor(mine, 5000)).toEqual({ status: "succeeded", error: null });
    expect(await builtin.m.waitFor(older, 5000)).toEqual({ status: "succeeded", error: null });
    // many polls later, the openai run is still queued, and nothing of d1 behind it ran either
    const behind = await queue(db(), d1, BUILTIN, 1);
    await sleep(400);
    expect(await spaceOf(db(), waiting)).toEqual({ embedding_space: OPENAI, lease_owner: null, status: "queued" });
    expect((await runRow(db(), behind)).status).toBe("queued");

    // the openai process starts its worker: it takes its run, then the builtin one behind it goes on
    const openai = manager("openai-proc", OPENAI);
    expect(await openai.m.waitFor(waiting, 5000)).toEqual({ status: "succeeded", error: null });
    expect(await builtin.m.waitFor(behind, 5000)).toEqual({ status: "succeeded", error: null });
    expect((await spaceOf(db(), waiting)).lease_owner).toBe("openai-proc");
    expect((await spaceOf(db(), behind)).lease_owner).toBe("builtin-proc");
    expect((await runRow(db(), behind)).started_at!.getTime()).toBeGreaterThanOrEqual((await runRow(db(), waiting)).finished_at!.getTime());

    // both running: runs of both kinds interleaved in two datasets, each by its own kind, in order
    const d3 = await newDataset(db());
    const plan: [string, string][] = [
      [d1, OPENAI],
      [d3, BUILTIN],
      [d1, BUILTIN],
      [d3, OPENAI],
      [d1, OPENAI],
      [d3, BUILTIN],
    ];
    const ids: string[] = [];
    for (const [k, [d, space]] of plan.entries()) ids.push(await queue(db(), d, space, 10 + k));
    for (const [k, id] of ids.entries()) {
      const m = plan[k]![1] === OPENAI ? openai.m : builtin.m;
      expect(await m.waitFor(id, 5000)).toEqual({ status: "succeeded", error: null });
      expect((await spaceOf(db(), id)).lease_owner).toBe(plan[k]![1] === OPENAI ? "openai-proc" : "builtin-proc");
    }
    for (const d of [d1, d3]) {
      const rows = await Promise.all(ids.filter((_, k) => plan[k]![0] === d).map((id) => runRow(db(), id)));
      for (let k = 1; k < rows.length; k++) expect(rows[k]!.started_at!.getTime()).toBeGreaterThanOrEqual(rows[k - 1]!.finished_at!.getTime());
    }
    expect(logs.filter((l) => /submitted by a process with embeddings/.test(l))).toEqual([]);
  });

  it("once no process of its embeddings runs (stopped, or killed with SIGKILL), another process stores the run and says so", async () => {
    const logs: string[] = [];
    const builtin = manager("builtin-proc", BUILTIN, logs);
    const table = `gb_test_exec_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await db().execute(sql.raw(`CREATE TABLE ${table} (run_id uuid NOT NULL, owner text NOT NULL, started timestamptz NOT NULL, ended timestamptz)`));
    const child = spawnChild("src/test/queue-child.ts", {
      QUEUE_CHILD_DB_URL: own!.url,
      QUEUE_CHILD_MODE: "work",
      QUEUE_CHILD_OWNER: "openai-child",
      QUEUE_CHILD_EXEC_TABLE: table,
      QUEUE_CHILD_LIVENESS: "1",
      QUEUE_CHILD_SPACE: OPENAI,
      QUEUE_CHILD_POLL_MS: "30",
      QUEUE_CHILD_WORK_MS: "10",
    });
    children.push(child);
    await waitForLine(child, "ready");
    // while the child lives, every openai run is the child's, whichever process polls first
    const datasets = [await newDataset(db()), await newDataset(db()), await newDataset(db())];
    const ids: string[] = [];
    for (const d of datasets) ids.push(await queue(db(), d, OPENAI, 0));
    for (const id of ids) await until(`run ${id} to end`, async () => (await spaceOf(db(), id)).status === "succeeded", 15_000);
    for (const id of ids) expect((await spaceOf(db(), id)).lease_owner).toBe("openai-child");
    expect(logs.filter((l) => /submitted by a process with embeddings/.test(l))).toEqual([]);

    // killed: its session ends, and with it its lock; the builtin process takes the next one at once
    expect(child.proc.kill("SIGKILL")).toBe(true);
    await child.exited;
    const orphan = await queue(db(), datasets[0]!, OPENAI, 1);
    expect(await builtin.m.waitFor(orphan, 10_000)).toEqual({ status: "succeeded", error: null });
    expect((await spaceOf(db(), orphan)).lease_owner).toBe("builtin-proc");
    expect(logs).toContain(`remember run ${orphan} was submitted by a process with embeddings "${OPENAI}"; none is running, so this one stores it with "${BUILTIN}"`);
  });
});

describe("remember runs and the embeddings of the process that submitted them [pglite]", () => {
  let database: Database | undefined;
  beforeAll(async () => {
    database = await openTestDatabase("pglite");
  });
  afterAll(async () => {
    await database?.close();
  });

  it("submit records the app's embeddings: builtin, or the openai model and size (GB_STAGE_MODELS's for load_candidates)", async () => {
    const envs = [
      [{ GB_MODELS: "builtin" }, "builtin"],
      [{ GB_MODELS: "openai", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1", GB_EMBEDDING_MODEL: "embed-a", GB_EMBEDDING_DIMENSIONS: "64" }, "openai embed-a 64"],
      [
        {
          GB_MODELS: "openai",
          OPENAI_API_KEY: "sk-test",
          OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
          GB_EMBEDDING_MODEL: "embed-a",
          GB_EMBEDDING_DIMENSIONS: "64",
          GB_STAGE_MODELS: JSON.stringify({ load_candidates: { model: "embed-b" } }),
        },
        "openai embed-b 64",
      ],
    ] as const;
    for (const [env, space] of envs) {
      const app = await createApp({ env: parseEnv({ GB_DATA_DIR: ".test-data", ...env }), database: database!, worker: false });
      try {
        expect(app.embeddingSpace).toBe(space);
        const dataset = `space-${randomUUID().slice(0, 8)}`;
        await createDataset({ db: app.database.db, caller: LOCAL_CALLER, input: { name: dataset } });
        const { rememberRunId } = await submitRemember({ app, caller: LOCAL_CALLER, input: { dataset, text: "Alice lives in Paris." } });
        expect(await spaceOf(app.database.db, rememberRunId)).toMatchObject({ embedding_space: space, status: "queued" });
      } finally {
        await app.stop();
      }
    }
  });

  it("one process owns PGlite: its worker takes a run of other embeddings (a configuration changed since it was queued)", async () => {
    const db = database!.db;
    const rec = recorder(db, { ms: 5 });
    const logs: string[] = [];
    const m = createRememberManager({ db, execute: rec.execute, concurrency: 1, pollMs: 30, owner: "only", sole: true, liveness: (key, opts) => database!.sessionLock(key, opts), embeddingSpace: BUILTIN, log: (message) => logs.push(message) });
    m.start();
    try {
      const run = await queue(db, await newDataset(db), OPENAI, 0);
      expect(await m.waitFor(run, 5000)).toEqual({ status: "succeeded", error: null });
      expect(logs).toContain(`remember run ${run} was submitted by a process with embeddings "${OPENAI}"; none is running, so this one stores it with "${BUILTIN}"`);
    } finally {
      await m.stop();
    }
  });
});
