import type { ExtractedGraph, ResolveEdgesInput } from "../../models/types";
import type { Candidates } from "../candidates";

/** What resolve_edges decides for one chunk: what store inserts, links and retires. */

export interface PlannedEntity {
  id: string;
  isNew: boolean;
  name: string;
  type: string;
  /** every alias the entity has after this chunk (new ones merged into an existing entity) */
  aliases: string[];
  /** aliases this chunk adds to an existing entity */
  addedAliases: string[];
  keys: string[];
}

export interface PlannedFact {
  id: string;
  subjectId: string;
  predicate: string;
  objectId: string | null;
  objectValue: string | null;
  sentence: string;
  validAt: Date | null;
  invalidAt: Date | null;
}

export interface Invalidation {
  factId: string;
  invalidAt: Date;
  by: string;
}

/** An existing fact this chunk states again (a mention), and the time to set on it if it had none. */
export interface Duplicate {
  factId: string;
  validAt: Date | null;
}

export interface Plan {
  entities: PlannedEntity[];
  /** facts to insert */
  facts: PlannedFact[];
  /** existing facts this chunk states again (mentions), and the time to set on those that had none */
  duplicates: Duplicate[];
  invalidations: Invalidation[];
  /** what was asked of the model, if anything */
  asked: ResolveEdgesInput | null;
}

export interface ResolveContext {
  graph: ExtractedGraph;
  candidates: Candidates;
  /** when the text says it happened: a contradiction with no date of its own starts then */
  occurredAt: Date | null;
  now: Date;
  /** the ids of new entities and facts (default randomUUID; tests pass a counter) */
  newId?: () => string;
}
