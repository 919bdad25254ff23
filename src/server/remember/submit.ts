import type { App } from "../app";
import { actorId, type Caller } from "../auth/caller";
import { resolveDataset } from "../datasets/datasets";
import { PayloadTooLargeError } from "../errors";
import { createQueuedRun } from "../runs/run-log";
import type { RememberInput, RunParams } from "./schemas";

export interface SubmitResult {
  rememberRunId: string;
  status: "queued" | "succeeded" | "failed";
  error: string | null;
}

/**
 * remember.submit: validates, queues the run (status queued) and returns at once; with `wait`,
 * when the run has ended. Bad input makes no run.
 */
export async function submitRemember({ app, caller, input }: { app: App; caller: Caller; input: RememberInput }): Promise<SubmitResult> {
  const db = app.database.db;
  await app.rateLimits.take("remember", caller);
  const bytes = Buffer.byteLength(input.text, "utf8");
  if (bytes > app.env.GB_MAX_TEXT_BYTES) {
    throw new PayloadTooLargeError("text", `is ${bytes} bytes; the limit is ${app.env.GB_MAX_TEXT_BYTES} (GB_MAX_TEXT_BYTES)`);
  }
  const dataset = await resolveDataset(db, input.dataset, caller);
  const { wait, occurredAt, ...rest } = input;
  const params: RunParams = { ...rest, occurredAt: occurredAt ? occurredAt.toISOString() : null };
  const id = await createQueuedRun(db, "remember", { datasetId: dataset.id, userId: actorId(caller), params });
  app.remember.poke();
  if (!wait) return { rememberRunId: id, status: "queued", error: null };
  const ended = await app.remember.waitFor(id);
  return { rememberRunId: id, status: ended.status, error: ended.error };
}
