import type { Db } from "../../db/client";

/** A queued run this process has claimed (its row is now `started`, with our lease). */
export interface ClaimedRun {
  id: string;
  datasetId: string;
  /** submission order (gb_remember_runs.seq) */
  seq: number;
  params: Record<string, unknown>;
}

export interface RememberManagerOptions {
  db: Db;
  /**
   * Runs the claimed run to its end (the pipeline; it finishes the run log itself, and must
   * await that write before resolving). May throw: then the manager marks the run failed with
   * that error (if still started). If it resolves and the run is still started, the run is
   * marked failed too, so that a forgotten finish never blocks the dataset's queue.
   */
  execute: (run: ClaimedRun) => Promise<void>;
  /** max runs at once in this process, across datasets (GB_REMEMBER_CONCURRENCY, default 2) */
  concurrency: number;
  /** default 30_000; the heartbeat renews every leaseMs/3 */
  leaseMs?: number;
  /** default 500: how often to look for work and for expired leases */
  pollMs?: number;
  /** default `${hostname}:${pid}:${random}` */
  owner?: string;
  log?: (message: string, error?: unknown) => void;
}

export type FinalStatus = "succeeded" | "failed";

export interface RememberManager {
  /** begins polling; idempotent */
  start(): void;
  /** stops claiming; waits for runs in progress in this process to end */
  stop(): Promise<void>;
  /** look for work now (called after a submit) */
  poke(): void;
  /**
   * Resolves with the run's final status once it is succeeded or failed (polls the row every
   * pollMs; also woken by in-process completion). Rejects if the run does not exist, or after
   * timeoutMs (no timeout when omitted). Works whether or not this manager is started: the run
   * may be executed by another process.
   */
  waitFor(runId: string, timeoutMs?: number): Promise<{ status: FinalStatus; error: string | null }>;
}
