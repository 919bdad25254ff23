import type { ResolveEdges } from "../../models/types";
import type { EntityCandidate, FactCandidate } from "../candidates";
import { nameKey } from "../../text/name-key";
import { type DraftFact, duplicateOf, type FactDrafts } from "./draft-facts";
import type { EntityMatching } from "./match-entities";
import type { Question } from "./question";
import type { Duplicate, Invalidation, Plan, PlannedEntity } from "./types";

/*
 * Phase 4 of resolve_edges: the plan, from the drafts and the model's answer. An entity the model
 * matches takes the existing id, in the facts too. A fact the model calls a duplicate is a
 * mention; a contradicted fact is kept, with invalid_at (when the new one began to hold) and
 * expired_at (now), never deleted. A ref the question did not send is ignored, and so is a
 * judgement about a candidate of another entity than the one chosen.
 */

export interface AnswerContext {
  matching: EntityMatching;
  drafts: FactDrafts;
  question: Question;
  answer: ResolveEdges;
  occurredAt: Date | null;
  now: Date;
}

/** The entity answers, in order: the id and the existing entity of each chunk entity, and the id changes. */
function applyEntityAnswers(m: EntityMatching, refs: Map<string, EntityCandidate>, answers: ResolveEdges["entities"]) {
  const ids = [...m.ids];
  const chosen = [...m.exact];
  const moves: [from: string, to: string][] = [];
  for (const a of answers) {
    const c = a.match ? refs.get(a.match) : undefined;
    if (!c || ids[a.n] === undefined) continue;
    moves.push([ids[a.n]!, c.id]);
    ids[a.n] = c.id;
    chosen[a.n] = c;
  }
  const moved = (id: string) => moves.reduce((x, [from, to]) => (x === from ? to : x), id);
  return { ids, chosen, moved };
}

function plannedEntities(m: EntityMatching, ids: string[], chosen: (EntityCandidate | null)[]): PlannedEntity[] {
  return m.entities.map((e, n) => {
    const match = chosen[n] ?? null;
    if (!match) return { id: ids[n]!, isNew: true, name: e.name, type: e.type, aliases: e.aliases, addedAliases: [], keys: e.keys };
    const known = new Set([match.nameKey, ...match.aliasKeys]);
    const added = [e.name, ...e.aliases].filter((a) => !known.has(nameKey(a)));
    return { id: match.id, isNew: false, name: match.name, type: match.type, aliases: [...match.aliases, ...added], addedAliases: added, keys: e.keys };
  });
}

export function applyAnswer(ctx: AnswerContext): Plan {
  const { matching, drafts, question, answer } = ctx;
  const { ids, chosen, moved } = applyEntityAnswers(matching, question.entityRefs, answer.entities);

  const repeated = new Set(drafts.duplicates.map((d) => d.n));
  const pending = new Map<number, DraftFact>();
  drafts.facts.forEach((f, n) => {
    if (!repeated.has(n)) pending.set(n, { ...f, subjectId: moved(f.subjectId), objectId: f.objectId === null ? null : moved(f.objectId) });
  });

  const duplicates: Duplicate[] = drafts.duplicates.map(({ factId, validAt }) => ({ factId, validAt }));
  const invalidations: Invalidation[] = [];
  for (const a of answer.facts) {
    const f = pending.get(a.n);
    if (!f) continue;
    const applies = (c: FactCandidate | undefined): c is FactCandidate => !!c && c.subjectId === f.subjectId;
    const dup = a.duplicateOf ? question.factRefs.get(a.duplicateOf) : undefined;
    if (applies(dup)) {
      pending.delete(a.n);
      duplicates.push(duplicateOf(dup, f));
      continue;
    }
    for (const ref of a.contradicts) {
      const old = question.factRefs.get(ref);
      if (!applies(old)) continue;
      if (f.validAt && old.validAt && f.validAt < old.validAt) {
        // the new fact is older news: it held until the known one began
        f.invalidAt ??= old.validAt;
      } else if (!invalidations.some((i) => i.factId === old.id)) {
        invalidations.push({ factId: old.id, invalidAt: f.validAt ?? ctx.occurredAt ?? ctx.now, by: f.id });
      }
    }
  }

  return {
    entities: plannedEntities(matching, ids, chosen),
    facts: [...pending.values()].map(({ subjectN: _s, objectN: _o, ...f }) => f),
    duplicates,
    invalidations,
    asked: question.input,
  };
}
