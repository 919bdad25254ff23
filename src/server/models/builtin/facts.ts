import type { Mention } from "./mentions";
import { clauseSubjects, type Clause } from "./clauses";
import { mentionSide, readComplement, type EntitySide, type Side } from "./complement";
import type { Tok } from "./tokens";
import { PREDICATE_ALIASES } from "./lexicon";
import { snake } from "./text";

export type { EntitySide };

/** A fact before entity names are merged and dates attached. */
export interface Draft {
  subject: EntitySide;
  predicate: string;
  object: Side;
  /** the clause it came from (its dates win over the sentence's); null for sentence-wide facts */
  clause: Clause | null;
  /** true for facts the sentence's dates say nothing about ("my sister Emma") */
  undated?: boolean;
}

export interface ClauseFacts {
  drafts: Draft[];
  /** the clause's subjects, inherited by a following clause without one ("… and moved to Berlin") */
  subjects: EntitySide[];
  /** mentions this clause consumed (no `mentions` fallback for them) */
  used: Mention[];
  /** possessed phrases that became a predicate ("Marta's sister is Emma"): no entity of their own */
  absorbed: Mention[];
}

export function normalisePredicate(words: string[]): string {
  const p = snake(words.join("_"));
  // hasOwn: a predicate may well be spelt "constructor"
  return Object.hasOwn(PREDICATE_ALIASES, p) ? PREDICATE_ALIASES[p]! : p;
}

const possessionPredicate = (m: Mention): string => `has_${snake(m.head)}`;

/**
 * Facts of one clause, from its subject(s), verb group and complement.
 * `dateOf(clause)` gives the clause's date as a literal ("2010"), for clauses with no object:
 * "My mom passed away in 2010" → (Marta's mom, passed_away, "2010").
 */
export function clauseFacts(
  toks: Tok[],
  clause: Clause,
  mentions: Mention[],
  inherited: EntitySide[],
  dateOf: (clause: Clause) => string | null,
): ClauseFacts {
  const none: ClauseFacts = { drafts: [], subjects: [], used: [], absorbed: [] };
  const vg = clause.vg;
  if (!vg) return none;
  const subjectMentions = clauseSubjects(toks, clause, vg, mentions);
  const sides = subjectMentions.map(mentionSide);
  // an unresolved pronoun subject ("it was powerful") says nothing we can file
  if (sides.some((s) => s === null)) return { ...none, used: subjectMentions };
  const own = sides.filter((x): x is EntitySide => x !== null);
  const subjects = own.length > 0 ? own : clause.a > 0 ? inherited : [];
  if (subjects.length === 0) return none;
  const comp = readComplement(toks, clause, vg, mentions);
  const used = [...subjectMentions, ...comp.used];
  const drafts: Draft[] = [];
  const only = subjectMentions.length === 1 ? subjectMentions[0]! : null;

  if (vg.copula && only?.kind === "common" && only.owner && comp.objects.length > 0) {
    // "Marta's sister is Emma" → (Marta, has_sister, Emma); "my favourite colour is blue"
    const owner: EntitySide = { name: only.owner, type: only.ownerType, literal: false };
    for (const o of comp.objects) drafts.push({ subject: owner, predicate: possessionPredicate(only), object: o.object, clause });
    return { drafts, subjects: [owner], used, absorbed: [only] };
  }
  if (!vg.copula && only?.kind === "common" && only.owner && comp.objects.length > 0 && comp.objects.every((o) => o.mention?.quantity)) {
    // "Acme's revenue rose to 3.9 M EUR" → (Acme, revenue_rose_to, "3.9 M EUR"): the owner is
    // what the amount is about, the measured noun goes into the predicate
    const owner: EntitySide = { name: only.owner, type: only.ownerType, literal: false };
    for (const o of comp.objects) {
      const predicate = normalisePredicate([snake(only.head), ...comp.words, ...o.tail]);
      drafts.push({ subject: owner, predicate, object: o.object, clause });
    }
    return { drafts, subjects: [owner], used, absorbed: [only] };
  }
  const absorbed: Mention[] = [];
  const date = comp.objects.length === 0 && !vg.copula ? dateOf(clause) : null;
  if (date) comp.objects.push({ tail: [], object: { name: date, literal: true } });
  for (const o of comp.objects) {
    const m = o.mention;
    if (vg.copula && m?.kind === "common" && m.owner && o.tail.length === 0) {
      // "Emma is Marta's sister" → (Marta, has_sister, Emma)
      const owner: EntitySide = { name: m.owner, type: m.ownerType, literal: false };
      for (const s of subjects) drafts.push({ subject: owner, predicate: possessionPredicate(m), object: s, clause });
      absorbed.push(m);
      continue;
    }
    const predicate = normalisePredicate([...comp.words, ...o.tail]);
    if (!predicate) continue;
    for (const s of subjects) drafts.push({ subject: s, predicate, object: o.object, clause });
  }
  return { drafts, subjects, used, absorbed };
}
