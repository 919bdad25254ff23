import type { ExtractedFact, ExtractedGraph } from "../types";
import { parseSentences, type ParsedSentence } from "./tokens";
import type { PronounContext } from "./mentions";
import type { Draft } from "./facts";
import { clauseDates, sentenceDrafts } from "./sentence-drafts";
import { findDates, type DateSpan } from "./dates";
import { parseReference } from "./date-math";
import { rewriteSentence } from "./rewrite";
import { EntityRegistry } from "./entities";
import { ORG_PREDICATES, PERSON_SUBJECT_PREDICATES, PLACE_PREDICATES } from "./lexicon";

/**
 * Heuristic graph extraction: compromise finds names and noun phrases, clause patterns turn
 * "subject verb [preposition] object" into facts, and whatever no pattern covers is still
 * linked to the sentence's subject (or the speaker) by a `mentions` fact so retrieval finds it.
 */
export function extractGraph(input: { text: string; occurredAt?: string | null; speaker?: string | null }): ExtractedGraph {
  const ctx: PronounContext = { speaker: input.speaker?.trim() || null, lastPerson: null };
  const ref = parseReference(input.occurredAt);
  const registry = new EntityRegistry();
  const facts: ExtractedFact[] = [];
  for (const s of parseSentences(input.text)) {
    const dates = findDates(s.text, ref);
    const sentence = rewriteSentence(s.text, dates, ctx.speaker);
    for (const d of sentenceDrafts(s, ctx, dates)) facts.push(finishDraft(d, s, dates, sentence, registry));
  }
  const { entities, canonical } = registry.finish();
  const seen = new Set<string>();
  const out: ExtractedFact[] = [];
  for (const f of facts) {
    const fact = { ...f, subject: canonical(f.subject), object: f.objectIsEntity ? canonical(f.object) : f.object };
    const key = `${fact.subject}\u0000${fact.predicate}\u0000${fact.object}`.toLowerCase();
    if (fact.subject.toLowerCase() === fact.object.toLowerCase() || seen.has(key)) continue;
    seen.add(key);
    out.push(fact);
  }
  return { entities, facts: out };
}

function finishDraft(d: Draft, s: ParsedSentence, dates: DateSpan[], sentence: string, registry: EntityRegistry): ExtractedFact {
  // names are registered here, as facts are made: an entity exists only if a fact uses it
  const subjectType = d.subject.type || (PERSON_SUBJECT_PREDICATES.has(d.predicate) ? "person" : "");
  registry.add(d.subject.name, subjectType);
  if (!d.object.literal) {
    const inferred = PLACE_PREDICATES.has(d.predicate) ? "place" : ORG_PREDICATES.has(d.predicate) ? "organization" : "";
    registry.add(d.object.name, d.object.type || inferred);
  }
  const { validAt, invalidAt } = datesFor(d, s, dates);
  return {
    subject: d.subject.name,
    predicate: d.predicate,
    object: d.object.name,
    objectIsEntity: !d.object.literal,
    sentence,
    validAt,
    invalidAt,
  };
}

/** A clause's own dates win; otherwise the sentence's. */
function datesFor(d: Draft, s: ParsedSentence, dates: DateSpan[]): { validAt: string | null; invalidAt: string | null } {
  let spans = d.undated ? [] : dates;
  const own = d.clause ? clauseDates(s, d.clause, dates) : [];
  if (own.length > 0) spans = own;
  return {
    validAt: spans.find((x) => x.role === "valid")?.iso ?? null,
    invalidAt: spans.find((x) => x.role === "invalid")?.iso ?? null,
  };
}
