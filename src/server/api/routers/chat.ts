import { TurnInput } from "../../chat/schemas";
import { chatTurn } from "../../chat/turn";
import { router, writeProcedure } from "../trpc";

export const chatRouter = router({
  /** one chat turn with short- and long-term memory (src/server/chat/turn.ts) */
  turn: writeProcedure.input(TurnInput).mutation(({ ctx, input }) => chatTurn({ app: ctx.app, caller: ctx.caller, input })),
});
