import { z } from "zod";
import { Instant, text } from "../input";
import { QueryStages } from "../../lib/stages";
import { DatasetName } from "../datasets/schemas";
import { CallOptions } from "../models/types";
import { outputSchema, Timestamp } from "../output";
import { SubjectUserId } from "../remember/schemas";
import { Scope } from "../stm/schemas";

const stageNames = QueryStages.map((s) => s.name) as [string, ...string[]];

export const AskInput = z
  .object({
    dataset: DatasetName,
    question: text().max(4000).refine((q) => q.trim().length > 0, "must not be empty"),
    /** the chat scope asking: its short-term memory (stm.context) joins the answer's prompt */
    scope: Scope.optional(),
    /** replaced by `scope`: refused with a note saying so (a session id alone does not name a scope) */
    session: text().min(1).max(500).optional().meta({ deprecated: true, description: "Replaced by scope: refused (400) with a note saying so" }),
    /** the person asking, as the app names them; kept in the run's params so subjects.purge can find the run */
    userId: SubjectUserId.optional(),
    /** answer from the facts that held at this time, instead of the current ones */
    asOf: Instant.optional(),
    /** how far around the place the question names nearby_geo looks, in km (default DEFAULT_RADIUS_KM) */
    radiusKm: z.number().gt(0).max(20_000).optional(),
    /** the most sources to give the model (default 10) */
    limit: z.number().int().min(1).max(50).default(10),
    options: z
      .object({ stages: z.partialRecord(z.enum(stageNames), CallOptions).optional() })
      .strict()
      .optional(),
  })
  .strict();
export type AskInput = z.infer<typeof AskInput>;

/** nearby_geo's radius when query.ask names none */
export const DEFAULT_RADIUS_KM = 25;

export interface SourceRef {
  textId: string;
  chunkId: string;
  kind?: string;
  id?: string;
  url?: string;
  speaker?: string;
}

export interface Source {
  /** the number the answer cites it by, [n] */
  n: number;
  kind: "fact" | "summary";
  id: string;
  text: string;
  score: number;
  validAt: Date | null;
  invalidAt: Date | null;
  entityIds: string[];
  source: SourceRef;
  /** found near the place the question names (nearby_geo): how far, in km, and by which entity */
  distanceKm?: number;
  nearEntity?: { id: string; name: string };
}

export interface AskResult {
  answer: string;
  queryRunId: string;
  sources: Source[];
}

const SourceOutput = outputSchema<Source>()(
  z.object({
    n: z.number(),
    kind: z.enum(["fact", "summary"]),
    id: z.string(),
    text: z.string(),
    score: z.number(),
    validAt: Timestamp.nullable(),
    invalidAt: Timestamp.nullable(),
    entityIds: z.array(z.string()),
    source: z.object({
      textId: z.string(),
      chunkId: z.string(),
      kind: z.string().optional(),
      id: z.string().optional(),
      url: z.string().optional(),
      speaker: z.string().optional(),
    }),
    distanceKm: z.number().optional(),
    nearEntity: z.object({ id: z.string(), name: z.string() }).optional(),
  }),
);

/** query.ask's answer */
export const AskResultOutput = outputSchema<AskResult>()(z.object({ answer: z.string(), queryRunId: z.string(), sources: z.array(SourceOutput) }));

export const NO_INFORMATION = "I don't have any information about that.";
