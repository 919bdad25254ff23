import { finish, type Sliced } from "../slices";

/*
 * The one sentence splitter: chunking, the builtin summariser and extractor all read sentences
 * from here. Paragraphs are split at blank lines, sentences by Intl.Segmenter, with the cuts it
 * makes after abbreviations like "Dr." or "e.g." undone.
 *
 * Linear in the text, whatever its shape: V8's segmenter costs, per sentence, time in the length
 * of the string it walks, so it is only ever handed windows of SEGMENTER_WINDOW characters, and
 * the rules that undo a cut read only the last TAIL characters of a sentence. The work is a
 * generator (../slices) so that callers on the request thread run it in slices.
 */

export const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);

/** `at`, moved back one when it would cut a surrogate pair in two (and that stays after `floor`). */
export function safeCut(text: string, at: number, floor: number): number {
  return at < text.length && /[\uDC00-\uDFFF]/.test(text[at]!) && at - 1 > floor ? at - 1 : at;
}

/**
 * Words that end in a period without ending the sentence. Only words that practically never end
 * one: "Inc.", "etc." or "Jr." often do, and are left to the lower-case and digit rules below.
 */
const ABBREVIATIONS: ReadonlySet<string> = new Set(
  (
    "mr mrs ms mx dr prof sr st mt ft rev fr hon gen col lt sgt capt cmdr adm gov sen rep pres supt " +
    "vs v viz cf ca approx dept univ fig figs eq eqs vol vols pp ch sec no nos al est"
  ).split(" "),
);

/** Characters that close a sentence after its final punctuation: quotes and brackets. */
const CLOSERS = /["'”’)\]]*$/;

/**
 * The last characters of [a, b): what the sentence rules read. A sentence grows as cuts are
 * undone, so reading all of it at every cut would be quadratic.
 */
const TAIL = 64;
const tailOf = (text: string, a: number, b: number): string => text.slice(Math.max(a, b - TAIL), b);

/** Does the sentence [a, b) end in a period that is not a full stop? */
function endsInAbbreviation(text: string, a: number, b: number): boolean {
  const s = tailOf(text, a, b).replace(CLOSERS, "");
  if (!s.endsWith(".") || s.endsWith("..")) return false;
  const m = /(\S+)\.$/.exec(s);
  // a word longer than the tail is no abbreviation
  if (!m || (m.index === 0 && b - a > TAIL)) return false;
  const word = m[1]!.replace(/^["'“‘(\[]+/, "");
  if (ABBREVIATIONS.has(word.toLowerCase())) return true;
  // an initial ("J. R. R. Tolkien"), or a dotted abbreviation ("e.g.", "i.e.", "U.S.", "p.m.")
  return /^\p{L}$/u.test(word) || /^(?:\p{L}{1,3}\.)+\p{L}{1,3}$/u.test(word);
}

/** Sentences never start in lower case or with a digit: "… e.g. apples", "No. 5". */
const continuesSentence = (text: string, at: number): boolean => /^[\p{Ll}\p{N},;:]/u.test(text.slice(at, at + 1));

/**
 * Is the segmenter's cut between `prev` and the sentence at `next` a false one? On one line:
 * after an abbreviation, or before a lower-case word. Across a line break (the segmenter cuts at
 * every one): only a hard-wrapped sentence, one whose line ends without a full stop and whose
 * next line goes on in lower case or after a comma; "Dr." at the end of a line stays a cut.
 */
function joins(text: string, prev: { start: number; end: number }, next: number): boolean {
  if (!text.slice(prev.end, next).includes("\n")) {
    return endsInAbbreviation(text, prev.start, prev.end) || continuesSentence(text, next);
  }
  const tail = tailOf(text, prev.start, prev.end).replace(CLOSERS, "");
  if (/[.!?…:;]$/.test(tail)) return false;
  return tail.endsWith(",") || /^\p{Ll}/u.test(text.slice(next, next + 1));
}

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

/**
 * The segmenter's window. V8's segmenter costs, per sentence, time in the length of the string it
 * walks, so one paragraph of 1 MiB took minutes; it is handed windows of this many characters.
 */
export const SEGMENTER_WINDOW = 4096;

interface RawSentence {
  start: number;
  end: number;
  /** cut at the end of a window: the sentence goes on in the next one */
  cut: boolean;
}

/**
 * Trimmed sentence spans of [a, b) as the segmenter cuts them, window by window: every window
 * but the last gives up its last sentence, which starts the next window, so that each cut is made
 * with the text after it in view. A window that is one sentence (a sentence longer than a window)
 * is cut at its last blank and marked, and joined again below.
 */
function* segments(text: string, a: number, b: number): Sliced<RawSentence[]> {
  const out: RawSentence[] = [];
  const push = (start: number, segment: string, cut: boolean) => {
    const lead = segment.length - segment.trimStart().length;
    const body = segment.trim();
    if (body.length > 0) out.push({ start: start + lead, end: start + lead + body.length, cut });
  };
  let from = a;
  while (from < b) {
    const last = b - from <= SEGMENTER_WINDOW;
    let to = b;
    if (!last) {
      to = from + SEGMENTER_WINDOW;
      // end the window between words when one ends in its last quarter
      for (let p = to; p > from + (SEGMENTER_WINDOW * 3) / 4; p -= 1) {
        if (isSpace(text[p - 1])) {
          to = p;
          break;
        }
      }
      to = safeCut(text, to, from);
    }
    const segs = [...segmenter.segment(text.slice(from, to))];
    const keep = last ? segs.length : Math.max(1, segs.length - 1);
    for (let i = 0; i < keep; i += 1) push(from + segs[i]!.index, segs[i]!.segment, !last && segs.length === 1);
    from = last ? b : segs.length > 1 ? from + segs[keep]!.index : to;
    yield;
  }
  return out;
}

/** Trimmed sentence spans of one paragraph [a, b), in order. */
export function* paragraphSentences(text: string, a: number, b: number): Sliced<{ start: number; end: number }[]> {
  const raw = yield* segments(text, a, b);
  const out: RawSentence[] = [];
  for (const s of raw) {
    const prev = out[out.length - 1];
    if (prev && (prev.cut || joins(text, prev, s.start))) {
      prev.end = s.end;
      prev.cut = s.cut;
    } else out.push({ ...s });
  }
  return out.map(({ start, end }) => ({ start, end }));
}

/** Paragraphs: runs of text between blank lines, as [start, end) of the original text. */
export function paragraphs(text: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  const blank = /\n[ \t\r\f\v]*\n\s*/g;
  let from = 0;
  for (const m of text.matchAll(blank)) {
    out.push({ start: from, end: m.index });
    from = m.index + m[0].length;
  }
  out.push({ start: from, end: text.length });
  return out.filter((p) => /\S/.test(text.slice(p.start, p.end)));
}

/** The sentence spans of a text, trimmed, in order (exported for tests and callers that cite sentences). */
export function sentenceSpans(text: string): { start: number; end: number }[] {
  return paragraphs(text).flatMap((p) => finish(paragraphSentences(text, p.start, p.end)));
}

/** The sentences of a text, trimmed, in order, as strings. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map((s) => text.slice(s.start, s.end));
}
