import type { Mention } from "./mentions";
import type { Clause } from "./clauses";
import { has, type Tok } from "./tokens";
import { Reader } from "./reader";
import { isVerbTok, type VerbGroup } from "./verbs";
import { LINKING_VERBS, PREPOSITIONS } from "./lexicon";
import { snake } from "./text";

/** One side of a draft fact: an entity (name + type, "" = not known yet) or a literal value. */
export type EntitySide = { name: string; type: string; literal: false };
export type Side = EntitySide | { name: string; literal: true };

/** What follows the verb: the predicate words and the objects they lead to. */
export interface Complement {
  words: string[];
  /** tail: predicate words after the verb's own ("in", "a", "thankful for") */
  objects: { tail: string[]; object: Side; mention?: Mention }[];
  /** mentions consumed as objects or literals: not repeated as `mentions` facts */
  used: Mention[];
}

export function mentionSide(m: Mention): EntitySide | null {
  if (m.kind === "pronoun") return m.name ? { name: m.name, type: "person", literal: false } : null;
  return { name: m.name, type: m.type, literal: false };
}

/** Parse what follows the verb group of a clause. */
export function readComplement(toks: Tok[], clause: Clause, vg: VerbGroup, mentions: Mention[]): Complement {
  const r = new Reader(toks, vg.end, clause.b, mentions.filter((m) => m.start >= vg.end && m.end <= clause.b));
  const out: Complement = { words: [...vg.words], objects: [], used: [] };
  const take = (m: Mention, tail: string[], literal = false): void => {
    const side = m.quantity ? ({ name: m.name, literal: true } as const) : literal ? ({ name: m.head || m.name, literal: true } as const) : mentionSide(m);
    out.used.push(m);
    if (side) out.objects.push({ tail, object: side, mention: m });
    r.k = m.end;
  };
  r.skip();
  // "I'm going to move to Berlin": a future, "I want to visit Paris": wants_to_visit
  if (r.tok?.word === "to" && isVerbTok(toks, r.k + 1)) {
    const v = toks[r.k + 1]!;
    const inf = v.root ?? v.word;
    out.words = toks[vg.main]!.word === "going" ? ["will", inf] : [...out.words, "to", inf];
    r.k += 2;
    for (; r.tok && has(r.tok, "Particle"); r.k += 1) out.words.push(r.tok.word);
    r.skip();
  }
  const verb = toks[vg.main]!;
  /** a word later prepositions hang on: "thankful for the support", "camping at Yosemite" */
  let modifier: string | null = null;
  if (vg.copula || LINKING_VERBS.has(verb.word)) {
    const det = r.tok?.word === "a" || r.tok?.word === "an";
    if (det) r.k += 1;
    const m = r.mentionAt();
    if (det && m && m.kind === "common") take(m, ["a"], true);
    else if (m && !PREPOSITIONS.has(r.tok?.word ?? "")) take(m, []);
    else {
      const adj = r.adjectives();
      if (adj) out.objects.push({ tail: [], object: { name: adj, literal: true } });
      modifier = adj ? adj.split(" ").pop()! : null;
    }
  } else if (r.tok && has(r.tok, "Gerund") && isVerbTok(toks, r.k)) {
    // "loves painting landscapes": the object is an activity
    const words = [r.tok.word];
    modifier = r.tok.word;
    r.k += 1;
    const m = r.mentionAt();
    if (m && m.start === r.k && m.kind !== "pronoun") {
      words.push(m.kind === "common" ? m.head : m.name);
      // a name stays an entity of its own ("reading Charlotte's Web"): only a common noun is absorbed
      if (m.kind === "common") out.used.push(m);
      r.k = m.end;
    }
    out.objects.push({ tail: [], object: { name: words.join(" "), type: "activity", literal: false } });
  } else {
    const m = r.mentionAt();
    if (m && m.start === r.k) take(m, []);
  }
  // further objects: "at Google in London", "cats and dogs"
  const firstPreps = out.objects.length === 0 ? [] : out.objects[0]!.tail;
  while (r.k < clause.b) {
    r.skip();
    const t = r.tok;
    if (!t) break;
    const prep = PREPOSITIONS.has(t.word) && t.word !== "of" ? t.word : null;
    const joiner = t.word === "and" || t.word === "or";
    r.k += prep || joiner ? 1 : 0;
    if (!prep && !joiner) {
      const m = r.mentionAt();
      if (!m || m.start !== r.k || out.objects.length > 0) break;
      take(m, []);
      continue;
    }
    r.skip();
    const m = r.mentionAt(); // mentions start at their determiner, so "at the beach" finds "the beach"
    if (!m || m.start !== r.k) continue;
    take(m, prep ? (modifier ? [modifier, prep] : [prep]) : firstPreps);
  }
  out.words = out.words.map(snake).filter((w) => w.length > 0);
  return out;
}
