import { z } from "zod";
import { text } from "../../input";
import { DatasetName } from "../../datasets/schemas";
import { outputSchema, Timestamp } from "../../output";
import type { listSeriesKeys, SeriesView } from "./read";

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

/** graph.series: members, numbers per measure (a chart's lines) and observations (read.ts) */
export const SeriesOutput = outputSchema<SeriesView>()(
  z.object({
    key: z.string(),
    members: z.array(z.object({ textId: z.string(), position: z.number().nullable(), occurredAt: Timestamp.nullable(), createdAt: Timestamp, excerpt: z.string() })),
    measures: z.array(
      z.object({
        measure: z.string(),
        subject: z.string(),
        predicate: z.string(),
        unit: z.string().nullable(),
        points: z.array(z.object({ textId: z.string(), time: Timestamp, value: z.number(), unit: z.string().nullable(), factId: z.string() })),
      }),
    ),
    observations: z.array(z.object({ textId: z.string(), content: z.string(), createdAt: Timestamp, textIds: z.array(z.string()) })),
  }),
);

export const SeriesKeysOutput = outputSchema<Awaited<ReturnType<typeof listSeriesKeys>>>()(
  z.object({ items: z.array(z.object({ key: z.string(), members: z.number(), lastAt: Timestamp })) }),
);
