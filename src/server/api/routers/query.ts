import { ask } from "../../query/ask";
import { AskInput, AskResultOutput } from "../../query/schemas";
import { readProcedure, router } from "../trpc";

export const queryRouter = router({
  // a mutation (it writes its run-log row), but reading memory: viewers may ask
  ask: readProcedure
    .meta({ openapi: { method: "POST", path: "/query", tags: ["query"], summary: "Ask a question; the answer cites its sources as [n]" } })
    .input(AskInput)
    .output(AskResultOutput)
    .mutation(({ ctx, input }) => ask({ app: ctx.app, caller: ctx.caller, input })),
});
