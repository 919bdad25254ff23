import type { ExtractedGraph } from "../../models/types";
import type { FactCandidate } from "../candidates";
import { nameKey } from "../../text/name-key";
import type { EntityMatching } from "./match-entities";
import type { Duplicate, PlannedFact } from "./types";

/*
 * Phase 2 of resolve_edges: the chunk's facts with their subject and object as entity ids, once
 * each, and the current facts each may repeat or contradict. Candidates are only the current
 * facts with the same subject and predicate, or the same subject and object (a dataset-wide
 * search retires unrelated facts: Graphiti #1728). The same subject, predicate and object is a
 * duplicate without asking; a fact with other candidates goes to the model.
 */

/** A fact of the chunk, with the positions of its entities (the model's answer may change their ids). */
export interface DraftFact extends PlannedFact {
  subjectN: number;
  /** the position of the object entity; null for a literal value */
  objectN: number | null;
}

export interface FactDrafts {
  /** the chunk's facts, once each; a fact's position is its `n` in the question */
  facts: DraftFact[];
  /** facts that state a current fact again exactly (by position): not inserted, not asked */
  duplicates: (Duplicate & { n: number })[];
  /** the other facts that have candidates, by position: what the model is asked about */
  questions: { n: number; candidates: FactCandidate[] }[];
}

export const parseDate = (v: string | null): Date | null => {
  if (!v) return null;
  const d = new Date(/^\d{4}$/.test(v) ? `${v}-01-01` : v);
  return Number.isNaN(d.getTime()) ? null : d;
};

export const objectKey = (f: { objectId: string | null; objectValue: string | null }) => f.objectId ?? `=${nameKey(f.objectValue ?? "")}`;

/** A repeated fact gets the new time only if it had none. */
export const duplicateOf = (existing: FactCandidate, f: PlannedFact): Duplicate => ({
  factId: existing.id,
  validAt: !existing.validAt && f.validAt ? f.validAt : null,
});

function chunkFacts(graph: ExtractedGraph, m: EntityMatching, newId: () => string): DraftFact[] {
  const entityOf = (name: string): number => {
    const k = nameKey(name);
    return m.entities.findIndex((e) => e.keys.includes(k));
  };
  const facts: DraftFact[] = [];
  for (const f of graph.facts) {
    const s = entityOf(f.subject);
    if (s < 0) continue; // the extractor guarantees subjects are entities; be safe anyway
    const o = f.objectIsEntity ? entityOf(f.object) : -1;
    const drafted: DraftFact = {
      id: newId(),
      subjectN: s,
      objectN: o >= 0 ? o : null,
      subjectId: m.ids[s]!,
      predicate: f.predicate,
      objectId: o >= 0 ? m.ids[o]! : null,
      objectValue: o >= 0 ? null : f.object,
      sentence: f.sentence,
      validAt: parseDate(f.validAt),
      invalidAt: parseDate(f.invalidAt),
    };
    const again = facts.some((x) => x.subjectId === drafted.subjectId && x.predicate === drafted.predicate && objectKey(x) === objectKey(drafted));
    if (!again) facts.push(drafted);
  }
  return facts;
}

export function draftFacts(graph: ExtractedGraph, m: EntityMatching, candidates: FactCandidate[], newId: () => string): FactDrafts {
  const facts = chunkFacts(graph, m, newId);
  // an ambiguous entity's facts are compared with those of every candidate it may be
  const possibleIds = (n: number): string[] => [m.ids[n]!, ...(m.ambiguous.find((a) => a.n === n)?.candidates.map((c) => c.id) ?? [])];
  const duplicates: FactDrafts["duplicates"] = [];
  const questions: FactDrafts["questions"] = [];
  facts.forEach((f, n) => {
    const subjects = possibleIds(f.subjectN);
    const cands = candidates.filter(
      (c) =>
        subjects.includes(c.subjectId) &&
        (c.predicate === f.predicate ||
          (c.objectId !== null && c.objectId === f.objectId) ||
          (c.objectValue !== null && f.objectValue !== null && nameKey(c.objectValue) === nameKey(f.objectValue))),
    );
    const dup = cands.find((c) => c.subjectId === f.subjectId && c.predicate === f.predicate && objectKey(c) === objectKey(f));
    if (dup) duplicates.push({ n, ...duplicateOf(dup, f) });
    else if (cands.length > 0) questions.push({ n, candidates: cands });
  });
  return { facts, duplicates, questions };
}
