import { PREDICATE_ALIASES } from "./lexicon";
import { snake } from "./text";

/**
 * What the builtin resolver knows about predicates: which hold one value at a time, and which
 * deny or end which. Predicates are snake_case as the extractor writes them ("lives_in",
 * "does_not_like", "is_not_a").
 */

/** "Works For" → "works_at": the extractor's spelling, then its synonyms. */
export function normalPredicate(p: string): string {
  const s = snake(p);
  return Object.hasOwn(PREDICATE_ALIASES, s) ? PREDICATE_ALIASES[s]! : s;
}

/**
 * Single-valued predicates, by the slot they fill: a subject has one value per slot at a time,
 * so a new value contradicts the old one. Present-tense states only: "lived_in", "worked_at"
 * are past and may hold several values.
 *
 * Left out on purpose: `located_in` and `born_in` (a place and its region are both right:
 * "born in Paris" and "born in France"; things have many locations), `is_ceo_of` and
 * `is_president_of` (one person may lead several companies; it is `has_ceo` that is
 * single-valued), `is_a` (a doctor and a mother), `likes`, `has`, `visited`, `met` … (many values),
 * and `is_pregnant`/`is_single`, which carry no object and are handled as opposites below.
 * `lives_in` and `based_in` do share the region problem ("lives in Paris" then "lives in France"
 * reads as a move); a move is far the commoner case, so they stay.
 */
const SLOTS: Readonly<Record<string, string>> = {
  ...slot("residence", "lives_in resides_in is_living_in lives_at resides_at has_address has_home_in"),
  ...slot("employer", "works_at is_employed_at is_employed_by employed_by works_with_company"),
  ...slot("occupation", "works_as is_employed_as has_job has_occupation has_profession has_job_title"),
  ...slot("spouse", "is_married_to married_to has_spouse has_wife has_husband"),
  ...slot("fiance", "is_engaged_to engaged_to has_fiance has_fiancee"),
  ...slot("partner", "is_dating is_in_a_relationship_with is_seeing has_partner has_boyfriend has_girlfriend"),
  ...slot("age", "age has_age is_aged is_age is_years_old"),
  ...slot("status", "has_status has_relationship_status has_marital_status"),
  ...slot("headquarters", "based_in is_based_in is_headquartered_in headquartered_in has_headquarters_in"),
  ...slot("school", "studies_at is_studying_at is_enrolled_at"),
  ...slot("ceo", "has_ceo"),
  ...slot("president", "has_president"),
  ...slot("owner", "is_owned_by owned_by"),
  ...slot("price", "costs has_price"),
  ...slot("weight", "weighs has_weight"),
  ...slot("height", "has_height"),
  ...slot("population", "has_population"),
};

function slot(name: string, predicates: string): Record<string, string> {
  return Object.fromEntries(predicates.split(" ").map((p) => [p, name]));
}

/** The slot of a single-valued predicate, or null for one that may hold many values. */
export function singleValuedSlot(predicate: string): string | null {
  const p = normalPredicate(predicate);
  if (Object.hasOwn(SLOTS, p)) return SLOTS[p]!;
  // "my favorite color is blue" → has_favorite_color: one favourite per kind at a time
  const fav = /^has_favou?rite_(.+)$/.exec(p);
  return fav ? `favorite_${fav[1]}` : null;
}

/** Antonyms: each side denies the other for the same subject and object (both ways). */
const ANTONYMS: readonly [string, string][] = [
  ["likes", "dislikes"], ["likes", "hates"], ["loves", "hates"], ["loves", "dislikes"], ["enjoys", "dislikes"],
  ["enjoys", "hates"], ["agrees_with", "disagrees_with"], ["trusts", "distrusts"], ["supports", "opposes"],
];

/**
 * Literal states that exclude each other under `is`: "Alice is single" / "Alice is married".
 * (The extractor files "X is single" as (X, is, single).)
 */
const EXCLUSIVE_STATES: readonly ReadonlySet<string>[] = [
  new Set(["single", "married", "engaged", "divorced", "widowed", "separated"]),
  new Set(["alive", "dead", "deceased"]),
  new Set(["pregnant", "not pregnant"]),
  new Set(["employed", "unemployed", "retired"]),
];

/** Two different literal states of one kind ("single", "married") for the same `is` predicate. */
export function exclusiveStates(predicate: string, a: string, b: string): boolean {
  if (normalPredicate(predicate) !== "is" || a === b) return false;
  return EXCLUSIVE_STATES.some((set) => set.has(a) && set.has(b));
}

/**
 * Events that end a state with the same object: "Alice left Acme" ends "Alice works at Acme".
 * One way only: the state that comes back later ("rejoined Acme") does not make the event untrue.
 */
const ENDERS: Readonly<Record<string, readonly string[]>> = {
  left: ["works_at", "lives_in", "is_member_of", "studies_at", "is_based_in", "based_in", "is_dating", "is_married_to", "married_to"],
  quit: ["works_at", "is_member_of", "studies_at"],
  resigned_from: ["works_at", "is_member_of", "is_ceo_of", "is_president_of"],
  retired_from: ["works_at"],
  was_fired_from: ["works_at"],
  was_laid_off_from: ["works_at"],
  stopped_working_at: ["works_at"],
  moved_out_of: ["lives_in", "lives_at"],
  moved_away_from: ["lives_in"],
  moved_from: ["lives_in"],
  divorced: ["is_married_to", "married_to"],
  is_divorced_from: ["is_married_to", "married_to"],
  divorced_from: ["is_married_to", "married_to"],
  separated_from: ["is_married_to", "married_to", "is_dating"],
  broke_up_with: ["is_dating", "is_engaged_to", "has_boyfriend", "has_girlfriend", "has_partner"],
  split_up_with: ["is_dating", "is_engaged_to", "has_partner"],
  stopped_dating: ["is_dating"],
  sold: ["owns", "has"],
  lost: ["has", "owns"],
  graduated_from: ["studies_at"],
  dropped_out_of: ["studies_at"],
  closed: ["owns", "runs"],
};

/** The present third person of a verb: like → likes, watch → watches, study → studies. */
function thirdPerson(verb: string): string {
  const irregular: Record<string, string> = { have: "has", be: "is", do: "does", go: "goes" };
  if (Object.hasOwn(irregular, verb)) return irregular[verb]!;
  if (/(?:s|sh|ch|x|z|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** The affirmative of a negated predicate: does_not_like → likes, is_not_a → is_a, no_longer_lives_in → lives_in. */
export function affirmative(predicate: string): string | null {
  const p = snake(predicate);
  let m = /^(?:does|do)_not_([a-z]+)(_.*)?$/.exec(p);
  if (m) return normalPredicate(thirdPerson(m[1]!) + (m[2] ?? ""));
  m = /^(is|was|has|can|will)_not(_.*)?$/.exec(p);
  if (m) return normalPredicate(m[1]! + (m[2] ?? ""));
  m = /^(?:no_longer|not)_(.+)$/.exec(p);
  if (m) return normalPredicate(m[1]!);
  return null;
}

/**
 * Does a new fact with predicate `next` deny a current fact with predicate `current`, for the
 * same subject and object? Negation (likes ↔ does_not_like, is ↔ is_not), antonyms
 * (likes ↔ dislikes) and ending events (left ends works_at, divorced ends is_married_to).
 */
export function denies(next: string, current: string): boolean {
  const a = normalPredicate(next);
  const b = normalPredicate(current);
  if (a === b) return false;
  if (affirmative(a) === b || affirmative(b) === a) return true;
  if (ANTONYMS.some(([x, y]) => (x === a && y === b) || (x === b && y === a))) return true;
  const ended = Object.hasOwn(ENDERS, a) ? ENDERS[a]! : null;
  return ended !== null && ended.some((p) => normalPredicate(p) === b);
}
