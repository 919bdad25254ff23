import * as chrono from "chrono-node";
import { sql } from "drizzle-orm";
import type { Part } from "../../db/batch";
import { column, rowDecoder } from "../../db/rows";
import { nameKey } from "../../text/name-key";
import { gazetteer } from "./gazetteer";
import { isPlaceType } from "./resolve";

/*
 * Whether a question asks about a place (detect_geo's switch), decided offline from its
 * structure: a "near" phrase (near, around, close to, in the vicinity of, within 10 km of …)
 * before a name; a place of the dataset with coordinates that the question names; or a proper
 * name after a locative preposition (in, at, from, to, about …) that the gazetteer knows and the
 * dataset does not know as something else (a person called Alice is not Alice, Texas).
 */

export interface PlaceAsked {
  /** the place's name as the question writes it */
  name: string;
  /** the question asks for what is near it, not only about it */
  near: boolean;
  /** why it is taken for a place */
  how: "near phrase" | "dataset place" | "gazetteer name";
  /** the dataset's place of that name, with its coordinates, when it has one */
  entity: { id: string; name: string; lat: number; lon: number; country: string | null } | null;
}

/** a proper name: capitalised words, with the lower-case particles of place names between them ("Rio de Janeiro") */
const NAME = String.raw`\p{Lu}[\p{L}\p{M}\p{N}'’.-]*(?:\s+(?:(?:de|du|des|la|le|las|los|del|di|da|do|dos|upon|on|am|im|sur|en)\s+)?\p{Lu}[\p{L}\p{M}\p{N}'’.-]*){0,3}`;
/** either case of a phrase's first letter (a question may start with it) */
const anyCase = (phrases: string[]) => phrases.map((p) => `[${p[0]!.toUpperCase()}${p[0]}]${p.slice(1)}`).join("|");
const NEAR = new RegExp(
  String.raw`(?<![\p{L}])(?:${anyCase(["near", "nearby", "nearest to", "close to", "closest to", "next to", "around", "not far from", "in the vicinity of", "in the area of", "in the surroundings of"])}|[Ww]ithin\s+\d+(?:[.,]\d+)?\s*(?:km|kilometers?|kilometres?|mi|miles?)\s+(?:of|from))\s+(?:the\s+)?(${NAME})`,
  "gu",
);
const LOCATIVE = new RegExp(String.raw`(?<![\p{L}])(?:${anyCase(["in", "at", "from", "to", "into", "outside", "across", "about", "visiting", "visited"])})\s+(?:the\s+)?(${NAME})`, "gu");

/** The names after a near phrase, and after a locative preposition, in the order written. */
export function placePhrases(question: string): { near: string[]; locative: string[] } {
  const names = (re: RegExp) => [...question.matchAll(re)].map((m) => m[1]!.replace(/[.'’-]+$/, ""));
  return { near: names(NEAR), locative: names(LOCATIVE) };
}

/** A name's word prefixes, longest first ("Paris Texas" → "Paris Texas", "Paris"). */
const prefixes = (name: string) => {
  const words = name.split(/\s+/);
  return words.map((_, i) => words.slice(0, words.length - i).join(" "));
};

const PROPER = new RegExp(NAME, "gu");

/** the 1- to 4-word spans of the question's proper names, as name keys (a place is named by its proper name) */
function spans(question: string): string[] {
  const out = new Set<string>();
  for (const [proper] of question.matchAll(PROPER)) {
    const words = nameKey(proper).split(" ").filter(Boolean);
    for (let n = 1; n <= 4; n++) for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(" "));
  }
  return [...out];
}

const entityRow = rowDecoder({
  id: column.text,
  name: column.text,
  name_key: column.text,
  alias_keys: column.texts,
  type: column.text,
  lat: column.nullable(column.number),
  lon: column.nullable(column.number),
  country: column.nullable(column.text),
});

export type NamedEntity = ReturnType<typeof entityRow>;

/**
 * The SELECT of the dataset's entities the question's proper names name (its places with
 * coordinates, and what else a name is), for placeAsked; null when the question has no proper
 * name. query.ask sends it with the retrieval lists (query/retrieve.ts), in one statement.
 */
export function placeNames(datasetId: string, question: string): Part<NamedEntity> | null {
  const keys = spans(question);
  if (keys.length === 0) return null;
  const names = sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb))`;
  const columns = sql`id, name, name_key, alias_keys, type, lat, lon, country`;
  // by name and by alias, each by its index, as the entities list: an OR of the two was a scan of
  // the dataset's entities (1.3 ms of every question at 100k facts, growing with the dataset)
  return {
    sql: sql`SELECT * FROM (
          SELECT ${columns} FROM gb_entities WHERE dataset_id = ${datasetId} AND name_key = ANY(${names})
          UNION
          SELECT ${columns} FROM gb_entities WHERE dataset_id = ${datasetId} AND alias_keys && ${names}
        ) e
        ORDER BY (lat IS NOT NULL) DESC, length(name_key) DESC, id LIMIT 50`,
    decode: entityRow,
  };
}

/** The place the question asks about, or null when it names none; `named` is what placeNames found. */
export async function placeAsked(question: string, named: NamedEntity[]): Promise<PlaceAsked | null> {
  const keys = spans(question);
  if (keys.length === 0) return null;
  const placed = (key: string) => {
    const e = named.find((r) => r.lat !== null && r.lon !== null && (r.name_key === key || r.alias_keys.includes(key)));
    return e ? { id: e.id, name: e.name, lat: e.lat!, lon: e.lon!, country: e.country } : null;
  };
  const phrases = placePhrases(question);
  const nearName = phrases.near[0];
  if (nearName) {
    const known = prefixes(nearName).map((p) => placed(nameKey(p))).find((e) => e !== null);
    return { name: known?.name ?? nearName, near: true, how: "near phrase", entity: known ?? null };
  }
  // the longest span that is a place of the dataset
  const entity = named.find((r) => r.lat !== null && r.lon !== null);
  if (entity) {
    const e = placed(entity.name_key) ?? placed(entity.alias_keys.find((k) => keys.includes(k)) ?? "");
    if (e) return { name: e.name, near: false, how: "dataset place", entity: e };
  }
  if (phrases.locative.length === 0) return null;
  const elsewise = new Set(named.filter((r) => !isPlaceType(r.type)).flatMap((r) => [r.name_key, ...r.alias_keys]));
  const g = await gazetteer();
  for (const name of phrases.locative) {
    for (const p of prefixes(name)) {
      const key = nameKey(p);
      // a date ("in May", "on Monday") or something else of the dataset is no place
      if (elsewise.has(key) || chrono.en.casual.parse(p).length > 0) break;
      if (g.named(p).length > 0) return { name: p, near: false, how: "gazetteer name", entity: null };
    }
  }
  return null;
}
