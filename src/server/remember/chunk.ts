import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import { finish, type Sliced } from "../slices";
import { isSpace, paragraphs, paragraphSentences, safeCut } from "../text/sentences";

/**
 * chunk_text: token-aware, sentence-respecting chunks with overlap.
 *
 * The text is read as paragraphs of sentences (../text/sentences, the one sentence splitter: it
 * keeps the same linear bound, the segmenter only ever sees a window). Sentences are packed greedily
 * into chunks of at most `maxTokens` o200k tokens; when a chunk is full and a paragraph began in
 * its second half, the chunk ends at that paragraph instead. A sentence longer than `maxTokens`
 * is split between words (and a single "word" longer than that, such as a pasted blob, between
 * characters). Each chunk after the first starts with the last whole sentences of the one before,
 * as many as fit in `overlapTokens`, never all of them. Content is always the original text
 * between `start` and `end`, so whitespace and line breaks inside a chunk are kept.
 *
 * Every step is linear in the text, whatever its shape: the tokenizer and the segmenter only ever
 * see bounded pieces (both cost more than linearly in the length of what they are handed: BPE in
 * the length of one word, V8's sentence segmenter in the length of the string it walks), and no
 * step re-reads the rest of the text. The work is a generator (../slices) so that remember runs it
 * in slices that let the event loop turn.
 */

export interface Chunk {
  index: number;
  /** text.slice(start, end) */
  content: string;
  /** o200k_base tokens of content */
  tokenCount: number;
  /** character offset of the chunk's first character in the original text */
  start: number;
  /** character offset just past the chunk's last character */
  end: number;
}

export interface ChunkOptions {
  maxTokens: number;
  overlapTokens: number;
}

/** The tokenizer, behind a seam that tests can watch (how much text it is handed, in what pieces). */
export const tokenizer = { count: (text: string): number => countO200k(text) };

/** The longest piece of text handed to the tokenizer at once. */
export const TOKENIZER_SPAN = 1024;
/** A word longer than this is counted (and split) in pieces of this many characters. */
export const LONG_WORD = 256;

/**
 * Where to cut `text` so that each piece has at most TOKENIZER_SPAN characters: at a space that
 * follows a non-space, which is always a boundary of o200k's pre-tokenizer (so the counts add up
 * exactly), or, inside a run with no such space (a long word, a long run of blanks), every
 * LONG_WORD characters: BPE is quadratic in the length of one word, and a 1 MiB "word" would take
 * hours. Such a word's count is then an estimate, off by a token or so per piece.
 */
function tokenizerCut(text: string, from: number): number {
  if (text.length - from <= TOKENIZER_SPAN) return text.length;
  for (let p = from + TOKENIZER_SPAN; p > from; p -= 1) {
    if (text[p] === " " && !isSpace(text[p - 1])) return p;
  }
  return safeCut(text, from + LONG_WORD, from);
}

/** Tokens of `text` in the o200k_base encoding (gpt-4o, gpt-4.1, gpt-5 …), in linear time. */
export function countTokens(text: string): number {
  return text.length <= TOKENIZER_SPAN ? tokenizer.count(text) : finish(counting(text));
}

/** countTokens as work in steps, a piece at a time. */
export function* counting(text: string): Sliced<number> {
  let n = 0;
  for (let from = 0; from < text.length; ) {
    const to = tokenizerCut(text, from);
    n += tokenizer.count(text.slice(from, to));
    from = to;
    yield;
  }
  return n;
}

/** A sentence (or a piece of an over-long one), trimmed, with its place in the text. */
interface Unit {
  start: number;
  end: number;
  tokens: number;
  /** first unit of a paragraph */
  paragraphStart: boolean;
  /** a piece of a sentence split for length: not used as overlap */
  fragment: boolean;
}

/**
 * The longest prefix of [a, b) that ends at one of `cuts` (offsets after a, ascending, the last
 * one b) and has at most `max` tokens; the end offset. `estimate(i)` is a running token
 * estimate up to cuts[i]; the exact count decides.
 */
function fitPrefix(text: string, a: number, cuts: number[], estimate: (i: number) => number, max: number): number {
  let i = 0;
  while (i + 1 < cuts.length && estimate(i + 1) <= max) i += 1;
  while (i > 0 && countTokens(text.slice(a, cuts[i])) > max) i -= 1;
  return cuts[i]!;
}

/**
 * Split a span that is longer than `max` tokens into pieces that are not, between words when it
 * can (a word longer than LONG_WORD counts as several). Each piece reads at most about twice
 * `max` tokens of words ahead, so the whole is linear in the span.
 */
function* splitLong(text: string, a: number, b: number, max: number): Sliced<{ start: number; end: number }[]> {
  const out: { start: number; end: number }[] = [];
  const word = new RegExp(`\\s*\\S{1,${LONG_WORD}}`, "gu");
  let from = a;
  while (from < b) {
    // word ends after `from`, until far enough: the rest is the next piece's business
    const cuts: number[] = [];
    const sums: number[] = [];
    let sum = 0;
    word.lastIndex = from;
    while (sum <= max * 2) {
      const m = word.exec(text);
      if (m === null || m.index >= b) break;
      const end = Math.min(b, m.index + m[0].length);
      sum += countTokens(text.slice(m.index, end));
      cuts.push(end);
      sums.push(sum);
      if (end === b) break;
    }
    if (cuts.length === 0) break;
    if (cuts[cuts.length - 1] === b && countTokens(text.slice(from, b)) <= max) {
      out.push({ start: from, end: b });
      break;
    }
    const firstWordFits = countTokens(text.slice(from, cuts[0])) <= max;
    const end = firstWordFits ? fitPrefix(text, from, cuts, (i) => sums[i]!, max) : splitWord(text, from, cuts[0]!, max);
    out.push({ start: from, end });
    from = end;
    while (from < b && isSpace(text[from])) from += 1;
    yield;
  }
  return out.map((p) => ({ start: p.start, end: p.start + text.slice(p.start, p.end).trimEnd().length }));
}

/** The end of the longest prefix of one over-long word [a, b) with at most `max` tokens (≥ 1 character). */
function splitWord(text: string, a: number, b: number, max: number): number {
  let lo = a + 1;
  let hi = b;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(text.slice(a, mid)) <= max) lo = mid;
    else hi = mid - 1;
  }
  // never cut a surrogate pair in two
  return safeCut(text, lo, a);
}

function* units(text: string, max: number): Sliced<Unit[]> {
  const out: Unit[] = [];
  for (const p of paragraphs(text)) {
    let first = true;
    for (const s of yield* paragraphSentences(text, p.start, p.end)) {
      const tokens = countTokens(text.slice(s.start, s.end));
      if (tokens <= max) {
        out.push({ ...s, tokens, paragraphStart: first, fragment: false });
      } else {
        for (const piece of yield* splitLong(text, s.start, s.end, max)) {
          const pieceTokens = countTokens(text.slice(piece.start, piece.end));
          out.push({ ...piece, tokens: pieceTokens, paragraphStart: first, fragment: true });
          first = false;
        }
      }
      first = false;
      yield;
    }
  }
  return out;
}

/** A chunk ending where a paragraph starts is preferred once it holds this share of maxTokens. */
const PARAGRAPH_CUT_SHARE = 0.5;

/** The chunks of a text (at once; remember runs chunking() in slices). */
export function chunkText(text: string, opts: ChunkOptions): Chunk[] {
  return finish(chunking(text, opts)).chunks;
}

/** chunkText as work in steps, with the text's token count (o200k, as countTokens). */
export function* chunking(text: string, opts: ChunkOptions): Sliced<{ tokens: number; chunks: Chunk[] }> {
  const max = Math.max(1, Math.floor(opts.maxTokens));
  const overlapBudget = Math.max(0, Math.floor(opts.overlapTokens));
  const trimmedStart = text.length - text.trimStart().length;
  const trimmed = text.trim();
  if (trimmed.length === 0) return { tokens: 0, chunks: [] };
  const whole = yield* counting(trimmed);
  if (whole <= max) return { tokens: whole, chunks: [{ index: 0, content: trimmed, tokenCount: whole, start: trimmedStart, end: trimmedStart + trimmed.length }] };

  const u = yield* units(text, max);
  // units are separated by whitespace, which may cost a token of its own
  const before: number[] = [0];
  for (const x of u) before.push(before[before.length - 1]! + x.tokens + 1);
  /** estimated tokens of units from..to: their own plus one per gap */
  const span = (from: number, to: number): number => before[to + 1]! - before[from]! - 1;
  const exact = (from: number, to: number): number => countTokens(text.slice(u[from]!.start, u[to]!.end));

  const chunks: Chunk[] = [];
  let first = 0; // first unit not yet in any chunk
  let overlap = 0; // first unit of the current chunk (≤ first)
  while (first < u.length) {
    // the overlap must leave room for at least the first new unit
    while (overlap < first && exact(overlap, first) > max) overlap += 1;
    let last = first;
    while (last + 1 < u.length && span(overlap, last + 1) <= max) last += 1;
    while (last > first && exact(overlap, last) > max) last -= 1;
    if (last + 1 < u.length && !u[last + 1]!.paragraphStart) {
      // full mid-paragraph: end where the last paragraph past the share starts, if one does
      for (let k = last; k > first; k -= 1) {
        if (u[k]!.paragraphStart && span(overlap, k - 1) >= max * PARAGRAPH_CUT_SHARE) {
          last = k - 1;
          break;
        }
      }
    }
    const start = u[overlap]!.start;
    const end = u[last]!.end;
    const content = text.slice(start, end);
    chunks.push({ index: chunks.length, content, tokenCount: countTokens(content), start, end });
    first = last + 1;
    // the next overlap: whole trailing sentences of this chunk, within budget, never all of it
    const chunkFirst = overlap;
    overlap = first;
    let budget = overlapBudget;
    while (overlap - 1 > chunkFirst && !u[overlap - 1]!.fragment && u[overlap - 1]!.tokens <= budget) {
      budget -= u[overlap - 1]!.tokens;
      overlap -= 1;
    }
    yield;
  }
  return { tokens: whole, chunks };
}
