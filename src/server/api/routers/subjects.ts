import { purge } from "../../subjects/purge-verb";
import { PurgeInput } from "../../subjects/schemas";
import { adminProcedure, router } from "../trpc";

export const subjectsRouter = router({
  /** forget a person everywhere: their texts, what only they support, their runs' data */
  purge: adminProcedure.input(PurgeInput).mutation(({ ctx, input }) => purge({ db: ctx.db, caller: ctx.caller, input, stmCache: ctx.app.stmCache })),
});
