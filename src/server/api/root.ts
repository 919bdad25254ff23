import { datasetsRouter } from "./routers/datasets";
import { graphRouter } from "./routers/graph";
import { queryRouter } from "./routers/query";
import { rememberRouter } from "./routers/remember";
import { runsRouter } from "./routers/runs";
import { systemRouter } from "./routers/system";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  system: systemRouter,
  datasets: datasetsRouter,
  runs: runsRouter,
  remember: rememberRouter,
  query: queryRouter,
  graph: graphRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
