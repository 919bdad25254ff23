import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Observer } from "../pipeline";
import type { RunKind, RunStatus, StageStatus } from "../../lib/stages";
import type { Db } from "../db/client";
import { errorText, logError } from "../errors";
import { rememberRuns } from "../db/schema";
import { runLogs } from "./tables";

/*
 * The run-log observer: the only writer of gb_remember_runs and gb_query_runs. The row is
 * written at every transition so that a call in progress can be watched; writes are queued in
 * order, and a write that fails is logged and never fails the call.
 */

/**
 * How the last write of a run log went: written; fenced (the row is no longer this log's to write:
 * the run ended, or another attempt holds it); or failed (the database refused or was away).
 */
export type WriteResult = "written" | "fenced" | "failed";

export interface RunLog extends Observer {
  /** the run's id; null for the null log */
  readonly id: string | null;
  /** closes the run: succeeded, or failed with the error. Never throws; says how its write went. */
  finish(error: Error | null): Promise<WriteResult>;
  /** waits until every change so far is written (or failed); says how the last write went */
  settle(): Promise<WriteResult>;
}

export interface RunLogInit {
  datasetId: string;
  userId: string | null;
  params: Record<string, unknown>;
}

interface StageState {
  status: StageStatus;
  error: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  inferenceIds: string[];
}

type Log = (message: string, error: unknown) => void;
const defaultLog: Log = logError;

/** A run log that does nothing (a call made without one). */
export const nullRunLog: RunLog = {
  id: null,
  start() {},
  done() {},
  skip() {},
  addInference() {},
  finish: async () => "written",
  settle: async () => "written",
};

/*
 * Every write sends the whole state of the run (its status and every stage group) through one
 * prepared UPDATE per table and database: no query is built per transition, and since the
 * observer is the only writer, its state in memory is the row. Writes never overlap: changes
 * made while one is in flight go out together in the next.
 */
function prepareWrite(db: Db, kind: RunKind) {
  const { table, stages } = runLogs[kind];
  // A remember run is written only by the attempt that holds it (its claim's attempt number, the
  // fencing token): a process that lost its lease cannot overwrite the next attempt's stages.
  const fence = kind === "remember" ? eq(rememberRuns.attempts, sql.placeholder("attempt")) : undefined;
  // Casts in SQL rather than column encoders: drizzle's timestamp encoder does not take null
  // through a placeholder.
  const text = (name: string) => sql.placeholder(name);
  const time = (name: string) => sql`${sql.placeholder(name)}::timestamptz`;
  const set: Record<string, unknown> = { status: text("status"), error: text("error"), finishedAt: time("finishedAt") };
  for (const s of stages) {
    set[`${s.name}_status`] = text(`${s.name}_status`);
    set[`${s.name}_error`] = text(`${s.name}_error`);
    set[`${s.name}_started_at`] = time(`${s.name}_started_at`);
    set[`${s.name}_finished_at`] = time(`${s.name}_finished_at`);
    if (s.model) set[`${s.name}_inference_ids`] = sql`${sql.placeholder(`${s.name}_inference_ids`)}::uuid[]`;
  }
  return (
    db
      .update(table)
      // the keys are generated from the stage table, like the columns they name
      .set(set as never)
      // Only a started run is written: once finished, or marked abandoned by the remember
      // manager, no late write of a process that lost its lease can bring it back.
      .where(and(eq(table.datasetId, sql.placeholder("datasetId")), eq(table.id, sql.placeholder("id")), eq(table.status, "started"), fence))
      .returning({ id: table.id })
      .prepare(`gb_${kind}_runs_write`)
  );
}
type Write = ReturnType<typeof prepareWrite>;
const writes = new WeakMap<Db, Map<RunKind, Write>>();

function preparedWrite(db: Db, kind: RunKind): Write {
  let byKind = writes.get(db);
  if (!byKind) writes.set(db, (byKind = new Map()));
  let w = byKind.get(kind);
  if (!w) byKind.set(kind, (w = prepareWrite(db, kind)));
  return w;
}

/** how long a coalesced change may wait for its write (see soon) */
const COALESCE_MS = 200;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

class TableRunLog implements RunLog {
  private readonly stages = new Map<string, StageState>();
  private status: RunStatus = "started";
  private error: string | null = null;
  private finishedAt: Date | null = null;
  /** the write in flight, if any, and whether state changed since it began */
  private inFlight: Promise<WriteResult> | null = null;
  private dirty = false;
  private last: WriteResult = "written";

  constructor(
    private readonly db: Db,
    readonly kind: RunKind,
    readonly id: string,
    private readonly datasetId: string,
    private readonly log: Log,
    /** wait for each start's write before the stage runs (else it is queued, in order) */
    private readonly awaitWrites = true,
    /** remember: the attempt that holds the run (see prepareWrite) */
    private readonly attempt = 0,
  ) {
    for (const s of runLogs[kind].stages) {
      this.stages.set(s.name, { status: "not_started", error: null, startedAt: null, finishedAt: null, inferenceIds: [] });
    }
  }

  private values(): Record<string, unknown> {
    const v: Record<string, unknown> = {
      id: this.id,
      datasetId: this.datasetId,
      attempt: this.attempt,
      status: this.status,
      error: this.error,
      finishedAt: iso(this.finishedAt),
    };
    for (const s of runLogs[this.kind].stages) {
      const st = this.stages.get(s.name);
      if (!st) continue;
      v[`${s.name}_status`] = st.status;
      v[`${s.name}_error`] = st.error;
      v[`${s.name}_started_at`] = iso(st.startedAt);
      v[`${s.name}_finished_at`] = iso(st.finishedAt);
      if (s.model) v[`${s.name}_inference_ids`] = st.inferenceIds;
    }
    return v;
  }

  /** a coalesced write waiting (soon) */
  private timer: NodeJS.Timeout | null = null;

  /**
   * A change a watcher can wait a moment for (a later item of a per-chunk stage starting again, a
   * model call's id): written within COALESCE_MS, with every other change made meanwhile. A text of
   * a thousand chunks made six writes a chunk, a tenth of its database time on PGlite.
   */
  private soon(): void {
    this.dirty = true;
    if (this.timer || this.inFlight) return; // a write in flight goes again while dirty
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, COALESCE_MS);
    this.timer.unref();
  }

  /** Writes the state; resolves once a write that includes every change so far is done. Never rejects. */
  private flush(): Promise<WriteResult> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.dirty = true;
    this.inFlight ??= (async () => {
      while (this.dirty) {
        this.dirty = false;
        try {
          const rows = await preparedWrite(this.db, this.kind).execute(this.values());
          this.last = rows.length > 0 ? "written" : "fenced";
        } catch (e) {
          this.last = "failed";
          this.log(`run log ${this.kind} ${this.id}: write failed`, e);
        }
      }
      this.inFlight = null;
      return this.last;
    })();
    return this.inFlight;
  }

  async settle(): Promise<WriteResult> {
    if (this.dirty || this.inFlight) return this.flush();
    return this.last;
  }

  private state(stage: string): StageState | undefined {
    const s = this.stages.get(stage);
    if (!s) this.log(`run log ${this.kind} ${this.id}: no stage ${stage} in this log`, stage);
    return s;
  }

  /** Written before the stage runs, so a watcher sees which stage the call is in. */
  async start(stage: string, at = new Date()): Promise<void> {
    const s = this.state(stage);
    if (!s) return;
    s.status = "started";
    // A stage inside an Each starts once per item and keeps its first start time; a watcher has
    // seen it start, and learns of the later items with the next write.
    if (s.startedAt) return this.soon();
    s.startedAt = at;
    const written = this.flush();
    if (this.awaitWrites) await written;
  }

  /**
   * Not written at once: the runner's next step is the next stage's start (or the call's
   * finish), which writes it with no time in between that a watcher could see.
   */
  done(stage: string, error: Error | null, at = new Date()): void {
    const s = this.state(stage);
    if (!s) return;
    // Once failed (on any item), a stage stays failed with its first error.
    if (error && s.error === null) s.error = errorText(error);
    s.status = s.error !== null ? "failed" : "succeeded";
    s.finishedAt = at;
    this.dirty = true;
  }

  skip(stage: string): void {
    const s = this.state(stage);
    if (!s) return;
    s.status = "skipped";
    this.dirty = true;
  }

  async addInference(stage: string, inferenceId: string): Promise<void> {
    const s = this.state(stage);
    if (!s) return;
    if (!runLogs[this.kind].stages.find((d) => d.name === stage)?.model) {
      this.log(`run log ${this.kind} ${this.id}: stage ${stage} runs no models`, inferenceId);
      return;
    }
    s.inferenceIds.push(inferenceId);
    this.soon();
  }

  async finish(error: Error | null): Promise<WriteResult> {
    const now = new Date();
    this.status = error ? "failed" : "succeeded";
    this.error = error ? errorText(error) : null;
    this.finishedAt = now;
    // No stage is left open: a stage still started when the call ended failed with it.
    for (const s of this.stages.values()) {
      if (s.status !== "started") continue;
      s.status = "failed";
      s.error ??= "the call ended while this stage was running";
      s.finishedAt = now;
    }
    return this.flush();
  }
}

export interface RunLogOptions {
  log?: Log;
  /**
   * false: a start's write is queued and the stage runs at once (writes stay in order, and
   * finish waits for them all). For calls of a few milliseconds, such as a query, where a
   * watcher gains nothing from the stage being on disk before it runs.
   */
  awaitWrites?: boolean;
}

/** Creates the run row (status started) and returns its observer. Throws if the row cannot be made. */
export async function createRunLog(
  db: Db,
  kind: RunKind,
  init: RunLogInit,
  options: RunLogOptions = {},
): Promise<RunLog> {
  const id = randomUUID();
  const now = new Date();
  await db.insert(runLogs[kind].table).values({
    id,
    datasetId: init.datasetId,
    userId: init.userId,
    params: init.params,
    status: "started",
    createdAt: now,
    startedAt: now,
  });
  return new TableRunLog(db, kind, id, init.datasetId, options.log ?? defaultLog, options.awaitWrites ?? true);
}

/** A queued run's row. */
const queuedRow = (id: string, init: RunLogInit) => ({
  id,
  datasetId: init.datasetId,
  userId: init.userId,
  params: init.params,
  status: "queued" as const,
  createdAt: new Date(),
});

/** Creates a queued run row (the remember queue) without starting it. */
export async function createQueuedRun(db: Db, kind: RunKind, init: RunLogInit): Promise<string> {
  const id = randomUUID();
  await db.insert(runLogs[kind].table).values(queuedRow(id, init));
  return id;
}

/**
 * Creates a queued remember run under the client's idempotency key, unless the dataset already
 * has a run with that key: then nothing is written and that run is returned (with the hash of the
 * request it was made for). One run per key and dataset, also when two submits race (the unique
 * index makes the second insert wait for the first, then do nothing).
 */
export async function createQueuedRunOnce(
  db: Db,
  init: RunLogInit,
  idempotency: { key: string; hash: string },
): Promise<{ id: string; created: boolean; hash: string | null; status: RunStatus; error: string | null }> {
  const t = rememberRuns;
  const id = randomUUID();
  const inserted = await db
    .insert(t)
    .values({ ...queuedRow(id, init), idempotencyKey: idempotency.key, idempotencyHash: idempotency.hash })
    .onConflictDoNothing({ target: [t.datasetId, t.idempotencyKey], where: sql`idempotency_key IS NOT NULL` })
    .returning({ id: t.id });
  if (inserted.length > 0) return { id, created: true, hash: idempotency.hash, status: "queued", error: null };
  const [existing] = await db
    .select({ id: t.id, hash: t.idempotencyHash, status: t.status, error: t.error })
    .from(t)
    .where(and(eq(t.datasetId, init.datasetId), eq(t.idempotencyKey, idempotency.key)));
  if (!existing) throw new Error(`remember run with idempotency key ${idempotency.key}: neither inserted nor found`);
  return { ...existing, created: false };
}

/**
 * The observer of a run already marked started (the remember manager claims a queued run and
 * starts it in one statement, then hands it to this). `attempt`: the claim's attempt number; a
 * remember run's log writes only while that attempt holds the run.
 */
export function attachRunLog(
  db: Db,
  kind: RunKind,
  run: { id: string; datasetId: string; attempt?: number },
  options: RunLogOptions = {},
): RunLog {
  return new TableRunLog(db, kind, run.id, run.datasetId, options.log ?? defaultLog, true, run.attempt ?? 0);
}
