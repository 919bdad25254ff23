import type { EntityCandidate, FactCandidate, ResolveEdges, ResolveEdgesInput } from "../types";
import { nameKey } from "../../text/name-key";
import { CORP_SUFFIXES } from "./lexicon";
import { isNicknamePair } from "./nicknames";
import { denies, exclusiveStates, normalPredicate, singleValuedSlot } from "./predicates";

/**
 * resolve_edges without a model: deterministic rules over names and predicates.
 *
 * Entities, by rule strength (the strongest rule any candidate meets decides; two candidates
 * meeting it is a tie, and a tie is a new entity):
 *   1. the names' keys (../../text/name-key: case, accents, punctuation, articles) are equal;
 *   2. our name is one of the candidate's aliases, or its name one of ours;
 *   3. the names are equal once company forms (Corp, Inc, Ltd, LLC, GmbH, Co …) are dropped;
 *   4. two persons, and one name is the other's first name ("Alice" / "Alice Smith"), the rest
 *      of the longer one a name, not a number ("Worker" / "Worker 3" are not);
 *   5. two persons whose first names are a nickname pair (Bob / Robert), whose surnames do not
 *      differ, and an alias of either side links them (Robert has the alias Bob).
 * Types must agree, or one of them be vague ("thing"). Nothing else merges: names that differ in a
 * digit or a word ("Worker3" / "Worker8", "Person11" / "Person111", "Blue Bakery" / "Blue Bakery 2")
 * are different entities however similar the strings, since string similarity is no rule here.
 *
 * Facts: a candidate with the same subject, predicate and object is a duplicate (unless both are
 * dated, differently); a candidate with the same subject is contradicted when the predicate is
 * single-valued (lives_in, works_at, is_married_to, age …) and the object differs, when the
 * predicates deny each other for the same object (likes / does_not_like, works_at / left), or
 * when both say `is` with exclusive states (single / married). Subjects and objects compare by
 * folded name, a new entity also by the existing entity it was matched to in this same call.
 * Contradictions are listed whatever the dates: the caller decides, by validAt, which fact ends.
 */

const VAGUE_TYPES = new Set(["", "thing", "entity", "unknown", "other"]);
const SUFFIXES = new Set([...CORP_SUFFIXES].map((w) => w.replace(/\./g, "")));

/** "acme corp" → "acme"; the name itself when it has no company form (or nothing else). */
function stripCorp(folded: string): string {
  const words = folded.split(" ");
  let n = words.length;
  while (n > 1 && (SUFFIXES.has(words[n - 1]!) || words[n - 1] === "and")) n -= 1;
  return words.slice(0, n).join(" ");
}

const compatibleTypes = (a: string, b: string): boolean =>
  a.toLowerCase() === b.toLowerCase() || VAGUE_TYPES.has(a.toLowerCase()) || VAGUE_TYPES.has(b.toLowerCase());
const isPerson = (t: string): boolean => t.toLowerCase() === "person";

type NewEntity = ResolveEdgesInput["entities"][number];

/** The strongest rule (1 strongest … 5) by which `e` is candidate `c`, or null. */
export function entityRule(e: Pick<NewEntity, "name" | "type" | "aliases">, c: Pick<EntityCandidate, "name" | "type" | "aliases">): number | null {
  if (!compatibleTypes(e.type, c.type)) return null;
  const en = nameKey(e.name);
  const cn = nameKey(c.name);
  if (!en || !cn) return null;
  const ours = new Set(e.aliases.map(nameKey));
  const theirs = new Set(c.aliases.map(nameKey));
  if (en === cn) return 1;
  if (theirs.has(en) || ours.has(cn)) return 2;
  const es = stripCorp(en);
  const cs = stripCorp(cn);
  if ((es !== en || cs !== cn) && es === cs) return 3;
  if (!isPerson(e.type) || !isPerson(c.type)) return null;
  const et = en.split(" ");
  const ct = cn.split(" ");
  const [short, long] = et.length <= ct.length ? [et, ct] : [ct, et];
  if (short.length === 1 && long.length > 1 && long[0] === short[0] && !long.slice(1).some((w) => /\p{N}/u.test(w))) return 4;
  const restAgrees = et.length === 1 || ct.length === 1 || et.slice(1).join(" ") === ct.slice(1).join(" ");
  const linked = ours.has(ct[0]!) || ours.has(cn) || theirs.has(et[0]!) || theirs.has(en);
  if (isNicknamePair(et[0]!, ct[0]!) && restAgrees && linked) return 5;
  return null;
}

/** The ref of the one existing entity `e` is, or null (none, or a tie). */
export function matchEntity(e: NewEntity): string | null {
  let best = Infinity;
  let refs = new Set<string>();
  for (const c of e.candidates) {
    const rule = entityRule(e, c);
    if (rule === null || rule > best) continue;
    if (rule < best) {
      best = rule;
      refs = new Set();
    }
    refs.add(c.ref);
  }
  return refs.size === 1 ? [...refs][0]! : null;
}

const day = (iso: string | null): string | null => (iso ? iso.slice(0, 10) : null);

export function resolveEdges(input: ResolveEdgesInput): ResolveEdges {
  const entities = input.entities.map((e) => ({ n: e.n, match: matchEntity(e) }));
  // a new entity matched to an existing one answers to that one's name too
  const names = new Map<string, Set<string>>();
  input.entities.forEach((e, i) => {
    const ref = entities[i]!.match;
    const c = ref === null ? undefined : e.candidates.find((x) => x.ref === ref);
    if (!c) return;
    const key = nameKey(e.name);
    names.set(key, new Set([...(names.get(key) ?? [key]), nameKey(c.name)]));
  });
  const same = (a: string, b: string): boolean => {
    const fa = nameKey(a);
    const fb = nameKey(b);
    return fa === fb || (names.get(fa)?.has(fb) ?? false) || (names.get(fb)?.has(fa) ?? false);
  };

  const facts = input.facts.map((f) => {
    const mine = (c: FactCandidate): boolean => same(f.subject, c.subject);
    const predicate = normalPredicate(f.predicate);
    const slot = singleValuedSlot(predicate);
    const duplicate = f.candidates.find((c) => {
      if (!mine(c) || normalPredicate(c.predicate) !== predicate || !same(f.object, c.object)) return false;
      const a = day(f.validAt);
      const b = day(c.validAt);
      return a === null || b === null || a === b;
    });
    const contradicts: string[] = [];
    for (const c of f.candidates) {
      if (c === duplicate || !mine(c) || contradicts.includes(c.ref) || c.ref === duplicate?.ref) continue;
      const sameObject = same(f.object, c.object);
      const theirSlot = singleValuedSlot(c.predicate);
      const replaced = slot !== null && slot === theirSlot && !sameObject;
      const denied = sameObject && denies(predicate, c.predicate);
      const excluded = normalPredicate(c.predicate) === predicate && exclusiveStates(predicate, nameKey(f.object), nameKey(c.object));
      if (replaced || denied || excluded) contradicts.push(c.ref);
    }
    return { n: f.n, duplicateOf: duplicate?.ref ?? null, contradicts };
  });
  return { entities, facts };
}
