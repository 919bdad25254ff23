import { getRun } from "../../runs/get";
import { submitRemember } from "../../remember/submit";
import { GetRememberInput, RememberInput } from "../../remember/schemas";
import { readProcedure, router, writeProcedure } from "../trpc";

export const rememberRouter = router({
  submit: writeProcedure.input(RememberInput).mutation(({ ctx, input }) => submitRemember({ app: ctx.app, caller: ctx.caller, input })),
  get: readProcedure
    .input(GetRememberInput)
    .query(({ ctx, input }) => getRun({ db: ctx.db, scope: ctx.caller, kind: "remember", id: input.id })),
});
