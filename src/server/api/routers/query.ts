import { ask } from "../../query/ask";
import { AskInput } from "../../query/schemas";
import { publicProcedure, router } from "../trpc";

export const queryRouter = router({
  ask: publicProcedure.input(AskInput).mutation(({ ctx, input }) => ask({ app: ctx.app, input, userId: ctx.userId })),
});
