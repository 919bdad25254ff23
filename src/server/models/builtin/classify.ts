import type { Complexity } from "../types";
import { estimateTokens, words } from "./text";

/** At or above this many (estimated) tokens a text is complex and gets chunked. */
export const COMPLEX_TOKENS = 400;
/** A shorter text dense with names (per 100 words) is complex too, once it is at least this long. */
export const DENSE_MIN_TOKENS = 200;
export const DENSE_NAMES_PER_100_WORDS = 20;

/** Capitalised words that do not start a sentence: a cheap count of names, no parse needed. */
function countNames(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/(?<![.!?]\s*|^\s*)\b\p{Lu}[\p{L}'’-]*/gu)) if (m[0] !== "I") n += 1;
  return n;
}

export function classifyText(text: string): Complexity {
  const tokens = estimateTokens(text);
  const wordCount = words(text).length;
  const names = countNames(text);
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
