import type { Sliced } from "../../slices";
import { STOP_WORDS, words } from "../../text/words";

/**
 * Hashed embeddings ("feature hashing"): every word, word pair and character trigram of a word
 * adds ±weight to one of DIMENSIONS buckets chosen by a stable hash, then the vector is
 * L2-normalised. No model, no download, and texts that share words or word pieces point the
 * same way. The trigrams make "paint" and "painting" similar; the pairs reward shared phrases.
 */
export const EMBEDDING_DIMENSIONS = 256;

const WEIGHT = { word: 1, stopWord: 0.2, pair: 0.6, trigram: 0.35 } as const;

/** FNV-1a, 32 bits, over UTF-16 code units: stable across runs and platforms. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function add(vec: Float64Array, feature: string, weight: number): void {
  const h = fnv1a(feature);
  const index = h % vec.length;
  // the sign comes from other bits of the hash, so colliding features tend to cancel, not pile up
  const sign = (h >>> 16) & 1 ? 1 : -1;
  vec[index] = (vec[index] ?? 0) + sign * weight;
}

export function embedText(text: string, dimensions = EMBEDDING_DIMENSIONS): number[] {
  const vec = new Float64Array(dimensions);
  const ws = words(text);
  for (let i = 0; i < ws.length; i += 1) {
    const w = ws[i]!;
    const stop = STOP_WORDS.has(w);
    add(vec, `w:${w}`, stop ? WEIGHT.stopWord : WEIGHT.word);
    const next = ws[i + 1];
    if (next !== undefined && !(stop && STOP_WORDS.has(next))) add(vec, `p:${w} ${next}`, WEIGHT.pair);
    if (!stop) {
      const padded = `^${w}$`;
      for (let j = 0; j + 3 <= padded.length; j += 1) add(vec, `t:${padded.slice(j, j + 3)}`, WEIGHT.trigram);
    }
  }
  let norm = 0;
  for (const x of vec) norm += x * x;
  norm = Math.sqrt(norm);
  // an empty (or all-punctuation) text is the zero vector, never NaN
  return Array.from(vec, (x) => (norm > 0 ? x / norm : 0));
}

/** Embeddings of several texts as work in steps, a text at a time. */
export function* embedding(texts: readonly string[]): Sliced<number[][]> {
  const out: number[][] = [];
  for (const t of texts) {
    out.push(embedText(t));
    yield;
  }
  return out;
}
