import { resolveStageOptions } from "../models/factory";
import { recordedModels } from "../models/record";
import { run } from "../pipeline";
import { attachRunLog } from "../runs/run-log";
import type { App } from "../app";
import { RememberJob } from "./job";
import type { ClaimedRun } from "./manager";
import { rememberPipeline } from "./pipeline";
import { RunParams } from "./schemas";

/** Runs a claimed remember run to its end: the pipeline under the run log, then finish. */
export async function executeRememberRun(app: App, claimed: ClaimedRun): Promise<void> {
  const db = app.database.db;
  const log = attachRunLog(db, "remember", claimed);
  let error: Error | null = null;
  try {
    const params = RunParams.parse(claimed.params);
    const models = recordedModels(app.provider, {
      db,
      datasetId: claimed.datasetId,
      runKind: "remember",
      runId: claimed.id,
      stageOptions: resolveStageOptions(app.stageOptions, params.options?.stages),
    });
    const job = new RememberJob(
      {
        db,
        models,
        datasetId: claimed.datasetId,
        runId: claimed.id,
        pgvector: app.database.vector,
        settings: {
          chunkTokens: app.env.GB_CHUNK_TOKENS,
          overlapTokens: app.env.GB_CHUNK_OVERLAP_TOKENS,
          extractConcurrency: app.env.GB_EXTRACT_CONCURRENCY,
        },
        providers: { geo: false, webSearch: false, observeSeries: false },
      },
      params,
    );
    await run(rememberPipeline, job, log);
  } catch (e) {
    error = e instanceof Error ? e : new Error(String(e));
  }
  await log.finish(error);
}
