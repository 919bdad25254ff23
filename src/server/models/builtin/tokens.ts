import nlp from "compromise";

/**
 * compromise's parse flattened into plain tokens. We keep only what the patterns read: the
 * surface text, a lower-case word (contractions expanded: "I'm" → "i" + "am"), compromise's
 * tags, the verb root and character offsets into the sentence (dates are found by offset).
 */
export interface Tok {
  i: number;
  /** surface text without punctuation; "" for the hidden half of a contraction */
  text: string;
  /** lower-case word, contractions expanded */
  word: string;
  tags: ReadonlySet<string>;
  /** infinitive for verbs ("went" → "go"), else null */
  root: string | null;
  /** punctuation after the token (",", ".") — clause boundaries */
  post: string;
  start: number;
  end: number;
}

export interface ParsedSentence {
  text: string;
  toks: Tok[];
}

/** The subset of compromise's term JSON we read (its own .d.ts types json() as any). */
interface TermJson {
  text: string;
  pre: string;
  post: string;
  normal?: string;
  implicit?: string;
  root?: string;
  tags: string[];
}

export function parseSentences(text: string): ParsedSentence[] {
  const doc = nlp(text);
  // "revenue rose to 3.9 M": compromise reads the flower; between a noun and a preposition it is
  // the past of "rise"
  doc.match("#Noun [rose] (to|from|by|#Preposition)", 0).tag("PastTense");
  doc.compute("root");
  // `root` is a real option that compromise's typings leave out; a variable skips the literal check
  const options = { terms: { root: true, normal: true, implicit: true } };
  const json = doc.json(options) as { terms: TermJson[] }[];
  return json.map((s) => {
    const joined = s.terms.map((t) => t.pre + t.text + t.post).join("");
    // offsets are into the trimmed sentence text
    let offset = -(joined.length - joined.trimStart().length);
    const toks: Tok[] = [];
    for (const t of s.terms) {
      const start = offset + t.pre.length;
      const end = start + t.text.length;
      offset = end + t.post.length;
      toks.push({
        i: toks.length,
        text: t.text,
        word: (t.implicit ?? t.normal ?? t.text).toLowerCase(),
        tags: new Set(t.tags),
        root: t.root ?? null,
        post: t.post.trim(),
        start,
        end,
      });
    }
    return { text: joined.trim(), toks };
  });
}

const DATE_TAGS = ["Date", "Month", "WeekDay", "Year", "Duration", "Time"];

/** Tokens that belong to a date expression: never part of an entity. */
export function isDateTok(t: Tok): boolean {
  return DATE_TAGS.some((tag) => t.tags.has(tag)) || t.word === "ago";
}

export const has = (t: Tok | undefined, tag: string): boolean => t !== undefined && t.tags.has(tag);
