import { getRun } from "../../runs/get";
import { submitRemember } from "../../remember/submit";
import { GetRememberInput, RememberInput } from "../../remember/schemas";
import { publicProcedure, router } from "../trpc";

export const rememberRouter = router({
  submit: publicProcedure
    .input(RememberInput)
    .mutation(({ ctx, input }) => submitRemember({ app: ctx.app, input, userId: ctx.userId })),
  get: publicProcedure.input(GetRememberInput).query(({ ctx, input }) => getRun({ db: ctx.db, kind: "remember", id: input.id })),
});
