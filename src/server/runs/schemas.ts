import { z } from "zod";
import { Flag, text } from "../input";
import { RunStatuses, StageStatuses } from "../../lib/stages";
import type { AttemptError } from "../db/schema/run-logs";
import { DatasetName } from "../datasets/schemas";
import { outputSchema, Timestamp } from "../output";
import type { RunList } from "./list";
import type { StageOutput } from "./outputs";
import type { RunProgress } from "./progress";
import type { RunDetail, RunSummary, StageView } from "./shape";

export const ListRunsInput = z.object({
  dataset: DatasetName,
  status: z.enum(RunStatuses).optional(),
  /** only runs that succeeded with a failed (advisory) stage */
  flagged: Flag.optional(),
  cursor: text().max(200).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListRunsInput = z.infer<typeof ListRunsInput>;

export const GetRunInput = z.object({ id: z.uuid() });
export type GetRunInput = z.infer<typeof GetRunInput>;

export const GetInferenceInput = z.object({ id: z.uuid() });

export const CountRunsInput = z.object({ dataset: DatasetName });
export type CountRunsInput = z.infer<typeof CountRunsInput>;

/* What the run verbs answer (src/server/output.ts): the run logs' shapes of shape.ts and list.ts. */

const StageViewOutput = outputSchema<StageView>()(
  z.object({
    name: z.string(),
    model: z.boolean(),
    policy: z.enum(["fatal", "advisory"]),
    placeholder: z.boolean(),
    status: z.enum(StageStatuses),
    error: z.string().nullable(),
    startedAt: Timestamp.nullable(),
    finishedAt: Timestamp.nullable(),
    durationMs: z.number().nullable(),
    inferenceIds: z.array(z.string()),
  }),
);

export const RunSummaryOutput = outputSchema<RunSummary>()(
  z.object({
    kind: z.enum(["remember", "query"]),
    id: z.string(),
    dataset: z.string(),
    userId: z.string().nullable(),
    status: z.enum(RunStatuses),
    error: z.string().nullable(),
    createdAt: Timestamp,
    startedAt: Timestamp.nullable(),
    finishedAt: Timestamp.nullable(),
    durationMs: z.number().nullable(),
    flagged: z.boolean(),
  }),
);

export const RunListOutput = outputSchema<RunList>()(
  z.object({
    items: z.array(RunSummaryOutput),
    nextCursor: z.string().nullable(),
    counts: z.record(z.enum(RunStatuses), z.number()),
  }),
);

const RunProgressOutput = outputSchema<RunProgress>()(
  z.object({
    stagesDone: z.number(),
    stagesTotal: z.number(),
    chunksDone: z.number(),
    chunksTotal: z.number().nullable(),
    queuePosition: z.number().nullable(),
  }),
);

const AttemptErrorOutput = outputSchema<AttemptError>()(
  z.object({
    attempt: z.number(),
    at: z.string(),
    kind: z.enum(["abandoned", "transient", "permanent", "handed_back"]),
    error: z.string(),
  }),
);

export const RunDetailOutput = outputSchema<RunDetail>()(
  RunSummaryOutput.extend({
    /** the run's input as it was kept */
    params: z.record(z.string(), z.unknown()),
    stages: z.array(StageViewOutput),
    progress: RunProgressOutput.nullable(),
    attempt: z.number(),
    attempts: z.array(AttemptErrorOutput),
    retryAt: Timestamp.nullable(),
    idempotencyKey: z.string().nullable(),
  }),
);

/**
 * runs.*.outputs. Loose on purpose: `output` is whatever the stage kept (a chunk plan, an
 * extraction, retrieval receipts …), a shape per stage and version that the run pages read.
 */
export const StageOutputsOutput = outputSchema<StageOutput[]>()(
  z.array(
    z.object({
      stage: z.string(),
      itemIndex: z.number(),
      output: z.unknown().meta({ description: "what the stage kept for the item: its own shape per stage" }),
      startedAt: Timestamp,
      finishedAt: Timestamp,
      createdAt: Timestamp,
    }),
  ),
);
