import { datasetsRouter } from "./routers/datasets";
import { runsRouter } from "./routers/runs";
import { systemRouter } from "./routers/system";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  system: systemRouter,
  datasets: datasetsRouter,
  runs: runsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
