import { getRun } from "../../runs/get";
import { submitRemember } from "../../remember/submit";
import { GetRememberInput, RememberInput, SubmitResultOutput } from "../../remember/schemas";
import { RunDetailOutput } from "../../runs/schemas";
import { readProcedure, router, writeProcedure } from "../trpc";

export const rememberRouter = router({
  submit: writeProcedure
    .meta({ openapi: { method: "POST", path: "/remember", tags: ["remember"], summary: "Remember a text (with wait: true, when its run has ended)" } })
    .input(RememberInput)
    .output(SubmitResultOutput)
    .mutation(({ ctx, input }) => submitRemember({ app: ctx.app, caller: ctx.caller, input })),
  get: readProcedure
    .meta({ openapi: { method: "GET", path: "/remember/{id}", tags: ["remember"], summary: "A remember run: its status, stages and progress" } })
    .input(GetRememberInput)
    .output(RunDetailOutput)
    .query(({ ctx, input }) => getRun({ db: ctx.db, scope: ctx.caller, kind: "remember", id: input.id })),
});
