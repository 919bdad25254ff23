import { stemmer } from "stemmer";
import { eng } from "stopword";

/*
 * Words, stop words and stems for the builtin models (summaries, extractive answers, chat quotes,
 * hashed embeddings). Full-text retrieval does not use these: the tsvectors (gb_chunks.search_tsv,
 * gb_facts.sentence_tsv), the term statistics store keeps and BM25's question terms are all made
 * by PostgreSQL's to_tsvector('english') (its Snowball stemmer and stop list), so stored lexemes
 * and question lexemes always agree; a stemmer here would have to match them exactly.
 */

/**
 * The stopword package's English list, plus what it leaves out that a chat transcript is full of:
 * pronouns, auxiliaries and negations it lacks (the list the builtin models used before had them,
 * and hashed embeddings already stored weigh them as stop words), single letters, contractions as
 * words() spells them (apostrophes dropped: "don't" → "dont") and fillers ("yeah", "okay", "lots").
 */
const CHAT_STOP_WORDS =
  "a i she her hers herself its itself myself ours ourselves theirs themselves yours yourself yourselves " +
  "does doing having few own when whom why will against again below above down off once further until during no nor not so " +
  "im ive id ill dont didnt doesnt isnt wasnt cant wont yes yeah oh okay ok well like lot lots really just got get";

export const STOP_WORDS: ReadonlySet<string> = new Set([...eng, ...CHAT_STOP_WORDS.split(" ")]);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Lower-cased word tokens (letters, digits, inner apostrophes dropped: "don't" → "dont"). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) out.push(m[0].replace(/['’]/g, ""));
  return out;
}

/** The words' matcher, for callers that count words a few thousand at a time. */
export const wordPattern = (): RegExp => new RegExp(WORD.source, WORD.flags);

/** Words that carry meaning: no stop words, no one-letter tokens. */
export function contentWords(text: string): string[] {
  return words(text).filter((w) => w.length > 1 && !STOP_WORDS.has(w));
}

/** The Porter stem of a lower-case word: "moved" and "move", "groups" and "group" meet. */
export const stem = (word: string): string => stemmer(word);
