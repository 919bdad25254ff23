import { accountRouter, auditRouter, keysRouter, teamsRouter } from "./routers/access";
import { chatRouter } from "./routers/chat";
import { datasetsRouter } from "./routers/datasets";
import { graphRouter } from "./routers/graph";
import { queryRouter } from "./routers/query";
import { rememberRouter } from "./routers/remember";
import { runsRouter } from "./routers/runs";
import { stmRouter } from "./routers/stm";
import { subjectsRouter } from "./routers/subjects";
import { systemRouter } from "./routers/system";
import { settleCoercion } from "./coercion";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  system: systemRouter,
  account: accountRouter,
  teams: teamsRouter,
  keys: keysRouter,
  audit: auditRouter,
  datasets: datasetsRouter,
  runs: runsRouter,
  remember: rememberRouter,
  query: queryRouter,
  graph: graphRouter,
  subjects: subjectsRouter,
  stm: stmRouter,
  chat: chatRouter,
});

// the REST routes' inputs coerce (or not) from now on, whichever door is called first (coercion.ts)
settleCoercion(appRouter);

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
