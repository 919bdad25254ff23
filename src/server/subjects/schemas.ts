import { z } from "zod";
import { text } from "../input";
import { DatasetName } from "../datasets/schemas";
import { outputSchema, Timestamp } from "../output";
import type { PurgeReceipt } from "./purge";

export const PurgeInput = z
  .object({
    /** one dataset; omitted = every dataset the caller can see */
    dataset: DatasetName.optional(),
    /** the person, as remember's `userId` named them */
    userId: text().min(1).max(200).optional(),
    /** or an entity of the graph: the person as the memory knows them */
    entityId: z.uuid().optional(),
  })
  .strict()
  .refine((v) => (v.userId === undefined) !== (v.entityId === undefined), { path: ["userId"], message: "give exactly one of userId and entityId" });
export type PurgeInput = z.infer<typeof PurgeInput>;

/** subjects.purge's receipt (purge.ts) */
export const PurgeReceiptOutput = outputSchema<PurgeReceipt>()(
  z.object({
    id: z.string(),
    at: Timestamp,
    subject: z.object({ kind: z.enum(["userId", "entityId"]), ref: z.string() }),
    datasets: z.array(z.string()),
    /** rows deleted per table */
    deleted: z.record(z.string(), z.number()),
    /** run-log rows whose params were replaced by the stamp */
    redacted: z.record(z.string(), z.number()),
    vacuumed: z.array(z.string()),
  }),
);
