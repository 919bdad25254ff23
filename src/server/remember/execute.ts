import { logError } from "../errors";
import { resolveStageOptions } from "../models/factory";
import { recordedModels } from "../models/record";
import { run } from "../pipeline";
import { attachRunLog } from "../runs/run-log";
import type { App } from "../app";
import { RememberJob } from "./job";
import { type ClaimedRun, LeaseLostError, TransientError } from "./manager";
import { rememberPipeline } from "./pipeline";
import { RunParams } from "./schemas";

/** The run's input, or why it cannot run (for good: no attempt would do better). */
function parseParams(params: Record<string, unknown>): RunParams {
  if ("purged" in params) throw new Error("the run's text was purged (subjects.purge) before it was stored");
  const parsed = RunParams.safeParse(params);
  if (!parsed.success) throw new Error(`the run's parameters are not valid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return parsed.data;
}

/**
 * Runs one attempt of a claimed remember run: resumes from what earlier attempts stored, runs
 * the pipeline under the run log, and finishes it as succeeded. When the attempt does not
 * succeed, it writes the stages' state and throws, and the manager ends the attempt (retry, fail,
 * hand back) by what was thrown. `signal` stops the pipeline (shutdown, lost lease).
 */
export async function executeRememberRun(app: App, claimed: ClaimedRun, signal: AbortSignal): Promise<void> {
  const db = app.database.db;
  // a chunk's stage outputs are written together as its store ends (see RunLogOptions.outputsWith)
  const log = attachRunLog(db, "remember", claimed, { outputsWith: "store" });
  try {
    const params = parseParams(claimed.params);
    const models = recordedModels(app.provider, {
      db,
      datasetId: claimed.datasetId,
      runKind: "remember",
      runId: claimed.id,
      stageOptions: resolveStageOptions(app.stageOptions, params.options?.stages),
      signal,
      batched: true,
    });
    const job = new RememberJob(
      {
        db,
        models,
        datasetId: claimed.datasetId,
        runId: claimed.id,
        attempt: claimed.attempt,
        pgvector: app.database.vector,
        settings: {
          chunkTokens: app.env.GB_CHUNK_TOKENS,
          overlapTokens: app.env.GB_CHUNK_OVERLAP_TOKENS,
          extractConcurrency: app.env.GB_EXTRACT_CONCURRENCY,
        },
        enrich: app.enrich,
        observer: log,
        signal,
        log: logError,
      },
      params,
    );
    await job.resume();
    try {
      await run(rememberPipeline, job, log, { signal, log: logError });
    } finally {
      // the records of the attempt's model calls are in before its end is
      await models.settle();
    }
  } catch (e) {
    // the stages as they ended (and the outputs of chunks no store took along) reach the
    // database before the manager ends the attempt
    await log.settle();
    throw e;
  }
  const written = await log.finish(null);
  if (written === "fenced") throw new LeaseLostError(`remember run ${claimed.id}: attempt ${claimed.attempt} no longer holds the run; its end is not recorded`);
  // Everything is stored but the run log does not say so: the next attempt finds every chunk
  // stored and finishes at once.
  if (written === "failed") throw new TransientError(`remember run ${claimed.id}: its end could not be written to the run log`);
}
