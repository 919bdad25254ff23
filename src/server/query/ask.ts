import type { App } from "../app";
import { actorId, type Caller } from "../auth/caller";
import { resolveDataset } from "../datasets/datasets";
import { logError } from "../errors";
import { resolveStageOptions } from "../models/factory";
import { recordedModels } from "../models/record";
import { run } from "../pipeline";
import { createDeferredRunLog } from "../runs/run-log";
import { refuseSession } from "../stages";
import type { Scope } from "../stm/schemas";
import { context } from "../stm/stm";
import { QueryJob } from "./job";
import type { ListName } from "./lists/registry";
import { queryPipeline } from "./pipeline";
import type { AskInput, AskResult } from "./schemas";

/** The scope's short-term memory for the answer's prompt: the keys it holds and their text. */
async function shortTermOf(app: App, caller: Caller, dataset: string, scope: Scope): Promise<{ keys: string[]; text: string }> {
  const c = await context({ app, caller, input: { dataset, scope, mode: "mixed" } });
  const keys = [c.sameChannel, ...c.otherChannels].filter((e) => e !== null).map((e) => e.key);
  return { keys, text: c.text };
}

/**
 * query.ask: runs the query pipeline in the caller's request (no queue), under its run log.
 * `skipLists` (scripts only: the eval's ablation) leaves those retrieval lists out of the fusion.
 */
export async function ask({ app, caller, input, skipLists }: { app: App; caller: Caller; input: AskInput; skipLists?: readonly ListName[] }): Promise<AskResult> {
  refuseSession(input.session);
  const db = app.database.db;
  await app.rateLimits.take("query", caller);
  const dataset = await resolveDataset(db, input.dataset, caller);
  // read before the run log starts: a failure here (the cache unreachable) leaves no run behind
  const shortTerm = input.scope ? await shortTermOf(app, caller, input.dataset, input.scope) : null;
  const params = { ...input, asOf: input.asOf?.toISOString() ?? null };
  // A query takes milliseconds: its run log, outputs and model records are written together as it
  // ends, in one statement. On a Postgres server that statement is planned once per connection
  // (genericDb): its plan is the same whatever it writes, and planning it each time was 0.5 ms of
  // the server's CPU, more than running it. Not on PGlite, whose thread runs each of genericDb's
  // statements between two SETs: no cheaper there. (The term weights' statement stays planned
  // each time on both: on genericDb it took 0.6-1.0 ms a call against 0.4-0.5.)
  const planOnce = app.database.driver === "postgres" ? app.database.genericDb : db;
  const log = createDeferredRunLog(planOnce, "query", { datasetId: dataset.id, userId: actorId(caller), params });
  const runId = log.id;
  const models = recordedModels(app.provider, {
    db,
    datasetId: dataset.id,
    runKind: "query",
    runId,
    stageOptions: resolveStageOptions(app.stageOptions, input.options?.stages),
    sink: (row) => log.keepInference(row),
  });
  const job = new QueryJob(
    {
      db,
      listsDb: app.database.genericDb,
      models,
      datasetId: dataset.id,
      runId,
      pgvector: app.database.vector,
      memo: app.vectorMemo,
      tokenBudget: app.env.GB_QUERY_TOKEN_BUDGET,
      enrich: app.enrich,
      skipLists,
      shortTerm,
    },
    input,
  );
  let error: Error | null = null;
  try {
    await run(queryPipeline, job, log, { log: logError });
  } catch (e) {
    error = e instanceof Error ? e : new Error(String(e));
  }
  // writes the receipts too (a receipt that cannot be kept flags the run, never fails it)
  await log.finish(error);
  if (error) throw error;
  return { answer: job.answer, queryRunId: runId, sources: job.sources() };
}
