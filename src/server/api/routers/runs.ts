import { z } from "zod";
import { type RunKind, StageTables } from "../../../lib/stages";
import { rememberChanges } from "../../remember/changes";
import { countRuns } from "../../runs/counts";
import { getInference, getRun } from "../../runs/get";
import { listOutputs } from "../../runs/outputs";
import { listRuns } from "../../runs/list";
import { CountRunsInput, GetInferenceInput, GetRunInput, ListRunsInput, RunDetailOutput, RunListOutput, StageOutputsOutput } from "../../runs/schemas";
import { runTimeline } from "../../runs/timeline";
import { readProcedure, router } from "../trpc";

const outputsInput = (kind: RunKind) =>
  GetRunInput.extend({ stage: z.enum(StageTables[kind].map((s) => s.name) as [string, ...string[]]).optional() });

/** remember and query runs are served the same way, over their two logs (REST: /runs/remember/…, /runs/query/…). */
const runLogProcedures = (kind: RunKind) => ({
  list: readProcedure
    .meta({ openapi: { method: "GET", path: `/runs/${kind}`, tags: ["runs"], summary: `A dataset's ${kind} runs, newest first` } })
    .input(ListRunsInput)
    .output(RunListOutput)
    .query(({ ctx, input }) => listRuns({ db: ctx.db, scope: ctx.caller, kind, input })),
  /** runs per status and flagged, for the run views' tiles */
  counts: readProcedure.input(CountRunsInput).query(({ ctx, input }) => countRuns({ db: ctx.db, scope: ctx.caller, kind, input })),
  get: readProcedure
    .meta({ openapi: { method: "GET", path: `/runs/${kind}/{id}`, tags: ["runs"], summary: `A ${kind} run with its stages` } })
    .input(GetRunInput)
    .output(RunDetailOutput)
    .query(({ ctx, input }) => getRun({ db: ctx.db, scope: ctx.caller, kind, id: input.id })),
  /** what each stage kept: remember's stage outputs, query's injection receipts */
  outputs: readProcedure
    .meta({ openapi: { method: "GET", path: `/runs/${kind}/{id}/outputs`, tags: ["runs"], summary: `What each stage of a ${kind} run kept` } })
    .input(outputsInput(kind))
    .output(StageOutputsOutput)
    .query(({ ctx, input }) => listOutputs({ db: ctx.db, scope: ctx.caller, kind, id: input.id, stage: input.stage })),
  /** the timings of a run's model calls and stage items, for the waterfall */
  timeline: readProcedure.input(GetRunInput).query(({ ctx, input }) => runTimeline({ db: ctx.db, scope: ctx.caller, kind, id: input.id })),
});

export const runsRouter = router({
  remember: router({
    ...runLogProcedures("remember"),
    changes: readProcedure.input(GetRunInput).query(({ ctx, input }) => rememberChanges({ db: ctx.db, scope: ctx.caller, id: input.id })),
  }),
  query: router(runLogProcedures("query")),
  inference: router({
    get: readProcedure.input(GetInferenceInput).query(({ ctx, input }) => getInference({ db: ctx.db, scope: ctx.caller, id: input.id })),
  }),
});
