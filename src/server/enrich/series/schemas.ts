import { z } from "zod";
import { text } from "../../input";
import { DatasetName } from "../../datasets/schemas";

/** as remember.submit takes it */
export const SeriesKey = text().min(1).max(200);

export const SeriesInput = z.object({
  dataset: DatasetName,
  key: SeriesKey,
  /** the latest members to read (a chart of a long series shows its end) */
  limit: z.number().int().min(1).max(1000).default(200),
});
export type SeriesInput = z.infer<typeof SeriesInput>;

export const SeriesKeysInput = z.object({
  dataset: DatasetName,
  limit: z.number().int().min(1).max(500).default(100),
});
export type SeriesKeysInput = z.infer<typeof SeriesKeysInput>;
