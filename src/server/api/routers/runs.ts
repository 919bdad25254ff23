import { z } from "zod";
import { RememberStages, type RunKind } from "../../../lib/stages";
import { rememberChanges } from "../../remember/changes";
import { rememberOutputs } from "../../remember/read";
import { getInference, getRun } from "../../runs/get";
import { listRuns } from "../../runs/list";
import { GetInferenceInput, GetRunInput, ListRunsInput } from "../../runs/schemas";
import { publicProcedure, router } from "../trpc";

const OutputsInput = GetRunInput.extend({
  stage: z.enum(RememberStages.map((s) => s.name) as [string, ...string[]]).optional(),
});

/** remember and query runs are served the same way, over their two logs. */
const runLogProcedures = (kind: RunKind) => ({
  list: publicProcedure.input(ListRunsInput).query(({ ctx, input }) => listRuns({ db: ctx.db, kind, input })),
  get: publicProcedure.input(GetRunInput).query(({ ctx, input }) => getRun({ db: ctx.db, kind, id: input.id })),
});

export const runsRouter = router({
  remember: router({
    ...runLogProcedures("remember"),
    outputs: publicProcedure
      .input(OutputsInput)
      .query(({ ctx, input }) => rememberOutputs({ db: ctx.db, id: input.id, stage: input.stage })),
    changes: publicProcedure.input(GetRunInput).query(({ ctx, input }) => rememberChanges({ db: ctx.db, id: input.id })),
  }),
  query: router(runLogProcedures("query")),
  inference: router({
    get: publicProcedure.input(GetInferenceInput).query(({ ctx, input }) => getInference({ db: ctx.db, id: input.id })),
  }),
});
