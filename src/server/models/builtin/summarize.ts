import { splitSentences } from "../../text/sentences";
import { contentWords } from "../../text/words";

/** Longest summary we return, in characters. */
export const SUMMARY_MAX_CHARS = 300;
const MAX_SENTENCES = 3;

/** Cut at a word boundary and mark the cut. */
function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Extractive summary: the 1–3 sentences whose content words are most frequent in the whole
 * text, in their original order, within SUMMARY_MAX_CHARS. Scores are divided by the square root
 * of the sentence's word count so that long sentences do not win by length alone.
 */
export function summarizeText(text: string): string {
  const sentences = splitSentences(text);
  if (sentences.length <= 1) return cap((sentences[0] ?? text).trim(), SUMMARY_MAX_CHARS);
  const tf = new Map<string, number>();
  for (const w of contentWords(text)) tf.set(w, (tf.get(w) ?? 0) + 1);
  const scored = sentences.map((s, index) => {
    const distinct = new Set(contentWords(s));
    let sum = 0;
    for (const w of distinct) sum += tf.get(w) ?? 0;
    return { s, index, score: distinct.size === 0 ? 0 : sum / Math.sqrt(distinct.size) };
  });
  // best first; ties go to the earlier sentence, which keeps the result deterministic
  const ranked = [...scored].sort((a, b) => b.score - a.score || a.index - b.index);
  const picked: typeof scored = [];
  let length = 0;
  for (const c of ranked) {
    if (picked.length >= MAX_SENTENCES) break;
    const extra = c.s.length + (picked.length > 0 ? 1 : 0);
    if (picked.length > 0 && length + extra > SUMMARY_MAX_CHARS) continue;
    picked.push(c);
    length += extra;
  }
  const summary = picked.sort((a, b) => a.index - b.index).map((c) => c.s).join(" ");
  return cap(summary, SUMMARY_MAX_CHARS);
}
