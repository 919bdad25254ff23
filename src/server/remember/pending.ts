import { nameKey, uniqueKeys } from "../text/name-key";
import type { Candidates } from "./candidates";
import type { Plan, PlannedEntity } from "./resolve";

/*
 * What a chunk's store writes that the next chunk's load_candidates reads: its new entities, the
 * aliases it adds to existing ones, its new facts, the facts it retires and the times it sets on
 * facts that had none. The job loads the next chunk's candidates while this chunk is stored (the
 * database and the request thread work at once, and on Postgres two connections do), so that load
 * reads the dataset through these writes: as if the store had committed, whether it has when the
 * load reads or not (candidates.ts leaves the stored rows of these ids unread).
 */

/** An entity as load_candidates reads it (gb_entities' columns), after the pending store. */
export interface PendingEntity {
  id: string;
  name: string;
  name_key: string;
  type: string;
  aliases: string[];
  alias_keys: string[];
  summary: string | null;
}

/** A new fact as load_candidates reads it (gb_facts' columns). */
export interface PendingFact {
  id: string;
  subject_id: string;
  predicate: string;
  object_id: string | null;
  object_value: string | null;
  sentence: string;
  valid_at: string | null;
  created_at: string;
}

export interface PendingWrites {
  entities: PendingEntity[];
  facts: PendingFact[];
  /** facts the store retires */
  retired: string[];
  /** facts that had no valid_at and get one (a duplicate that says when) */
  dated: Map<string, Date>;
}

export const NO_PENDING_WRITES: PendingWrites = { entities: [], facts: [], retired: [], dated: new Map() };

/**
 * The existing entities a plan adds aliases to, once each: two of a chunk's entities may be the
 * same existing one ("Bob" and "Robert Smith"), and their aliases are added together.
 */
export function grownEntities(plan: Plan): PlannedEntity[] {
  const byId = new Map<string, PlannedEntity>();
  for (const e of plan.entities) {
    if (e.isNew || e.addedAliases.length === 0) continue;
    const seen = byId.get(e.id);
    if (!seen) {
      byId.set(e.id, e);
      continue;
    }
    const aliases = [...new Set([...seen.aliases, ...e.aliases])];
    byId.set(e.id, { ...seen, aliases, addedAliases: [...new Set([...seen.addedAliases, ...e.addedAliases])] });
  }
  return [...byId.values()];
}

/**
 * What storing `plan` writes, as the next load reads it. `candidates` are the chunk's own (a
 * grown entity was one of them: its summary is theirs); `at` stands for the store's time, later
 * than every stored fact's.
 */
export function pendingWrites(plan: Plan, candidates: Candidates, at: Date): PendingWrites {
  const known = new Map(candidates.entities.map((c) => [c.id, c]));
  const created: PendingEntity[] = plan.entities
    .filter((e) => e.isNew)
    .map((e) => ({ id: e.id, name: e.name, name_key: nameKey(e.name), type: e.type, aliases: e.aliases, alias_keys: uniqueKeys(e.aliases), summary: null }));
  const grown: PendingEntity[] = grownEntities(plan).map((e) => {
    const c = known.get(e.id);
    return { id: e.id, name: e.name, name_key: c?.nameKey ?? nameKey(e.name), type: e.type, aliases: e.aliases, alias_keys: uniqueKeys(e.aliases), summary: c?.summary ?? null };
  });
  const dated = new Map<string, Date>();
  for (const d of plan.duplicates) if (d.validAt) dated.set(d.factId, d.validAt);
  return {
    entities: [...created, ...grown],
    facts: plan.facts.map((f) => ({
      id: f.id,
      subject_id: f.subjectId,
      predicate: f.predicate,
      object_id: f.objectId,
      object_value: f.objectValue,
      sentence: f.sentence,
      valid_at: f.validAt ? f.validAt.toISOString() : null,
      created_at: at.toISOString(),
    })),
    retired: plan.invalidations.map((i) => i.factId),
    dated,
  };
}

/** pg_trgm's trigrams of a name key: each word padded with two spaces before and one after. */
function trigrams(key: string): string[] {
  const out: string[] = [];
  for (const w of key.split(/[^\p{L}\p{N}]+/u)) {
    if (!w) continue;
    const padded = [..."  ", ...w, " "];
    for (let i = 0; i + 3 <= padded.length; i++) out.push(padded.slice(i, i + 3).join(""));
  }
  return out;
}

/**
 * The pending entities a load of these keys may find: named or aliased by one of `exact`, or
 * sharing a trigram with one of `similar` (none shared, no similarity). The rest would only make
 * the load's statement longer.
 */
export function pendingEntitiesFor(entities: readonly PendingEntity[], exact: readonly string[], similar: readonly string[]): PendingEntity[] {
  if (entities.length === 0) return [];
  const keys = new Set(exact);
  const grams = new Set(similar.flatMap(trigrams));
  return entities.filter((e) => keys.has(e.name_key) || e.alias_keys.some((k) => keys.has(k)) || trigrams(e.name_key).some((t) => grams.has(t)));
}
