import type { RunKind } from "../../../lib/stages";
import { getInference, getRun } from "../../runs/get";
import { listRuns } from "../../runs/list";
import { GetInferenceInput, GetRunInput, ListRunsInput } from "../../runs/schemas";
import { publicProcedure, router } from "../trpc";

/** remember and query runs are served the same way, over their two logs. */
const runLogRouter = (kind: RunKind) =>
  router({
    list: publicProcedure
      .input(ListRunsInput)
      .query(({ ctx, input }) => listRuns({ db: ctx.db, kind, input })),
    get: publicProcedure
      .input(GetRunInput)
      .query(({ ctx, input }) => getRun({ db: ctx.db, kind, id: input.id })),
  });

export const runsRouter = router({
  remember: runLogRouter("remember"),
  query: runLogRouter("query"),
  inference: router({
    get: publicProcedure
      .input(GetInferenceInput)
      .query(({ ctx, input }) => getInference({ db: ctx.db, id: input.id })),
  }),
});
