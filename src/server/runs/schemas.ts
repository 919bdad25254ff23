import { z } from "zod";
import { text } from "../input";
import { RunStatuses } from "../../lib/stages";
import { DatasetName } from "../datasets/schemas";

export const ListRunsInput = z.object({
  dataset: DatasetName,
  status: z.enum(RunStatuses).optional(),
  /** only runs that succeeded with a failed (advisory) stage */
  flagged: z.boolean().optional(),
  cursor: text().max(200).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListRunsInput = z.infer<typeof ListRunsInput>;

export const GetRunInput = z.object({ id: z.uuid() });
export type GetRunInput = z.infer<typeof GetRunInput>;

export const GetInferenceInput = z.object({ id: z.uuid() });

export const CountRunsInput = z.object({ dataset: DatasetName });
export type CountRunsInput = z.infer<typeof CountRunsInput>;
