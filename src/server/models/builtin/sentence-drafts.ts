import type { ParsedSentence } from "./tokens";
import { findMentions, type Mention, type PronounContext } from "./mentions";
import { splitClauses, type Clause } from "./clauses";
import { clauseFacts, type Draft, type EntitySide } from "./facts";
import type { Side } from "./complement";
import { mentionSide } from "./complement";
import type { DateSpan } from "./dates";
import { PREPOSITIONS } from "./lexicon";
import { snake } from "./text";

/**
 * The draft facts of one sentence: clause patterns first; then every name no pattern used is
 * linked to the sentence's subject (or the speaker) by `mentions`, or to the noun it hangs on
 * ("friends from Sweden"); then owners get their possessions ("my sister Emma").
 */

/** Predicates for a phrase attached to a noun: "friends from Sweden" → is_from. */
const NOUN_PREPOSITIONS: Readonly<Record<string, string>> = { from: "is_from", in: "located_in", near: "located_near", at: "located_at" };

/** "in 2010" → "2010" when a date becomes a literal object. */
const DATE_LEAD = /^(?:in|since|from|until|till|by|during|before|after|around|through|of|to|on|year)\s+/i;

export function sentenceDrafts(s: ParsedSentence, ctx: PronounContext, dates: DateSpan[]): Draft[] {
  const dateOf = (clause: Clause): string | null => {
    const span = clauseDates(s, clause, dates)[0];
    return span ? (span.human ?? s.text.slice(span.start, span.end).replace(DATE_LEAD, "")) : null;
  };
  const mentions = findMentions(s.toks, ctx);
  const drafts: Draft[] = [];
  const used = new Set<Mention>();
  const absorbed = new Set<Mention>();
  // a question asserts nothing; its names still get `mentions` facts below
  if (!/\?["')\]]*$/.test(s.text)) {
    let inherited: EntitySide[] = [];
    for (const clause of splitClauses(s.toks)) {
      const r = clauseFacts(s.toks, clause, mentions, inherited, dateOf);
      drafts.push(...r.drafts);
      if (r.subjects.length > 0) inherited = r.subjects;
      r.used.forEach((m) => used.add(m));
      r.absorbed.forEach((m) => absorbed.add(m));
    }
  }
  const leftovers = mentions.filter((m) => m.kind !== "pronoun" && !used.has(m) && !absorbed.has(m));
  const speaker: EntitySide | null = ctx.speaker ? { name: ctx.speaker, type: "person", literal: false } : null;
  const first = leftovers[0];
  const anchor = drafts[0]?.subject ?? speaker ?? (first ? mentionSide(first) : null);
  for (const m of leftovers) {
    const side: Side | null = m.quantity ? { name: m.name, literal: true } : mentionSide(m);
    if (!side) continue;
    // "my friends from Sweden": the phrase the preposition hangs on is the better subject
    const prep = s.toks[m.start - 1];
    const host = prep && PREPOSITIONS.has(prep.word) && prep.word !== "of"
      ? mentions.find((n) => n.end === m.start - 1 && n.kind !== "pronoun")
      : undefined;
    const hostSide = host && !absorbed.has(host) ? mentionSide(host) : null;
    if (hostSide && prep) drafts.push({ subject: hostSide, predicate: Object.hasOwn(NOUN_PREPOSITIONS, prep.word) ? NOUN_PREPOSITIONS[prep.word]! : prep.word, object: side, clause: null });
    else if (anchor) drafts.push({ subject: anchor, predicate: "mentions", object: side, clause: null });
  }
  // "my sister Emma", "Marta's mom": the owner has them
  for (const m of mentions) {
    if (m.kind === "pronoun" || !m.owner || absorbed.has(m)) continue;
    const predicate = m.type === "person" ? `has_${snake(m.head)}` : "has";
    drafts.push({ subject: { name: m.owner, type: m.ownerType, literal: false }, predicate, object: mentionSide(m)!, clause: null, undated: true });
  }
  return drafts;
}

/** The date expressions inside a clause. */
export function clauseDates(s: ParsedSentence, clause: Clause, dates: DateSpan[]): DateSpan[] {
  const from = s.toks[clause.a]?.start ?? 0;
  const to = s.toks[clause.b - 1]?.end ?? s.text.length;
  return dates.filter((x) => x.start >= from && x.start < to);
}
