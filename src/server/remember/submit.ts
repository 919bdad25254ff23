import { createHash } from "node:crypto";
import type { App } from "../app";
import { actorId, type Caller } from "../auth/caller";
import { resolveDataset } from "../datasets/datasets";
import { ConflictError, PayloadTooLargeError } from "../errors";
import { createQueuedRun, createQueuedRunOnce } from "../runs/run-log";
import type { RememberInput, RunParams } from "./schemas";

export interface SubmitResult {
  rememberRunId: string;
  status: "queued" | "started" | "succeeded" | "failed";
  error: string | null;
  /** true when the idempotency key was seen before: this is that submit's run, nothing new was queued */
  replayed: boolean;
}

/** JSON with object keys sorted, so that the same request always hashes the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

const requestHash = (params: RunParams): string => createHash("sha256").update(canonical(params)).digest("hex");

/**
 * remember.submit: validates, queues the run (status queued) and returns at once; with `wait`,
 * when the run has ended. Bad input makes no run. With an idempotency key, a key already used in
 * the dataset returns that run (CONFLICT if it was used for another request).
 */
export async function submitRemember({ app, caller, input }: { app: App; caller: Caller; input: RememberInput }): Promise<SubmitResult> {
  const db = app.database.db;
  await app.rateLimits.take("remember", caller);
  const bytes = Buffer.byteLength(input.text, "utf8");
  if (bytes > app.env.GB_MAX_TEXT_BYTES) {
    throw new PayloadTooLargeError("text", `is ${bytes} bytes; the limit is ${app.env.GB_MAX_TEXT_BYTES} (GB_MAX_TEXT_BYTES)`);
  }
  const dataset = await resolveDataset(db, input.dataset, caller);
  const { wait, occurredAt, idempotencyKey, ...rest } = input;
  const params: RunParams = { ...rest, occurredAt: occurredAt ? occurredAt.toISOString() : null };
  const init = { datasetId: dataset.id, userId: actorId(caller), params, embeddingSpace: app.embeddingSpace };

  let run: { id: string; replayed: boolean; status: SubmitResult["status"]; error: string | null };
  if (idempotencyKey === undefined) {
    run = { id: await createQueuedRun(db, "remember", init), replayed: false, status: "queued", error: null };
  } else {
    const hash = requestHash(params);
    const r = await createQueuedRunOnce(db, init, { key: idempotencyKey, hash });
    // a purge forgets what the key was for (the hash is of the person's text): the run stands
    if (!r.created && r.hash !== null && r.hash !== hash) {
      throw new ConflictError(`idempotencyKey: already used in dataset ${dataset.name} for another request (remember run ${r.id})`);
    }
    run = { id: r.id, replayed: !r.created, status: r.status, error: r.error };
  }
  if (!run.replayed) app.remember.poke();
  if (!wait || run.status === "succeeded" || run.status === "failed") {
    return { rememberRunId: run.id, status: run.status, error: run.error, replayed: run.replayed };
  }
  const ended = await app.remember.waitFor(run.id);
  return { rememberRunId: run.id, status: ended.status, error: ended.error, replayed: run.replayed };
}
