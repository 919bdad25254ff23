import type { ExtractedGraph } from "../../models/types";
import { candidatesFor, type EntityCandidate } from "../candidates";
import { nameKey } from "../../text/name-key";

/*
 * Phase 1 of resolve_edges: which existing entity each of the chunk's entities is. The same name
 * key is the same entity, without asking. Every other candidate (a shared alias, a similar name,
 * a near embedding) goes to the model, however close: "Worker3" and "Worker8" are one letter
 * apart and two people, and so are two Alices who share the alias "Alice". No candidate: new.
 */

/** One of the chunk's entities: the extractor's, merged by normalised name. */
export interface ChunkEntity {
  name: string;
  type: string;
  aliases: string[];
  keys: string[];
}

export interface EntityMatching {
  entities: ChunkEntity[];
  /** by entity: the existing entity named exactly like it, or null */
  exact: (EntityCandidate | null)[];
  /** by entity: its id so far (the exact match's, or a new one; the model's answer may change it) */
  ids: string[];
  /** the entities the model decides on, by position, with the existing ones each may be */
  ambiguous: { n: number; candidates: EntityCandidate[] }[];
}

/** The chunk's entities, one per normalised name, with their aliases merged. */
export function chunkEntities(graph: ExtractedGraph): ChunkEntity[] {
  const out: ChunkEntity[] = [];
  for (const e of graph.entities) {
    const keys = [nameKey(e.name), ...e.aliases.map(nameKey)].filter(Boolean);
    const same = out.find((o) => o.keys.includes(keys[0] ?? ""));
    if (same) {
      for (const a of e.aliases) if (!same.aliases.includes(a) && a !== same.name) same.aliases.push(a);
      same.keys = [...new Set([...same.keys, ...keys])];
    } else out.push({ name: e.name, type: e.type, aliases: [...e.aliases], keys: [...new Set(keys)] });
  }
  return out;
}

/** The existing entity named exactly like ours (of our type when there are several), or null. */
function sameName(key: string, type: string, cands: EntityCandidate[]): EntityCandidate | null {
  const hits = cands.filter((c) => c.via === "exact" && c.nameKey === key);
  return hits.find((c) => c.type === type) ?? hits[0] ?? null;
}


export function matchEntities(graph: ExtractedGraph, candidates: EntityCandidate[], newId: () => string): EntityMatching {
  const entities = chunkEntities(graph);
  const exact = entities.map((e) => sameName(nameKey(e.name), e.type, candidates));
  const ambiguous: EntityMatching["ambiguous"] = [];
  entities.forEach((e, n) => {
    if (exact[n]) return;
    // the candidates the model decides on: found by one of its keys
    const near = candidatesFor(e.keys, candidates);
    if (near.length > 0) ambiguous.push({ n, candidates: near });
  });
  return { entities, exact, ids: exact.map((c) => c?.id ?? newId()), ambiguous };
}
