import type { ExtractedFact, ExtractedGraph } from "../types";
import { parseSentences, type ParsedSentence } from "./tokens";
import type { PronounContext } from "./mentions";
import type { Draft } from "./facts";
import { clauseDates, sentenceDrafts } from "./sentence-drafts";
import { findDates, type DateSpan } from "./dates";
import { parseReference } from "./date-math";
import { rewriteSentence } from "./rewrite";
import { EntityRegistry } from "./entities";
import { findAliases, type AliasDeclaration } from "./aliases";
import { isNicknamePair } from "./nicknames";
import { ORG_PREDICATES, PERSON_SUBJECT_PREDICATES, PLACE_PREDICATES } from "./lexicon";
import { finish, type Sliced } from "../../slices";

/**
 * Heuristic graph extraction: compromise finds names and noun phrases, clause patterns turn
 * "subject verb [preposition] object" into facts, and whatever no pattern covers is still
 * linked to the sentence's subject (or the speaker) by a `mentions` fact so retrieval finds it.
 */
export function extractGraph(input: { text: string; occurredAt?: string | null; speaker?: string | null }): ExtractedGraph {
  return finish(extracting(input));
}

/** extractGraph as work in steps, a sentence at a time. */
export function* extracting(input: { text: string; occurredAt?: string | null; speaker?: string | null }): Sliced<ExtractedGraph> {
  const ctx: PronounContext = { speaker: input.speaker?.trim() || null, lastPerson: null };
  const ref = parseReference(input.occurredAt);
  const registry = new EntityRegistry();
  const facts: ExtractedFact[] = [];
  // compromise splits the sentences itself: one parse of the chunk, not the one splitter
  // (../../text/sentences) and a parse per sentence, which took about 1.6 times as long on 240
  // short sentences (each parse has a cost of its own); a chunk is bounded, so the one call is too
  for (const original of parseSentences(input.text)) {
    const originalDates = findDates(original.text, ref);
    // the fact sentence keeps the alias phrase; the patterns read the sentence without it
    const sentence = rewriteSentence(original.text, originalDates, ctx.speaker);
    const { text, aliases } = findAliases(original.text);
    const parts = aliases.length > 0 ? parseSentences(text) : [original];
    const drafted: string[] = [];
    for (const s of parts) {
      const dates = s === original ? originalDates : findDates(s.text, ref);
      for (const d of sentenceDrafts(s, ctx, dates)) {
        const fact = finishDraft(d, s, dates, sentence, registry);
        facts.push(fact);
        drafted.push(fact.subject, ...(fact.objectIsEntity ? [fact.object] : []));
      }
    }
    for (const a of aliases) facts.push(aliasFact(a, drafted, sentence, registry));
    yield;
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

/**
 * "Robert, also known as Bob, …" → (Robert, also_known_as, "Bob") and the alias on Robert's
 * entity. The name is the longest tail of the declared one that the sentence's facts use
 * ("Yesterday Robert" → "Robert"), else the declared name.
 */
function aliasFact(a: AliasDeclaration, drafted: string[], sentence: string, registry: EntityRegistry): ExtractedFact {
  const words = a.name.split(" ");
  const known = new Map(drafted.map((n) => [n.toLowerCase(), n]));
  let name = a.name;
  for (let k = 0; k < words.length; k += 1) {
    const found = known.get(words.slice(k).join(" ").toLowerCase());
    if (found) {
      name = found;
      break;
    }
  }
  const nickname = isNicknamePair(name.split(" ")[0]!.toLowerCase(), a.alias.split(" ")[0]!.toLowerCase());
  registry.add(name, nickname ? "person" : "");
  registry.addAlias(name, a.alias);
  return { subject: name, predicate: "also_known_as", object: a.alias, objectIsEntity: false, sentence, validAt: null, invalidAt: null };
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
