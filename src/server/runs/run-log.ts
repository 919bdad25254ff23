import { randomUUID } from "node:crypto";
import { and, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Observer } from "../pipeline";
import type { RunKind, RunStatus } from "../../lib/stages";
import type { Db } from "../db/client";
import { errorText, logError } from "../errors";
import { inferences, rememberRuns } from "../db/schema";
import {
  ENDED_WHILE_RUNNING,
  endGroup,
  failIfStarted,
  flagGroup,
  groupKeys,
  groupPlaceholders,
  groupValues,
  newGroup,
  skipGroup,
  type StageGroup,
  startGroup,
} from "../db/schema/stage-group";
import { type KeptOutput, keepOutputs, outputRow, outputTables } from "./outputs";
import { runLogs } from "./tables";
import { flatSql } from "../db/flat-sql";

/*
 * The run-log observer: the writer of a run's status and stage groups while the call runs, and of
 * its stages' outputs. (The row is made here too; the remember queue's statements claim, renew
 * and end attempts, and fail the stages a dead attempt left started; a purge redacts params and
 * inference ids.) The row is written at every transition so that a call in progress can be
 * watched; writes are queued in order, and a write that fails is logged and never fails the call.
 * A stage output that cannot be kept is logged and fails its stage after the fact: the run goes
 * on, and if it succeeds it is flagged.
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
  /** a remember run: the submitting process's embeddings (gb_remember_runs.embedding_space) */
  embeddingSpace?: string | null;
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
  output() {},
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
  const set: Record<string, unknown> = {
    status: sql.placeholder("status"),
    error: sql.placeholder("error"),
    finishedAt: sql`${sql.placeholder("finishedAt")}::timestamptz`,
    ...groupPlaceholders(stages),
  };
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

/**
 * How long a coalesced change may wait for its write (see soon): the pages poll once a second.
 * Each write sends the whole row, whose inference ids grow with the text (a megabyte's run names
 * thousands): written every 200 ms, they were megabytes a minute to the database.
 */
const COALESCE_MS = 1000;

/** the most outputs one statement writes when several chunks' are left (a failed attempt's) */
const OUTPUTS_PER_STATEMENT = 20;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

class TableRunLog implements RunLog {
  private readonly stages = new Map<string, StageGroup>();
  private status: RunStatus = "started";
  private error: string | null = null;
  private finishedAt: Date | null = null;
  /** the write in flight, if any, and whether state changed since it began */
  private inFlight: Promise<WriteResult> | null = null;
  private dirty = false;
  /** a write was asked for (flush) since the one in flight began */
  private urgent = false;
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
    /** see RunLogOptions.outputsWith */
    private readonly outputsWith: string | null = null,
  ) {
    for (const s of runLogs[kind].stages) this.stages.set(s.name, newGroup());
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
      const g = this.stages.get(s.name);
      if (g) Object.assign(v, groupValues(s, g));
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
    if (this.timer) return;
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
    this.urgent = true;
    this.inFlight ??= (async () => {
      // again while someone asked for a write during the last one; changes made meanwhile
      // without asking (a stage's end) go with the next write, coalesced (soon)
      while (this.urgent) {
        this.urgent = false;
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
      if (this.dirty) this.soon();
      return this.last;
    })();
    return this.inFlight;
  }

  async settle(): Promise<WriteResult> {
    await this.keepHeld();
    if (this.dirty || this.inFlight) return this.flush();
    return this.last;
  }

  /** outputs of Each items waiting for their item's `outputsWith` output, by item index */
  private held = new Map<number, KeptOutput[]>();
  /** the output writes so far, chained (one at a time, in order); never rejects */
  private outputWrites: Promise<void> = Promise.resolve();

  /** Writes outputs in one statement, after those before; a failure fails their stages (see flagGroup). */
  private keep(kept: KeptOutput[]): Promise<void> {
    this.outputWrites = this.outputWrites.then(async () => {
      try {
        await keepOutputs(this.db, this.kind, { datasetId: this.datasetId, runId: this.id }, kept);
      } catch (e) {
        this.log(`run log ${this.kind} ${this.id}: the outputs of ${[...new Set(kept.map((k) => k.stage))].join(", ")} could not be kept`, e);
        for (const k of kept) {
          const g = this.stages.get(k.stage);
          if (g) flagGroup(g, `its output could not be kept: ${errorText(e)}`);
        }
        this.soon();
      }
    });
    return this.outputWrites;
  }

  /** the items' outputs whose `outputsWith` output came, waiting for the write in flight to end */
  private ready: KeptOutput[] = [];
  private readyWrite: Promise<void> | null = null;

  /** Writes the ready outputs, OUTPUTS_PER_STATEMENT a statement, until none is left; never rejects. */
  private keepReady(): Promise<void> {
    this.readyWrite ??= (async () => {
      while (this.ready.length > 0) await this.keep(this.ready.splice(0, OUTPUTS_PER_STATEMENT));
      this.readyWrite = null;
    })();
    return this.readyWrite;
  }

  /** Writes every held output, a few chunks' a statement (a failed attempt may hold every chunk's extraction). */
  private async keepHeld(): Promise<void> {
    await this.keepReady();
    const all = [...this.held.values()].flat();
    this.held.clear();
    for (let i = 0; i < all.length; i += OUTPUTS_PER_STATEMENT) void this.keep(all.slice(i, i + OUTPUTS_PER_STATEMENT));
    await this.outputWrites;
  }

  /**
   * A stage's output. Of a stage that runs once: written at once. Of an Each item, when the log
   * has `outputsWith`: held until that stage's output for the same item, then written behind the
   * pipeline (remember: a chunk's outputs as its store ends; neither one per output nor every
   * chunk's at the first store; the next chunk does not wait for the write, and the chunks whose
   * outputs are ready while a write is in flight go in together with the next). The rest, and
   * every write still in flight, at settle and finish.
   */
  output(stage: string, itemIndex: number | null, value: unknown, startedAt: Date, finishedAt: Date): Promise<void> | void {
    if (!this.state(stage)) return;
    const kept: KeptOutput = { stage, itemIndex: itemIndex ?? 0, output: value, startedAt, finishedAt };
    if (itemIndex !== null && this.outputsWith !== null) {
      const item = this.held.get(itemIndex) ?? [];
      item.push(kept);
      if (stage !== this.outputsWith) {
        this.held.set(itemIndex, item);
        return;
      }
      this.held.delete(itemIndex);
      // behind the pipeline: the next item does not wait for this write, and the items ready
      // while a write is in flight go in together with the next (settle and finish wait for all)
      this.ready.push(...item);
      void this.keepReady();
      return;
    }
    return this.written(this.keep([kept]));
  }

  /** A write the runner waits for, or not (awaitWrites: false; settle and finish wait for it). */
  private written(write: Promise<void>): Promise<void> | void {
    return this.awaitWrites ? write : undefined;
  }

  private state(stage: string): StageGroup | undefined {
    const s = this.stages.get(stage);
    if (!s) this.log(`run log ${this.kind} ${this.id}: no stage ${stage} in this log`, stage);
    return s;
  }

  /** Written before the stage runs, so a watcher sees which stage the call is in. */
  async start(stage: string, at = new Date()): Promise<void> {
    const s = this.state(stage);
    if (!s) return;
    // A stage inside an Each starts once per item and keeps its first start time; a watcher has
    // seen it start, and learns of the later items with the next write.
    if (!startGroup(s, at)) return this.soon();
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
    endGroup(s, error ? errorText(error) : null, at);
    this.dirty = true;
  }

  skip(stage: string): void {
    const s = this.state(stage);
    if (!s) return;
    skipGroup(s);
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
    // the outputs first: one that cannot be kept fails its stage, which the end must show
    await this.keepHeld();
    const now = new Date();
    this.status = error ? "failed" : "succeeded";
    this.error = error ? errorText(error) : null;
    this.finishedAt = now;
    // No stage is left open: a stage still started when the call ended failed with it.
    for (const s of this.stages.values()) failIfStarted(s, ENDED_WHILE_RUNNING, now);
    return this.flush();
  }
}

type InferenceRow = typeof inferences.$inferInsert;

/** A run log written once, as the call ends (createDeferredRunLog). */
export interface DeferredRunLog extends RunLog {
  readonly id: string;
  /** a model call's record, written with the run (the recorder's sink: RecordTarget.sink) */
  keepInference(row: InferenceRow): void;
}

/**
 * A run log for calls of milliseconds (a query): nothing is written while the call runs; as it
 * ends, one statement writes the run's row in its final state, every stage's output and the
 * records of its model calls. A query made 16 statements, 7 of them the run log's (the row,
 * three updates, two outputs, one inference); now one. What a watcher loses is the sight of a
 * query in progress, which lasts milliseconds with the builtin models. A call whose process dies
 * leaves no row (where a started one stayed started for ever), and a failed write is logged and
 * never fails the call, as with every run log.
 */
class WrittenAtEnd implements DeferredRunLog {
  private readonly stages = new Map<string, StageGroup>();
  private readonly outputs = new Map<string, KeptOutput>();
  private readonly rows: InferenceRow[] = [];
  private readonly createdAt = new Date();
  private last: WriteResult = "written";

  constructor(
    private readonly db: Db,
    readonly kind: RunKind,
    readonly id: string,
    private readonly init: RunLogInit,
    private readonly log: Log,
  ) {
    for (const st of runLogs[kind].stages) this.stages.set(st.name, newGroup());
  }

  private state(stage: string): StageGroup | undefined {
    const st = this.stages.get(stage);
    if (!st) this.log(`run log ${this.kind} ${this.id}: no stage ${stage} in this log`, stage);
    return st;
  }

  start(stage: string, at = new Date()): void {
    const st = this.state(stage);
    if (st) startGroup(st, at);
  }

  done(stage: string, error: Error | null, at = new Date()): void {
    const st = this.state(stage);
    if (st) endGroup(st, error ? errorText(error) : null, at);
  }

  skip(stage: string): void {
    const st = this.state(stage);
    if (st) skipGroup(st);
  }

  addInference(stage: string, inferenceId: string): void {
    const st = this.state(stage);
    if (!st) return;
    if (!runLogs[this.kind].stages.find((d) => d.name === stage)?.model) {
      this.log(`run log ${this.kind} ${this.id}: stage ${stage} runs no models`, inferenceId);
      return;
    }
    st.inferenceIds.push(inferenceId);
  }

  keepInference(row: InferenceRow): void {
    this.rows.push(row);
  }

  output(stage: string, itemIndex: number | null, value: unknown, startedAt: Date, finishedAt: Date): void {
    if (!this.state(stage)) return;
    // of two for the same stage and item, the later (as keepOutputs)
    this.outputs.set(`${stage}\u0000${itemIndex ?? 0}`, { stage, itemIndex: itemIndex ?? 0, output: value, startedAt, finishedAt });
  }

  async settle(): Promise<WriteResult> {
    return this.last;
  }

  async finish(error: Error | null): Promise<WriteResult> {
    const now = new Date();
    for (const st of this.stages.values()) failIfStarted(st, ENDED_WHILE_RUNNING, now);
    const { stages } = runLogs[this.kind];
    const row: Record<string, unknown> = {
      id: this.id,
      datasetId: this.init.datasetId,
      userId: this.init.userId,
      params: this.init.params,
      status: error ? "failed" : "succeeded",
      error: error ? errorText(error) : null,
      createdAt: this.createdAt,
      startedAt: this.createdAt,
      finishedAt: now,
    };
    for (const def of stages) {
      const g = this.stages.get(def.name)!;
      const k = groupKeys(def);
      Object.assign(row, { [k.status]: g.status, [k.error]: g.error, [k.startedAt]: g.startedAt, [k.finishedAt]: g.finishedAt });
      if (k.inferenceIds) row[k.inferenceIds] = g.inferenceIds;
    }
    const at = { datasetId: this.init.datasetId, runId: this.id };
    const outputs = [...this.outputs.values()].map((k) => outputRow(at, k, now));
    try {
      await endWrites(this.db).write({ kind: this.kind, run: row, outputs, inferences: this.rows });
      this.last = "written";
    } catch (e) {
      this.last = "failed";
      this.log(`run log ${this.kind} ${this.id}: write failed`, e);
    }
    return this.last;
  }
}

/** What a deferred run log writes as its call ends: the run's row, its stages' outputs, its model records. */
interface EndWrite {
  kind: RunKind;
  run: Record<string, unknown>;
  outputs: Record<string, unknown>[];
  inferences: InferenceRow[];
}

/**
 * An INSERT of rows into a table as one jsonb parameter (jsonb_populate_recordset): its text is
 * the same for any number of rows, so that batches of every size share one prepared statement.
 * The columns are those some row gives (the others take their defaults); Dates go as ISO text.
 */
function insertJson(table: PgTable, rows: readonly Record<string, unknown>[]): SQL {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const keys = Object.keys(columns).filter((k) => rows.some((r) => r[k] !== undefined));
  const names = keys.map((k) => columns[k]!.name);
  const list = sql.join(
    names.map((n) => sql.identifier(n)),
    sql`, `,
  );
  const json = rows.map((r) => Object.fromEntries(keys.map((k, i) => [names[i], r[k] ?? null])));
  return sql`INSERT INTO ${table} (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::${table}, ${JSON.stringify(json)}::jsonb)`;
}

/** One statement writing these runs' rows, outputs and model records: the inserts but the last as data-modifying WITH queries. */
function endStatement(writes: readonly EndWrite[]): SQL {
  const parts: SQL[] = [];
  for (const kind of [...new Set(writes.map((w) => w.kind))]) {
    const of = writes.filter((w) => w.kind === kind);
    parts.push(insertJson(runLogs[kind].table, of.map((w) => w.run)));
    const outputs = of.flatMap((w) => w.outputs);
    if (outputs.length) parts.push(insertJson(outputTables[kind], outputs));
  }
  const records = writes.flatMap((w) => w.inferences);
  if (records.length) parts.push(insertJson(inferences, records as Record<string, unknown>[]));
  return sql.join(
    [...parts.slice(0, -1).map((p, i) => sql`${i === 0 ? sql`WITH` : sql`,`} ${sql.raw(`w${i}`)} AS (${p})`), parts.at(-1)!],
    sql` `,
  );
}

/** the most runs one statement writes */
const MOST_PER_WRITE = 64;

/**
 * The deferred run logs of one database, written together: a log that ends while another's
 * write is in flight waits for it and goes in the next statement with every other that ended
 * meanwhile (group commit). Alone, a log is written at once, as before; under load, one
 * statement and one commit serve many queries. Each finish still resolves once its own rows are
 * committed. A statement refused (one run's dataset deleted meanwhile) is tried again run by
 * run, so that one refused row never loses the others.
 */
class EndWrites {
  private readonly queue: { write: EndWrite; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing = false;

  constructor(private readonly db: Db) {}

  write(write: EndWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, MOST_PER_WRITE);
        try {
          await this.db.execute(flatSql(endStatement(batch.map((b) => b.write))));
          for (const b of batch) b.resolve();
        } catch (e) {
          if (batch.length === 1) {
            batch[0]!.reject(e);
            continue;
          }
          for (const b of batch) {
            try {
              await this.db.execute(flatSql(endStatement([b.write])));
              b.resolve();
            } catch (alone) {
              b.reject(alone);
            }
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

const endWriters = new WeakMap<Db, EndWrites>();

/** The database's writer of deferred run logs (one per database handle). */
function endWrites(db: Db): EndWrites {
  let w = endWriters.get(db);
  if (!w) endWriters.set(db, (w = new EndWrites(db)));
  return w;
}

/** A run log written once, as the call ends (see WrittenAtEnd): no statement until finish. */
export function createDeferredRunLog(db: Db, kind: RunKind, init: RunLogInit, options: { log?: Log } = {}): DeferredRunLog {
  return new WrittenAtEnd(db, kind, randomUUID(), init, options.log ?? defaultLog);
}

export interface RunLogOptions {
  log?: Log;
  /**
   * false: a start's write is queued and the stage runs at once (writes stay in order, and
   * finish waits for them all). For calls of a few milliseconds, such as a query, where a
   * watcher gains nothing from the stage being on disk before it runs. Also for outputs.
   */
  awaitWrites?: boolean;
  /**
   * The stage whose output for an Each item writes that item's outputs, held until then, in one
   * statement (remember: "store", so a chunk's outputs go in as it is stored). Unset: each output
   * is written as it comes.
   */
  outputsWith?: string;
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
  return new TableRunLog(db, kind, id, init.datasetId, options.log ?? defaultLog, options.awaitWrites ?? true, 0, options.outputsWith ?? null);
}

/** A queued run's row. */
const queuedRow = (id: string, init: RunLogInit) => ({
  id,
  datasetId: init.datasetId,
  userId: init.userId,
  params: init.params,
  embeddingSpace: init.embeddingSpace ?? null,
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
  return new TableRunLog(db, kind, run.id, run.datasetId, options.log ?? defaultLog, true, run.attempt ?? 0, options.outputsWith ?? null);
}
