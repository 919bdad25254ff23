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
}

type Log = (message: string, error: unknown) => void;
const defaultLog: Log = (message, error) => console.error(message, error);
const MAX_ERROR = 4000;
const message = (e: Error) => e.message.slice(0, MAX_ERROR) || e.name;

/** A run log that does nothing (a call made without one). */
export const nullRunLog: RunLog = {
  id: null,
  start() {},
  done() {},
  skip() {},
  addInference() {},
  finish: async () => {},
};

class TableRunLog implements RunLog {
  private readonly stages = new Map<string, StageState>();
  private chain: Promise<void> = Promise.resolve();
  private readonly spec;

  constructor(
    private readonly db: Db,
    readonly kind: RunKind,
    readonly id: string,
    private readonly datasetId: string,
    private readonly log: Log,
  ) {
    this.spec = runLogs[kind];
  }

  /** Queues a write after the earlier ones; the promise settles when it is done, never rejects. */
  private write(values: Record<string, unknown>): Promise<void> {
    const { table } = this.spec;
    this.chain = this.chain.then(async () => {
      try {
        await this.db
          .update(table)
          // Keys are generated from the stage table, like the columns they name.
          .set(values as never)
          .where(and(eq(table.datasetId, this.datasetId), eq(table.id, this.id)));
      } catch (e) {
        this.log(`run log ${this.kind} ${this.id}: write failed`, e);
      }
    });
    return this.chain;
  }

  private state(stage: string): StageState {
    let s = this.stages.get(stage);
    if (!s) {
      s = { status: "not_started", error: null, startedAt: null };
      this.stages.set(stage, s);
    }
    return s;
  }

  start(stage: string): Promise<void> {
    const s = this.state(stage);
    s.status = "started";
    // A stage inside an Each starts once per item and keeps its first start time.
    s.startedAt ??= new Date();
    return this.write({ [`${stage}_status`]: s.status, [`${stage}_started_at`]: s.startedAt });
  }

  done(stage: string, error: Error | null): Promise<void> {
    const s = this.state(stage);
    // Once failed (on any item), a stage stays failed with its first error.
    if (error && s.error === null) s.error = message(error);
    s.status = error || s.error !== null ? "failed" : "succeeded";
    return this.write({
      [`${stage}_status`]: s.status,
      [`${stage}_error`]: s.error,
      [`${stage}_finished_at`]: new Date(),
    });
  }

  skip(stage: string): Promise<void> {
    this.state(stage).status = "skipped";
    return this.write({ [`${stage}_status`]: "skipped" });
  }

  addInference(stage: string, inferenceId: string): Promise<void> {
    const column = this.spec.table[`${stage}_inference_ids` as keyof typeof this.spec.table];
    if (!column) {
      this.log(`run log ${this.kind} ${this.id}: stage ${stage} runs no models`, inferenceId);
      return this.chain;
    }
    return this.write({ [`${stage}_inference_ids`]: sql`array_append(${column}, ${inferenceId}::uuid)` });
  }

  async finish(error: Error | null): Promise<void> {
    const now = new Date();
    const values: Record<string, unknown> = {
      status: (error ? "failed" : "succeeded") satisfies RunStatus,
      error: error ? message(error) : null,
      finishedAt: now,
    };
    // No stage is left open: a stage still started when the call ended failed with it.
    for (const [name, s] of this.stages) {
      if (s.status !== "started") continue;
      values[`${name}_status`] = "failed";
      values[`${name}_error`] = s.error ?? "the call ended while this stage was running";
      values[`${name}_finished_at`] = now;
    }
    await this.write(values);
  }
}

export interface RunLogOptions {
  log?: Log;
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
  return new TableRunLog(db, kind, id, init.datasetId, options.log ?? defaultLog);
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

/** Marks a queued run started and returns its observer (the remember manager's worker). */
export async function startQueuedRun(
  db: Db,
  kind: RunKind,
  run: { id: string; datasetId: string },
  options: RunLogOptions = {},
): Promise<RunLog> {
  const { table } = runLogs[kind];
  await db
    .update(table)
    .set({ status: "started", startedAt: new Date() })
    .where(and(eq(table.datasetId, run.datasetId), eq(table.id, run.id)));
  return new TableRunLog(db, kind, run.id, run.datasetId, options.log ?? defaultLog);
}
