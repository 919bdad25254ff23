import { isNicknamePair } from "./nicknames";

/**
 * Alias declarations inside a sentence: "Robert, also known as Bob, …", "Robert (Bob) Smith …",
 * "Robert, who goes by Bob, …", "Robert Smith, aka Bob, …", "Everyone calls Robert 'Bob'.",
 * "Robert is known as Bob.", "the World Health Organization (WHO)". Each gives a (name, alias)
 * pair, and the alias phrase is cut out of the sentence, so that the clause patterns read
 * "Robert works at Acme." and the alias never becomes an entity of its own.
 *
 * Left out: an unquoted "everyone calls Robert Bob" (it reads like "called Robert Smith"), and
 * pronouns ("everyone calls him Bob": who is him is the extractor's business, not a pattern's).
 */

export interface AliasDeclaration {
  /** the name as written, possibly with a leading word that is not part of it ("Yesterday Robert") */
  name: string;
  alias: string;
}

const WORD = String.raw`\p{Lu}[\p{L}\p{M}'’-]*`;
/** up to four capitalised words; inner ones may carry a period ("Dr. Robert Smith") */
const NAME = String.raw`(?:${WORD}\.?\s+){0,3}${WORD}`;
const ALIAS = String.raw`${WORD}(?:\s+${WORD}){0,2}`;
const OPEN = String.raw`["'“‘]`;
const CLOSE = String.raw`["'”’]`;
const AKA = String.raw`(?:also\s+known\s+as|better\s+known\s+as|known\s+as|also\s+called|aka|a\.k\.a\.?|nicknamed|who\s+goes\s+by|who\s+is\s+called|who\s+is\s+known\s+as|whom\s+(?:everyone|everybody|people|we|they|friends|most)\s+calls?|goes\s+by)`;

/** Capitalised words that start sentences without being names. */
const NOT_NAMES = new Set(
  ("the a an this that these those it he she they we i you my our his her their its everyone everybody " +
    "someone people friends yes no so but and or then").split(" "),
);

interface Pattern {
  re: RegExp;
  /** the declaration and the text that replaces the match, or null to leave the match alone */
  read: (m: RegExpExecArray) => { decl: AliasDeclaration; replacement: string } | null;
}

const clean = (s: string): string => s.replace(/\s+/g, " ").trim();

/** The name without sentence-starting words that are not names ("The", "Everyone"). */
function trimName(name: string): string | null {
  const words = clean(name).split(" ");
  while (words.length > 0 && NOT_NAMES.has(words[0]!.toLowerCase())) words.shift();
  return words.length > 0 ? words.join(" ") : null;
}

/** "World Health Organization" / "WHO": the initials of the significant words. */
function isAcronymOf(alias: string, name: string): boolean {
  if (!/^\p{Lu}{2,}$/u.test(alias)) return false;
  const initials = name.split(/\s+/).filter((w) => !/^(?:of|the|for|and|de|du|la)$/i.test(w)).map((w) => w[0]!.toUpperCase()).join("");
  return initials === alias;
}

const decl = (name: string, alias: string, replacement: string): { decl: AliasDeclaration; replacement: string } | null => {
  const n = trimName(name);
  const a = clean(alias);
  if (!n || !a || n.toLowerCase() === a.toLowerCase() || NOT_NAMES.has(a.toLowerCase())) return null;
  return { decl: { name: n, alias: a }, replacement };
};

const PATTERNS: Pattern[] = [
  {
    // "Robert (Bob) Smith": a nickname between first and last name
    re: new RegExp(String.raw`(${NAME})\s*\(\s*(?:${AKA}\s+)?${OPEN}?(${ALIAS})${CLOSE}?\s*\)\s+(${WORD}(?:\s+${WORD}){0,2})`, "gu"),
    read: (m) => {
      const full = `${clean(m[1]!)} ${clean(m[3]!)}`;
      return decl(full, m[2]!, full);
    },
  },
  {
    // "Robert Smith (aka Bob)", "Robert Smith ("Bob")", "Robert (Bobby)", "World Health Organization (WHO)"
    re: new RegExp(String.raw`(${NAME})\s*\(\s*(${AKA}\s+)?(${OPEN})?(${ALIAS})(${CLOSE})?\s*\)`, "gu"),
    read: (m) => {
      const name = m[1]!;
      const alias = m[4]!;
      const first = trimName(name)?.split(" ")[0]?.toLowerCase() ?? "";
      const sure = m[2] !== undefined || (m[3] !== undefined && m[5] !== undefined) ||
        isNicknamePair(first, alias.toLowerCase()) || isAcronymOf(alias, trimName(name) ?? "");
      return sure ? decl(name, alias, clean(name)) : null;
    },
  },
  {
    // "Robert, also known as Bob, works …", "Robert, who goes by Bob.", "Robert Smith, aka "Bob", …"
    re: new RegExp(String.raw`(${NAME})\s*,\s*${AKA}\s+${OPEN}?(${ALIAS})${CLOSE}?\s*(?:,|(?=[.!?;:]|$))`, "gu"),
    read: (m) => decl(m[1]!, m[2]!, clean(m[1]!)),
  },
  {
    // "Robert aka Bob works …", "Robert Smith also known as Bob …"
    re: new RegExp(String.raw`(${NAME})\s+(?:aka|a\.k\.a\.?|also\s+known\s+as)\s+${OPEN}?(${ALIAS})${CLOSE}?`, "gu"),
    read: (m) => decl(m[1]!, m[2]!, clean(m[1]!)),
  },
  {
    // "Everyone calls Robert 'Bob'", "we call Robert "Bob"" (quotes required)
    re: new RegExp(String.raw`\b(calls?|called|calling)\s+(${NAME})\s+${OPEN}(${ALIAS})${CLOSE}`, "gu"),
    read: (m) => decl(m[2]!, m[3]!, `${m[1]!} ${clean(m[2]!)}`),
  },
  {
    // "Robert is known as Bob", "Robert is also called Bob", "Robert goes by Bob"
    re: new RegExp(
      String.raw`(${NAME})\s+(?:(?:is|was)\s+(?:also\s+|better\s+|often\s+)?(?:known\s+as|called|nicknamed)|goes\s+by|went\s+by)\s+${OPEN}?(${ALIAS})${CLOSE}?`,
      "gu",
    ),
    read: (m) => decl(m[1]!, m[2]!, clean(m[1]!)),
  },
];

/** The sentence with its alias phrases cut out, and the declarations found. */
export function findAliases(sentence: string): { text: string; aliases: AliasDeclaration[] } {
  const aliases: AliasDeclaration[] = [];
  let text = sentence;
  for (const p of PATTERNS) {
    text = text.replace(p.re, (...args: unknown[]) => {
      const match = args[0] as string;
      const groups = args.slice(0, -2) as string[];
      const exec = Object.assign([...groups], { index: 0, input: text }) as unknown as RegExpExecArray;
      const r = p.read(exec);
      if (!r) return match;
      aliases.push(r.decl);
      return r.replacement;
    });
  }
  return { text: clean(text), aliases };
}
