import type { RunKind, RunStatus, StageDef, StageStatus } from "../../lib/stages";
import type { AttemptError } from "../db/schema/run-logs";
import type { RunProgress } from "./progress";

/** How the runs API presents a run: the same shape for both logs. */
export interface StageView {
  name: string;
  model: boolean;
  status: StageStatus;
  error: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  durationMs: number | null;
  inferenceIds: string[];
}

export interface RunSummary {
  kind: RunKind;
  id: string;
  dataset: string;
  userId: string | null;
  status: RunStatus;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  durationMs: number | null;
  /** succeeded, with a failed (advisory) stage */
  flagged: boolean;
}

export interface RunDetail extends RunSummary {
  params: Record<string, unknown>;
  stages: StageView[];
  /** remember runs: stages and chunks done, place in the queue; null for query runs */
  progress: RunProgress | null;
  /** remember runs: claims so far (1 for a run that ran once; 0 before it starts); query runs: 1 */
  attempt: number;
  /** remember runs: the attempts that ended without succeeding (a crash, an outage, a shutdown), oldest first */
  attempts: AttemptError[];
  /** remember runs queued again after a failed attempt: not tried before this */
  retryAt: Date | null;
  /** remember runs: the client's idempotency key, if it sent one */
  idempotencyKey: string | null;
}

type Row = Record<string, unknown> & {
  id: string;
  userId: string | null;
  status: RunStatus;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
};

const span = (a: Date | null, b: Date | null) => (a && b ? b.getTime() - a.getTime() : null);

export function stageViews(row: Record<string, unknown>, stages: readonly StageDef[]): StageView[] {
  return stages.map((s) => {
    const startedAt = (row[`${s.name}_started_at`] as Date | null) ?? null;
    const finishedAt = (row[`${s.name}_finished_at`] as Date | null) ?? null;
    return {
      name: s.name,
      model: s.model,
      status: row[`${s.name}_status`] as StageStatus,
      error: (row[`${s.name}_error`] as string | null) ?? null,
      startedAt,
      finishedAt,
      durationMs: span(startedAt, finishedAt),
      inferenceIds: s.model ? ((row[`${s.name}_inference_ids`] as string[] | null) ?? []) : [],
    };
  });
}

export function summarize(kind: RunKind, dataset: string, row: Row, stages: readonly StageDef[]): RunSummary {
  const flagged =
    row.status === "succeeded" && stages.some((s) => row[`${s.name}_status`] === "failed");
  return {
    kind,
    id: row.id,
    dataset,
    userId: row.userId,
    status: row.status,
    error: row.error,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    durationMs: span(row.startedAt, row.finishedAt),
    flagged,
  };
}
