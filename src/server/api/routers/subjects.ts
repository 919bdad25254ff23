import { purge } from "../../subjects/purge-verb";
import { PurgeInput, PurgeReceiptOutput } from "../../subjects/schemas";
import { adminProcedure, router } from "../trpc";

export const subjectsRouter = router({
  /** forget a person everywhere: their texts, what only they support, their runs' data */
  purge: adminProcedure
    .meta({ openapi: { method: "POST", path: "/subjects/purge", tags: ["subjects"], summary: "Forget a person everywhere (by userId or entityId)" } })
    .input(PurgeInput)
    .output(PurgeReceiptOutput)
    .mutation(({ ctx, input }) => purge({ db: ctx.db, caller: ctx.caller, input, stmCache: ctx.app.stmCache })),
});
