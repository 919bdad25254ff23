import { finish, type Sliced } from "../../slices";
import type { Complexity } from "../types";
import { countingWords } from "./text";

/** At or above this many (estimated) tokens a text is complex and gets chunked. */
export const COMPLEX_TOKENS = 400;
/** A shorter text dense with names (per 100 words) is complex too, once it is at least this long. */
export const DENSE_MIN_TOKENS = 200;
export const DENSE_NAMES_PER_100_WORDS = 20;

/** Capitalised words that do not start a sentence: a cheap count of names, no parse needed. */
function* countingNames(text: string): Sliced<number> {
  let n = 0;
  let seen = 0;
  for (const m of text.matchAll(/(?<![.!?]\s*|^\s*)\b\p{Lu}[\p{L}'’-]*/gu)) {
    if (m[0] !== "I") n += 1;
    if (++seen % 4096 === 0) yield;
  }
  return n;
}

export function classifyText(text: string): Complexity {
  return finish(classifying(text));
}

/** classifyText as work in steps: a text of a megabyte is read a few thousand words at a time. */
export function* classifying(text: string): Sliced<Complexity> {
  const wordCount = yield* countingWords(text);
  const tokens = Math.round(wordCount * 1.3); // estimateTokens
  const names = yield* countingNames(text);
  const density = wordCount === 0 ? 0 : Math.round((names / wordCount) * 1000) / 10;
  const figures = `~${tokens} tokens, ${names} names (${density} per 100 words)`;
  if (tokens >= COMPLEX_TOKENS) {
    return { complexity: "complex", chunk: true, reason: `${figures}: at least ${COMPLEX_TOKENS} tokens, so it is chunked` };
  }
  if (tokens >= DENSE_MIN_TOKENS && density >= DENSE_NAMES_PER_100_WORDS) {
    return {
      complexity: "complex",
      chunk: true,
      reason: `${figures}: under ${COMPLEX_TOKENS} tokens but at least ${DENSE_NAMES_PER_100_WORDS} names per 100 words, so it is chunked`,
    };
  }
  return { complexity: "simple", chunk: false, reason: `${figures}: under ${COMPLEX_TOKENS} tokens, one chunk` };
}
