import { z } from "zod";
import { Flag, Instant, text } from "../input";
import { RememberStages } from "../../lib/stages";
import { DatasetName } from "../datasets/schemas";
import { CallOptions } from "../models/types";
import { outputSchema } from "../output";
import type { SubmitResult } from "./submit";

const stageNames = RememberStages.map((s) => s.name) as [string, ...string[]];

export const Source = z
  .object({
    kind: text().min(1).max(100).optional(),
    id: text().min(1).max(500).optional(),
    url: text(z.url().max(2000)).optional(),
    speaker: text().min(1).max(200).optional(),
  })
  .strict();

/** The app's own name for a person (remember's and query's `userId`). */
export const SubjectUserId = text().min(1).max(200);

export const RememberOptions = z
  .object({
    /** model and reasoning per stage, over the defaults and GB_STAGE_MODELS */
    stages: z.partialRecord(z.enum(stageNames), CallOptions).optional(),
    /** enrichment stages to switch on (they also need their provider configured) */
    enrich: z.object({ geo: Flag, webSearch: Flag, observeSeries: Flag }).partial().strict().optional(),
  })
  .strict();

export const RememberInput = z
  .object({
    dataset: DatasetName,
    text: text().refine((t) => t.trim().length > 0, "must not be empty"),
    source: Source.optional(),
    /** the person the text belongs to, as the app names them (mem0's user_id); subjects.purge finds their data by it */
    userId: SubjectUserId.optional(),
    /** the series the text belongs to (a chat session, a feed …) */
    series: text().min(1).max(200).optional(),
    /** when what the text says happened; relative dates in it are read against this */
    occurredAt: Instant.optional(),
    options: RememberOptions.optional(),
    /**
     * The client's key for this text (a UUID, a message id …): submitting the same key to the
     * same dataset again returns the same run, whatever its state, and stores nothing twice. A
     * client that retries after a lost answer sends the key it sent the first time.
     */
    idempotencyKey: text()
      .min(1)
      .max(200)
      .regex(/^[^\p{Cc}\p{Cs}]+$/u, "must not contain control characters")
      .optional(),
    /** return when the run has ended instead of at once */
    wait: Flag.optional(),
  })
  .strict();
export type RememberInput = z.infer<typeof RememberInput>;

/** What a run keeps in its params: the input as JSON, without `wait` and the key (a column of its own). */
export const RunParams = RememberInput.omit({ wait: true, occurredAt: true, idempotencyKey: true }).extend({
  occurredAt: z.string().nullable(),
});
export type RunParams = z.infer<typeof RunParams>;

export const GetRememberInput = z.object({ id: z.uuid() });

/** remember.submit's answer (submit.ts) */
export const SubmitResultOutput = outputSchema<SubmitResult>()(
  z.object({
    rememberRunId: z.string(),
    status: z.enum(["queued", "started", "succeeded", "failed"]),
    error: z.string().nullable(),
    replayed: z.boolean(),
  }),
);
