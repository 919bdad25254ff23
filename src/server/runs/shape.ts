import type { RunKind, RunStatus, StageDef, StagePolicy, StageStatus } from "../../lib/stages";
import type { AttemptError } from "../db/schema/run-logs";
import { anyGroupFailed, readGroup } from "../db/schema/stage-group";
import type { RunProgress } from "./progress";

/** How the runs API presents a run: the same shape for both logs. */
export interface StageView {
  name: string;
  model: boolean;
  /** from the stage's definition: does its failure end the run (fatal) or flag it (advisory) */
  policy: StagePolicy;
  /** the stage's capability is not in this version: it never runs */
  placeholder: boolean;
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
  /** succeeded, with a failed stage (an advisory one, or one whose output could not be kept) */
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
    const g = readGroup(row, s);
    return {
      name: s.name,
      model: s.model,
      policy: s.policy,
      placeholder: s.placeholder === true,
      status: g.status,
      error: g.error,
      startedAt: g.startedAt,
      finishedAt: g.finishedAt,
      durationMs: span(g.startedAt, g.finishedAt),
      inferenceIds: g.inferenceIds,
    };
  });
}

export function summarize(kind: RunKind, dataset: string, row: Row, stages: readonly StageDef[]): RunSummary {
  const flagged = row.status === "succeeded" && anyGroupFailed(row, stages);
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
