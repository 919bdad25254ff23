import { finish, type Sliced } from "../../slices";
import { wordPattern } from "../../text/words";

/**
 * Small text helpers shared by the builtin tasks. Kept free of compromise so that the cheap
 * tasks (embed, summarize, answer) do not pay for a full NLP parse.
 */

/** How many words(text) has, a few thousand at a time (a long text is read in slices). */
export function* countingWords(text: string): Sliced<number> {
  let n = 0;
  for (const _ of text.toLowerCase().matchAll(wordPattern())) {
    n += 1;
    if (n % 4096 === 0) yield;
  }
  return n;
}

/** A cheap token estimate (about 1.3 tokens per English word), the figure every builtin task reports. */
export function estimateTokens(text: string): number {
  return finish(estimating(text));
}

/** estimateTokens as work in steps. */
export function* estimating(text: string): Sliced<number> {
  return Math.round((yield* countingWords(text)) * 1.3);
}

/** "Lives In" → "lives_in"; what every predicate goes through. */
export function snake(text: string): string {
  return text
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, "_")
    .replace(/^_+|_+$/g, "");
}
