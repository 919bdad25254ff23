import { type SQL, sql } from "drizzle-orm";

/**
 * The one key by which names (and literal values) are compared: what store keeps as an entity's
 * name_key and alias_keys, what load_candidates, query's entity lists, the graph search and the
 * builtin resolver look names up by. Accents and case folded, a leading article dropped, a
 * possessive dropped ("Acme's" → "acme"), the dots of a dotted abbreviation dropped ("U.S." →
 * "us"), apostrophes dropped ("O'Brien" → "obrien"), "&" read as "and" ("AT&T" and "AT & T" →
 * "at and t"), anything else but letters and digits one space.
 *
 * sqlNameKey is the same function in SQL (migration 0012 recomputed stored keys with it); a test
 * holds the two to the same results. Change one, change both, and add a migration.
 */
export function nameKey(name: string): string {
  if (name.length > MAX_KEPT_LENGTH) return computeKey(name);
  let key = KEYS.get(name);
  if (key === undefined) {
    // bounded: at most MAX_KEYS names of at most MAX_KEPT_LENGTH (names recur, in a text and across)
    if (KEYS.size >= MAX_KEYS) KEYS.clear();
    key = computeKey(name);
    KEYS.set(name, key);
  }
  return key;
}

/**
 * Keys already computed, by name. The resolve phases and the builtin resolver compare every
 * chunk entity with every candidate, name by name: on a long text the key's six regular
 * expressions were the largest share of the request thread's work in a remember.
 */
const KEYS = new Map<string, string>();
const MAX_KEYS = 20_000;
const MAX_KEPT_LENGTH = 200;

function computeKey(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/['’]s\b/g, "")
    .replace(/(?<![\p{L}\p{N}])(\p{L})\./gu, "$1")
    .replace(/['’]/g, "")
    .replace(/&/g, " and ")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .replace(/^(the|a|an) /, "");
}

export function uniqueKeys(names: readonly string[]): string[] {
  return [...new Set(names.map(nameKey).filter((k) => k.length > 0))];
}

/** The combining marks of Latin, Greek and Cyrillic (what \p{M} drops from those scripts after NFKD). */
const MARKS = "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]";

/** nameKey in SQL, step for step, as text around `column` (PostgreSQL 15 and 18 alike; for migrations). */
export function sqlNameKeyText(column: string): string {
  const lit = (v: string) => `'${v.replace(/'/g, "''")}'`;
  let s = `lower(regexp_replace(normalize(${column}, NFKD), ${lit(MARKS)}, '', 'g'))`;
  s = `regexp_replace(${s}, ${lit("['’]s\\y")}, '', 'g')`;
  s = `regexp_replace(${s}, ${lit("(?<![[:alnum:]])([[:alpha:]])\\.")}, '\\1', 'g')`;
  s = `regexp_replace(${s}, ${lit("['’]")}, '', 'g')`;
  s = `replace(${s}, '&', ' and ')`;
  s = `btrim(regexp_replace(${s}, '[^[:alnum:]]+', ' ', 'g'))`;
  return `regexp_replace(${s}, '^(the|a|an) ', '')`;
}

const [BEFORE, AFTER] = sqlNameKeyText("\u0000").split("\u0000") as [string, string];

/** nameKey of an SQL value (the expression of sqlNameKeyText around it). */
export function sqlNameKey(value: SQL): SQL {
  return sql.join([sql.raw(BEFORE), value, sql.raw(AFTER)]);
}
