import type { Db, SessionLock, SessionLockOptions } from "../../db/client";
import type { RunEnd } from "./waiters";

/** A queued run this process has claimed (its row is now `started`, with our lease). */
export interface ClaimedRun {
  id: string;
  datasetId: string;
  /** submission order (gb_remember_runs.seq) */
  seq: number;
  params: Record<string, unknown>;
  /** 1 for the first claim, then one more per claim: the fencing token of this claim */
  attempt: number;
  /** the submitting process's embeddings (gb_remember_runs.embedding_space; null: not recorded) */
  embeddingSpace: string | null;
}

/**
 * Whether an attempt still holds its run, read from the run's row (status, attempts, lease_owner):
 * held (started, this attempt, our lease), finished (this attempt ended it: succeeded or failed),
 * or lost (taken back, claimed again, or gone). See leases.ts.
 */
export type Hold = "held" | "finished" | "lost";

/** How an attempt that did not succeed is recorded (gb_remember_runs.attempt_errors[].kind). */
export type AttemptKind = "abandoned" | "transient" | "permanent" | "handed_back";

/** When a run is tried again, and how often at most. */
export interface RetryPolicy {
  /** counted attempts (abandoned, transient) after which the run fails (GB_REMEMBER_MAX_ATTEMPTS) */
  maxAttempts: number;
  /** the wait after the first failed attempt; it doubles after each (GB_REMEMBER_RETRY_BASE_MS) */
  baseMs: number;
  /** the longest wait (GB_REMEMBER_RETRY_MAX_MS) */
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 12, baseMs: 2_000, maxMs: 600_000 };

export interface RememberManagerOptions {
  db: Db;
  /**
   * Runs the claimed run to its end (the pipeline). Resolves once it has finished the run log
   * (succeeded). Throws when the attempt did not succeed: the manager then ends the attempt by
   * what was thrown (outcome.ts): a transient error queues the run again with a backoff, a
   * shutdown hands it back, a lost lease leaves it to whoever holds it now, anything else fails
   * it. If it resolves and the run is still started, the run fails (a forgotten finish must never
   * block the dataset's queue). `signal` aborts when the run must stop: shutdown, or lost lease.
   */
  execute: (run: ClaimedRun, signal: AbortSignal) => Promise<void>;
  /** max runs at once in this process, across datasets (GB_REMEMBER_CONCURRENCY, default 2) */
  concurrency: number;
  /** default 30_000; the heartbeat renews every leaseMs/3 */
  leaseMs?: number;
  /** default 500: how often to look for work and for abandoned runs */
  pollMs?: number;
  retry?: RetryPolicy;
  /**
   * Takes this process's liveness lock (Database.sessionLock, Postgres): while it holds the lock,
   * other processes know it is alive; once it dies, they take its runs back at once instead of
   * waiting for its leases to expire. Absent or null: leases alone.
   */
  liveness?: (key: bigint, opts: SessionLockOptions) => Promise<SessionLock | null>;
  /**
   * The embeddings this process stores runs with (models/factory.ts, embeddingSpace), locked in
   * shared mode beside the liveness lock: a run submitted by a process of other embeddings is
   * claimed only while no live process holds those (claimNext). Absent: every run is claimed.
   */
  embeddingSpace?: string;
  /**
   * This manager's process is the only one on its database (PGlite): every run found started
   * when it first starts belongs to a process that died, and is taken back at once.
   */
  sole?: boolean;
  /** default `${hostname}:${pid}:${random}` */
  owner?: string;
  log?: (message: string, error?: unknown) => void;
}

export type FinalStatus = "succeeded" | "failed";

/** What stop() did with the runs in flight. */
export interface StopReport {
  /** runs that ended within the grace period */
  finished: number;
  /** runs still in flight at its end, given back to the queue */
  handedBack: number;
}

export interface RememberManager {
  /** begins polling; idempotent */
  start(): void;
  /**
   * Stops claiming. Without `graceMs`, waits for the runs in progress to end. With it, waits up to
   * that long, then aborts the runs still in flight and gives them back to the queue (another
   * process, or this one's next start, resumes them from what they stored).
   */
  stop(opts?: { graceMs?: number }): Promise<StopReport>;
  /** look for work now (called after a submit) */
  poke(): void;
  /**
   * Resolves with the run's final status once it is succeeded or failed (polls the row every
   * pollMs; also woken by in-process completion). A run queued again for a retry is not final.
   * Rejects if the run does not exist, or after timeoutMs (no timeout when omitted). Works
   * whether or not this manager is started: the run may be executed by another process. When
   * this manager stops first, resolves with the status the run is left in (`released`: queued
   * for a run handed back), so that a submit that waited answers with its run's id.
   */
  waitFor(runId: string, timeoutMs?: number): Promise<RunEnd>;
}
