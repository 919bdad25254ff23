import type { ResolveEdgesInput } from "../../models/types";
import type { EntityCandidate, FactCandidate } from "../candidates";
import type { FactDrafts } from "./draft-facts";
import type { EntityMatching } from "./match-entities";

/*
 * Phase 3 of resolve_edges: what the resolver model is asked, at most once per chunk. Candidates
 * go out under short refs (E1…, F1…, numbered across the question) rather than ids; the refs
 * map the answer back to the candidates.
 */

export interface Question {
  /** null when there is nothing to ask: the model is not called */
  input: ResolveEdgesInput | null;
  entityRefs: Map<string, EntityCandidate>;
  factRefs: Map<string, FactCandidate>;
}

export function buildQuestion(m: EntityMatching, drafts: FactDrafts): Question {
  const entityRefs = new Map<string, EntityCandidate>();
  const factRefs = new Map<string, FactCandidate>();
  const entities: ResolveEdgesInput["entities"] = m.ambiguous.map(({ n, candidates }) => {
    const e = m.entities[n]!;
    return {
      n,
      name: e.name,
      type: e.type,
      aliases: e.aliases,
      candidates: candidates.map((c) => {
        const ref = `E${entityRefs.size + 1}`;
        entityRefs.set(ref, c);
        return { ref, name: c.name, type: c.type, aliases: c.aliases, summary: c.summary };
      }),
    };
  });
  const facts: ResolveEdgesInput["facts"] = drafts.questions.map(({ n, candidates }) => {
    const f = drafts.facts[n]!;
    return {
      n,
      subject: m.entities[f.subjectN]!.name,
      predicate: f.predicate,
      object: f.objectN !== null ? (m.entities[f.objectN]?.name ?? "") : (f.objectValue ?? ""),
      sentence: f.sentence,
      validAt: f.validAt?.toISOString() ?? null,
      candidates: candidates.map((c) => {
        const ref = `F${factRefs.size + 1}`;
        factRefs.set(ref, c);
        return { ref, subject: c.subjectName, predicate: c.predicate, object: c.objectName ?? c.objectValue ?? "", sentence: c.sentence, validAt: c.validAt?.toISOString() ?? null };
      }),
    };
  });
  const input = entities.length > 0 || facts.length > 0 ? { entities, facts } : null;
  return { input, entityRefs, factRefs };
}
