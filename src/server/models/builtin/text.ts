import { finish, type Sliced } from "../../slices";

/**
 * Small text helpers shared by the builtin tasks. Kept free of compromise so that the cheap
 * tasks (embed, summarize, answer) do not pay for a full NLP parse.
 */

export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being " +
    "below between both but by can could did do does doing down during each few for from further " +
    "had has have having he her here hers herself him himself his how i if in into is it its itself " +
    "just me more most my myself no nor not now of off on once only or other our ours ourselves out " +
    "over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which " +
    "while who whom why will with would you your yours yourself yourselves also really just got get " +
    "im ive id ill dont didnt doesnt isnt wasnt cant wont yes yeah oh okay ok well like lot lots"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Lower-cased word tokens (letters, digits, inner apostrophes dropped: "don't" → "dont"). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    out.push(m[0].replace(/['’]/g, ""));
  }
  return out;
}

/** How many words(text) has, a few thousand at a time (a long text is read in slices). */
export function* countingWords(text: string): Sliced<number> {
  let n = 0;
  for (const _ of text.toLowerCase().matchAll(WORD)) {
    n += 1;
    if (n % 4096 === 0) yield;
  }
  return n;
}

/** Words that carry meaning: no stop words, no one-letter tokens. */
export function contentWords(text: string): string[] {
  return words(text).filter((w) => w.length > 1 && !STOP_WORDS.has(w));
}

/** A cheap token estimate (about 1.3 tokens per English word), the figure every builtin task reports. */
export function estimateTokens(text: string): number {
  return finish(estimating(text));
}

/** estimateTokens as work in steps. */
export function* estimating(text: string): Sliced<number> {
  return Math.round((yield* countingWords(text)) * 1.3);
}

/**
 * Split into sentences on ., !, ? or line breaks. Abbreviations like "Dr." may split a sentence
 * in two; for extractive summaries and answers that costs little.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const para of text.split(/\n+/)) {
    for (const m of para.matchAll(/[^.!?]+(?:[.!?]+["')\]]*|$)/g)) {
      const s = m[0].trim();
      if (s.length > 0) out.push(s);
    }
  }
  return out;
}

/** "Lives In" → "lives_in"; what every predicate goes through. */
export function snake(text: string): string {
  return text
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, "_")
    .replace(/^_+|_+$/g, "");
}
