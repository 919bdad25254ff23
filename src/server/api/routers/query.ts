import { ask } from "../../query/ask";
import { AskInput } from "../../query/schemas";
import { readProcedure, router } from "../trpc";

export const queryRouter = router({
  // a mutation (it writes its run-log row), but reading memory: viewers may ask
  ask: readProcedure.input(AskInput).mutation(({ ctx, input }) => ask({ app: ctx.app, caller: ctx.caller, input })),
});
