import { has, isDateTok, type Tok } from "./tokens";
import { CORP_SUFFIXES, FORCE_VERBS, HONORIFICS } from "./lexicon";

/**
 * Token-level span finders: proper-name runs and common noun phrases. mentions.ts turns the
 * spans into named mentions.
 */

export const isCapitalised = (t: Tok): boolean => /^\p{Lu}/u.test(t.text);
/**
 * "Marta's", "James'", "kids'"; not "Marta's going" (compromise expands that to "is"). The mark
 * must be on the token itself: compromise tags every word of "Orvane Media's" as possessive, and
 * taking "Orvane" for an owner would make "Orvane" + "Media's" a title like "Charlotte's Web".
 */
export const isPossessive = (t: Tok): boolean =>
  (has(t, "Possessive") && (/['’]s$/i.test(t.text) || /^['’]/.test(t.post))) || /s['’]$/.test(t.text);
/** Punctuation after a token that ends a phrase: "cool, Marta", "kids & work". */
export const breaksAfter = (t: Tok): boolean => /[,;:&()—–]|\s-\s?|^-$/.test(t.post);
export const stripPossessive = (s: string): string => s.replace(/['’]s?$/, "");

/**
 * The words of toks[a, b) as written, for a name. Before the hidden half of a contraction
 * ("Marta's going", "Emma'll come") the last word drops the contracted verb: the name is "Marta".
 */
export function spanText(toks: Tok[], a: number, b: number): string {
  const words = toks.slice(a, b).map((x) => x.text).filter(Boolean);
  if (toks[b]?.text === "" && words.length > 0) words.push(words.pop()!.replace(/['’]\p{L}+$/u, ""));
  return words.join(" ");
}

export function isProperTok(toks: Tok[], i: number): boolean {
  const t = toks[i];
  if (!t || !isCapitalised(t) || has(t, "Pronoun") || isDateTok(t)) return false;
  if (HONORIFICS.has(t.word) || CORP_SUFFIXES.has(t.word)) return true;
  const named = ["ProperNoun", "Person", "Place", "Organization", "Acronym"].some((tag) => has(t, tag));
  // A capital at the start of a sentence proves nothing unless a name follows ("Acme GmbH");
  // elsewhere a capitalised noun is a name.
  if (i === 0) return named || (has(t, "Noun") && isProperTok(toks, 1) && !has(toks[1], "Pronoun"));
  return named || (has(t, "Noun") && !has(t, "Determiner"));
}

export function isNounTok(t: Tok | undefined): boolean {
  if (!t || isDateTok(t) || has(t, "Pronoun") || has(t, "Possessive") || FORCE_VERBS.has(t.word)) return false;
  return (has(t, "Noun") && !has(t, "Verb")) || has(t, "Acronym");
}
const isModifierTok = (t: Tok | undefined): boolean =>
  t !== undefined && !isDateTok(t) && (has(t, "Adjective") || (has(t, "Value") && !has(t, "Ordinal")) || has(t, "Ordinal"));

/** A number written in digits ("3.1", "$3.9", "-4", "12%"), not a date or a rank. */
export const isNumberTok = (t: Tok | undefined): boolean =>
  t !== undefined && has(t, "Value") && !has(t, "Ordinal") && !isDateTok(t) && /^[-+−]?[$€£¥₹]?\d/u.test(t.text);

/** End of the quantity at i: its number words ("3.9 million"), then its unit or counted noun phrase. */
export function quantityRun(toks: Tok[], i: number): number {
  let end = i;
  while (end < toks.length && has(toks[end], "Value") && !isDateTok(toks[end]!)) {
    end += 1;
    if (breaksAfter(toks[end - 1]!)) return end;
  }
  const run = commonRun(toks, end);
  return run && run.end > end ? run.end : end;
}

/** Proper run starting at i: [end, type]. Joins honorifics, corporate suffixes and "X of Y". */
export function properRun(toks: Tok[], i: number): { end: number; type: string } {
  let end = i;
  while (isProperTok(toks, end)) {
    end += 1;
    if (isPossessive(toks[end - 1]!) || breaksAfter(toks[end - 1]!)) break;
    if (toks[end]?.word === "of" && isProperTok(toks, end + 1) && !isPossessive(toks[end - 1]!)) end += 1;
  }
  const span = toks.slice(i, end);
  const type = span.some((t) => has(t, "Organization") || CORP_SUFFIXES.has(t.word))
    ? "organization"
    : span.some((t) => has(t, "Person") || HONORIFICS.has(t.word))
      ? "person"
      : span.some((t) => has(t, "Place"))
        ? "place"
        : "";
  return { end, type };
}

/** How a token reads inside an entity name: names keep their case, common words are lower-cased. */
export const display = (t: Tok): string =>
  isCapitalised(t) && (t.i > 0 || has(t, "ProperNoun") || has(t, "Acronym")) ? t.text : t.word;

/** Common noun phrase from i (after any determiner): [end, head index] or null. */
export function commonRun(toks: Tok[], i: number): { end: number; head: number } | null {
  let end = i;
  let head = -1;
  while (end < toks.length) {
    const t = toks[end]!;
    if (isPossessive(t)) break; // "Marta's" starts a new, possessed phrase
    // "our family loves camping": compromise may read "loves" as a plural noun
    if (head >= 0 && FORCE_VERBS.has(t.word)) break;
    const proper = isProperTok(toks, end);
    // a name may lead a phrase ("NASA science camp") but one after it is an apposition ("sister Emma")
    if (proper && head >= 0 && !isProperTok(toks, head)) break;
    if (isNounTok(t) || proper) head = end;
    else if (!isModifierTok(t)) break;
    end += 1;
    if (breaksAfter(t)) break;
  }
  if (head < 0) return null;
  // "a cup of coffee": one phrase
  if (toks[head + 1]?.word === "of" && !breaksAfter(toks[head]!) && isNounTok(toks[head + 2])) {
    const tail = commonRun(toks, head + 2);
    if (tail) return tail;
  }
  return { end: head + 1, head };
}

