import { Worker } from "node:worker_threads";
import { ThreadClient } from "../threads/rpc";
import { inBackgroundLane, LaneLock } from "./lanes";
import { fromSource, sourceWorker } from "../threads/source";

/*
 * PGlite on a thread of its own. PGlite is Postgres compiled to WebAssembly: every statement runs
 * synchronously on the thread that holds it. On the app's thread a remember's thousands of
 * statements took that thread from every request (a health check waited behind a transaction's
 * whole work), and the database's work and the models' could never use two cores at once. So the
 * database runs in a worker thread (pglite-worker.ts), and this is its handle on the app's
 * thread: the part of PGlite's interface that drizzle uses (query, exec, transaction), and
 * dumpDataDir and close.
 *
 * As in PGlite itself, a transaction has the database to itself: a statement from elsewhere waits
 * until it ends (one lock, first come first served), since the thread's PGlite is one session.
 */

export interface Results<T = unknown> {
  rows: T[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}

export interface QueryOptions {
  rowMode?: "array" | "object";
  /** type parsers by type id; the types named keep their text as it is (drizzle's only use) */
  parsers?: Record<number, unknown>;
}

/** What the thread is asked (pglite-worker.ts answers). */
export type PgliteRequest =
  | { op: "open"; dataDir?: string; loadDataDir?: ArrayBuffer }
  | { op: "query"; sql: string; params: unknown[]; rowMode: "array" | "object"; rawTypes: number[]; generic?: boolean }
  | { op: "exec"; sql: string }
  | { op: "dump"; compression: "none" | "gzip" | "auto" }
  | { op: "close" };

export interface ThreadTransaction {
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string): Promise<Results[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}

function startThread(): Worker {
  // spelled out for the bundler, which makes the file a worker chunk (threads/source.ts)
  return fromSource() ? sourceWorker(new URL("./pglite-worker.ts", import.meta.url)) : new Worker(new URL("./pglite-worker.ts", import.meta.url));
}

export class PgliteThread {
  private readonly thread = new ThreadClient(startThread(), "the PGlite thread");
  /** the lock of its holders (a transaction, or one statement), a request's before a background run's (lanes.ts) */
  private readonly lock = new LaneLock();
  private closing = false;

  private constructor() {}

  /** Starts the thread and opens the database in it (in memory without dataDir; from a dump with loadDataDir). */
  static async create(options: { dataDir?: string; loadDataDir?: Blob } = {}): Promise<PgliteThread> {
    const pg = new PgliteThread();
    try {
      const loadDataDir = options.loadDataDir ? await options.loadDataDir.arrayBuffer() : undefined;
      await pg.send({ op: "open", dataDir: options.dataDir, loadDataDir }, loadDataDir ? [loadDataDir] : []);
    } catch (e) {
      await pg.thread.terminate();
      throw e;
    }
    return pg;
  }

  get closed(): boolean {
    return this.closing || this.thread.ended !== null;
  }

  private send<T>(req: PgliteRequest, transfer: ArrayBuffer[] = []): Promise<T> {
    return this.thread.call<T>(req, transfer);
  }

  /** Runs `fn` holding the lock: nobody else's statement runs in between. */
  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.lock.acquire(inBackgroundLane());
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private run<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}, generic = false): Promise<Results<T>> {
    const rawTypes = Object.keys(options.parsers ?? {}).map(Number);
    return this.send({ op: "query", sql, params, rowMode: options.rowMode ?? "object", rawTypes, ...(generic ? { generic } : {}) });
  }

  private runExec(sql: string): Promise<Results[]> {
    return this.send({ op: "exec", sql });
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.exclusive(() => this.run<T>(sql, params, options));
  }

  exec(sql: string): Promise<Results[]> {
    return this.exclusive(() => this.runExec(sql));
  }

  /**
   * The same database, whose statements are planned once for any values (plan_cache_mode
   * force_generic_plan while each runs; the rest keep force_custom_plan): Database.genericDb's
   * client (client.ts). A transaction's statements too.
   */
  generic(): Pick<PgliteThread, "query" | "exec" | "transaction"> {
    return {
      query: (sql, params, options) => this.exclusive(() => this.run(sql, params, options, true)),
      exec: (sql) => this.exec(sql),
      transaction: (fn) => this.transaction(fn, true),
    };
  }

  /** BEGIN, `fn`, COMMIT (ROLLBACK if it throws), holding the lock throughout, as PGlite's own. */
  transaction<T>(fn: (tx: ThreadTransaction) => Promise<T>, generic = false): Promise<T> {
    return this.exclusive(async () => {
      await this.runExec("BEGIN");
      let closed = false;
      const check = () => {
        if (closed) throw new Error("Transaction is closed");
      };
      const tx: ThreadTransaction = {
        query: async (sql, params, options) => (check(), this.run(sql, params, options, generic)),
        exec: async (sql) => (check(), this.runExec(sql)),
        rollback: async () => {
          check();
          await this.runExec("ROLLBACK");
          closed = true;
        },
        get closed() {
          return closed;
        },
      };
      try {
        const result = await fn(tx);
        if (!closed) {
          closed = true;
          await this.runExec("COMMIT");
        }
        return result;
      } catch (e) {
        if (!closed) {
          closed = true;
          await this.runExec("ROLLBACK").catch(() => {});
        }
        throw e;
      }
    });
  }

  /** The data dir as a tarball (tests and the bench start other databases from it). */
  async dumpDataDir(compression: "none" | "gzip" | "auto" = "none"): Promise<Blob> {
    return new Blob([await this.exclusive(() => this.send<ArrayBuffer>({ op: "dump", compression }))]);
  }

  /** Closes the database and ends the thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    try {
      await this.exclusive(() => this.send({ op: "close" }));
    } finally {
      await this.thread.terminate(new Error("PGlite is closed"));
    }
  }
}
