import type { Mention } from "./mentions";
import { has, type Tok } from "./tokens";
import { findVerbGroup, isVerbTok, type VerbGroup } from "./verbs";
import { CLAUSE_JOINERS, PREPOSITIONS } from "./lexicon";

/** A clause: toks[a, b) with its verb group (null when it has none). */
export interface Clause {
  a: number;
  b: number;
  vg: VerbGroup | null;
}

const isJoiner = (t: Tok): boolean => CLAUSE_JOINERS.has(t.word) && !has(t, "Verb");
const endsWithComma = (t: Tok): boolean => /[,;:]/.test(t.post);

function hasVerb(toks: Tok[], a: number, b: number): boolean {
  for (let k = a; k < b; k += 1) if (isVerbTok(toks, k)) return true;
  return false;
}

/** End of the segment that starts at k: the next joiner word or comma. */
function segmentEnd(toks: Tok[], k: number): number {
  for (; k < toks.length; k += 1) {
    if (isJoiner(toks[k]!)) return k;
    if (endsWithComma(toks[k]!)) return k + 1;
  }
  return toks.length;
}

/**
 * Split at "and", "but", commas … only where both sides have a verb: "Alice and Bob live in
 * Paris" stays one clause, "I went to a group and it was powerful" becomes two.
 */
export function splitClauses(toks: Tok[]): Clause[] {
  const cuts: [number, number][] = [];
  let a = 0;
  for (let k = 0; k < toks.length; k += 1) {
    const t = toks[k]!;
    if (isJoiner(t) && k > a && hasVerb(toks, a, k) && hasVerb(toks, k + 1, segmentEnd(toks, k + 1))) {
      cuts.push([a, k]);
      a = k + 1;
    } else if (endsWithComma(t) && hasVerb(toks, a, k + 1) && hasVerb(toks, k + 1, segmentEnd(toks, k + 1))) {
      cuts.push([a, k + 1]);
      a = k + 1;
    }
  }
  if (a < toks.length) cuts.push([a, toks.length]);
  return cuts.map(([ca, cb]) => ({ a: ca, b: cb, vg: findVerbGroup(toks, ca, cb) }));
}

/**
 * The subject mentions of a clause: the last mention before the verb that is not inside a
 * prepositional phrase ("In Paris, Alice …"), plus any joined to it by "and" ("Alice and Bob").
 */
export function clauseSubjects(toks: Tok[], clause: Clause, vg: VerbGroup, mentions: Mention[]): Mention[] {
  const before = mentions.filter((m) => m.start >= clause.a && m.end <= vg.start);
  const inPP = (m: Mention): boolean => m.start > clause.a && PREPOSITIONS.has(toks[m.start - 1]?.word ?? "");
  let idx = before.length - 1;
  while (idx >= 0 && inPP(before[idx]!)) idx -= 1;
  if (idx < 0) return [];
  const out = [before[idx]!];
  while (idx > 0) {
    const prev = before[idx - 1]!;
    const gap = toks.slice(prev.end, before[idx]!.start);
    const joined = gap.every((t) => t.word === "and" || t.word === "or") && (gap.length > 0 || endsWithComma(toks[prev.end - 1]!));
    if (!joined || gap.length > 1) break;
    out.unshift(prev);
    idx -= 1;
  }
  return out;
}
