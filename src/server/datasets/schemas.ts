import { z } from "zod";
import { text } from "../input";
import { outputSchema, Timestamp } from "../output";
import type { Dataset, DatasetDeletion, DatasetPage } from "./datasets";

/** A dataset name: a lowercase slug, so it can sit in URLs and keys unescaped. */
export const DatasetName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/, "must be a lowercase slug: a-z, 0-9, - and _ between them");

export const CreateDatasetInput = z.object({ name: DatasetName });
export type CreateDatasetInput = z.infer<typeof CreateDatasetInput>;

export const DEFAULT_DATASET = "default";

/** datasets.list: a page of the caller's datasets by name (no input: the first 100). */
export const ListDatasetsInput = z
  .object({
    cursor: z.string().max(500).optional(),
    limit: z.number().int().min(1).max(500).default(100),
  })
  .strict()
  .prefault({});
export type ListDatasetsInput = z.infer<typeof ListDatasetsInput>;

export const DeleteDatasetInput = z
  .object({
    name: DatasetName,
    /** the name again: deleting a dataset deletes all of its memory and run logs */
    confirm: text(),
  })
  .strict()
  .refine((v) => v.confirm === v.name, { path: ["confirm"], message: "must repeat the dataset's name" });
export type DeleteDatasetInput = z.infer<typeof DeleteDatasetInput>;

/* What the dataset verbs answer (datasets.ts). */

export const DatasetOutput = outputSchema<Dataset>()(z.object({ id: z.string(), name: z.string(), teamId: z.string(), createdAt: Timestamp }));

export const DatasetPageOutput = outputSchema<DatasetPage>()(z.object({ items: z.array(DatasetOutput), nextCursor: z.string().nullable() }));

export const DatasetDeletionOutput = outputSchema<DatasetDeletion>()(
  z.object({ dataset: z.string(), at: Timestamp, deleted: z.record(z.string(), z.number()).meta({ description: "rows deleted per table" }) }),
);
