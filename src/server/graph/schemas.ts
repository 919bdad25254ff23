import { z } from "zod";
import { text } from "../input";
import { DatasetName } from "../datasets/schemas";
import { outputSchema, Timestamp } from "../output";
import type { getEntity, listEntities, Neighbourhood } from "./read";
import type { EntityView, FactView } from "./shape";

export const EntitiesInput = z.object({
  dataset: DatasetName,
  /** part of a name or alias */
  search: text().trim().min(1).max(200).optional(),
  cursor: text().max(400).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type EntitiesInput = z.infer<typeof EntitiesInput>;

export const EntityInput = z.object({ dataset: DatasetName, id: z.uuid() });
export type EntityInput = z.infer<typeof EntityInput>;

export const NeighbourhoodInput = z.object({
  dataset: DatasetName,
  id: z.uuid(),
  depth: z.number().int().min(1).max(3).default(1),
  /** the most facts to return */
  limit: z.number().int().min(1).max(1000).default(200),
});
export type NeighbourhoodInput = z.infer<typeof NeighbourhoodInput>;

/* What the graph's read verbs answer (read.ts), of the views of shape.ts. */

const EntityViewOutput = outputSchema<EntityView>()(
  z.object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    aliases: z.array(z.string()),
    summary: z.string().nullable(),
    lat: z.number().nullable(),
    lon: z.number().nullable(),
    country: z.string().nullable(),
    geoId: z.string().nullable(),
    createdAt: Timestamp,
    createdRunId: z.string().nullable(),
    updatedAt: Timestamp,
  }),
);

const End = z.object({ id: z.string(), name: z.string() });
const FactViewOutput = outputSchema<FactView>()(
  z.object({
    id: z.string(),
    subject: End,
    predicate: z.string(),
    object: End.nullable(),
    objectValue: z.string().nullable(),
    sentence: z.string(),
    validAt: Timestamp.nullable(),
    invalidAt: Timestamp.nullable(),
    createdAt: Timestamp,
    expiredAt: Timestamp.nullable(),
    current: z.boolean(),
    textId: z.string(),
    chunkId: z.string(),
    createdRunId: z.string(),
    invalidatedRunId: z.string().nullable(),
    invalidatedBy: z.string().nullable(),
  }),
);

export const EntitiesOutput = outputSchema<Awaited<ReturnType<typeof listEntities>>>()(
  z.object({ items: z.array(EntityViewOutput), nextCursor: z.string().nullable() }),
);

export const EntityOutput = outputSchema<Awaited<ReturnType<typeof getEntity>>>()(
  z.object({ entity: EntityViewOutput, current: z.array(FactViewOutput), past: z.array(FactViewOutput) }),
);

export const NeighbourhoodOutput = outputSchema<Neighbourhood>()(
  z.object({ nodes: z.array(EntityViewOutput.extend({ depth: z.number() })), edges: z.array(FactViewOutput) }),
);
