import { z } from "zod";
import { text } from "../input";
import { DatasetName } from "../datasets/schemas";

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
