import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Observer } from "../pipeline";
import type { RunKind, RunStatus, StageStatus } from "../../lib/stages";
import type { Db } from "../db/client";
import { runLogs } from "./tables";

/*
 * The run-log observer: the only writer of gb_remember_runs and gb_query_runs. The row is
 * written at every transition so that a call in progress can be watched; writes are queued in
 * order, and a write that fails is logged and never fails the call.
 */

export interface RunLog extends Observer {
  /** the run's id; null for the null log */
  readonly id: string | null;
  /** closes the run: succeeded, or failed with the error. Never throws. */
  finish(error: Error | null): Promise<void>;
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
const defaultLog: Log = (message, error) => console.error(message, error);
const MAX_ERROR = 4000;
/**
 * The message a run log keeps: a database error's own words rather than its query wrapper's
 * ("Failed query: insert into …" with its parameters, which may hold the user's text).
 */
function message(e: Error): string {
  let err: unknown = e;
  while (err instanceof Error && err.message.startsWith("Failed query:") && err.cause instanceof Error) err = err.cause;
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.slice(0, MAX_ERROR);
}

/** A run log that does nothing (a call made without one). */
export const nullRunLog: RunLog = {
  id: null,
  start() {},
  done() {},
  skip() {},
  addInference() {},
  finish: async () => {},
};

/*
 * Every write sends the whole state of the run (its status and every stage group) through one
 * prepared UPDATE per table and database: no query is built per transition, and since the
 * observer is the only writer, its state in memory is the row. Writes never overlap: changes
 * made while one is in flight go out together in the next.
 */
function prepareWrite(db: Db, kind: RunKind) {
  const { table, stages } = runLogs[kind];
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
      .where(and(eq(table.datasetId, sql.placeholder("datasetId")), eq(table.id, sql.placeholder("id")), eq(table.status, "started")))
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

const iso = (d: Date | null) => (d ? d.toISOString() : null);

class TableRunLog implements RunLog {
  private readonly stages = new Map<string, StageState>();
  private status: RunStatus = "started";
  private error: string | null = null;
  private finishedAt: Date | null = null;
  /** the write in flight, if any, and whether state changed since it began */
  private inFlight: Promise<void> | null = null;
  private dirty = false;

  constructor(
    private readonly db: Db,
    readonly kind: RunKind,
    readonly id: string,
    private readonly datasetId: string,
    private readonly log: Log,
    /** wait for each start's write before the stage runs (else it is queued, in order) */
    private readonly awaitWrites = true,
  ) {
    for (const s of runLogs[kind].stages) {
      this.stages.set(s.name, { status: "not_started", error: null, startedAt: null, finishedAt: null, inferenceIds: [] });
    }
  }

  private values(): Record<string, unknown> {
    const v: Record<string, unknown> = {
      id: this.id,
      datasetId: this.datasetId,
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

  /** Writes the state; resolves once a write that includes every change so far is done. Never rejects. */
  private flush(): Promise<void> {
    this.dirty = true;
    this.inFlight ??= (async () => {
      while (this.dirty) {
        this.dirty = false;
        try {
          await preparedWrite(this.db, this.kind).execute(this.values());
        } catch (e) {
          this.log(`run log ${this.kind} ${this.id}: write failed`, e);
        }
      }
      this.inFlight = null;
    })();
    return this.inFlight;
  }

  private state(stage: string): StageState | undefined {
    const s = this.stages.get(stage);
    if (!s) this.log(`run log ${this.kind} ${this.id}: no stage ${stage} in this log`, stage);
    return s;
  }

  /** Written before the stage runs, so a watcher sees which stage the call is in. */
  start(stage: string, at = new Date()): Promise<void> {
    const s = this.state(stage);
    if (!s) return Promise.resolve();
    s.status = "started";
    // A stage inside an Each starts once per item and keeps its first start time.
    s.startedAt ??= at;
    const written = this.flush();
    return this.awaitWrites ? written : Promise.resolve();
  }

  /**
   * Not written at once: the runner's next step is the next stage's start (or the call's
   * finish), which writes it with no time in between that a watcher could see.
   */
  done(stage: string, error: Error | null, at = new Date()): void {
    const s = this.state(stage);
    if (!s) return;
    // Once failed (on any item), a stage stays failed with its first error.
    if (error && s.error === null) s.error = message(error);
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

  addInference(stage: string, inferenceId: string): Promise<void> {
    const s = this.state(stage);
    if (!s) return Promise.resolve();
    if (!runLogs[this.kind].stages.find((d) => d.name === stage)?.model) {
      this.log(`run log ${this.kind} ${this.id}: stage ${stage} runs no models`, inferenceId);
      return Promise.resolve();
    }
    s.inferenceIds.push(inferenceId);
    return this.flush();
  }

  async finish(error: Error | null): Promise<void> {
    const now = new Date();
    this.status = error ? "failed" : "succeeded";
    this.error = error ? message(error) : null;
    this.finishedAt = now;
    // No stage is left open: a stage still started when the call ended failed with it.
    for (const s of this.stages.values()) {
      if (s.status !== "started") continue;
      s.status = "failed";
      s.error ??= "the call ended while this stage was running";
      s.finishedAt = now;
    }
    await this.flush();
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

/** Creates a queued run row (the remember queue) without starting it. */
export async function createQueuedRun(db: Db, kind: RunKind, init: RunLogInit): Promise<string> {
  const id = randomUUID();
  await db.insert(runLogs[kind].table).values({
    id,
    datasetId: init.datasetId,
    userId: init.userId,
    params: init.params,
    status: "queued",
    createdAt: new Date(),
  });
  return id;
}

/**
 * The observer of a run already marked started (the remember manager claims a queued run and
 * starts it in one statement, then hands it to this).
 */
export function attachRunLog(db: Db, kind: RunKind, run: { id: string; datasetId: string }, options: RunLogOptions = {}): RunLog {
  return new TableRunLog(db, kind, run.id, run.datasetId, options.log ?? defaultLog);
}
