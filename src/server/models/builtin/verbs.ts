import nlp from "compromise";
import { has, isDateTok, type Tok } from "./tokens";
import { FORCE_VERBS, MODALS, NEGATIONS } from "./lexicon";

/**
 * The verb group of a clause ("have been working", "didn't go", "was born") and the predicate
 * words it stands for. Predicates are put in the third person of their tense, so "I live" and
 * "Alice lives" both give `lives`, while "lived" stays past (a past state is a different fact).
 */
export interface VerbGroup {
  /** first token of the group (auxiliary, modal or the verb) */
  start: number;
  main: number;
  /** first token after the group */
  end: number;
  copula: boolean;
  /** predicate words before any preposition: ["lives"], ["did", "not", "go"], ["born"] */
  words: string[];
}

const BE = new Set(["am", "is", "are", "was", "were", "be", "been", "being", "'m", "'re", "'s"]);
const HAVE = new Set(["have", "has", "had", "'ve", "'d"]);
const DO = new Set(["do", "does", "did"]);
const PAST_AUX = new Set(["was", "were", "had", "did"]);

const conjugations = new Map<string, { present: string; past: string }>();
/** compromise's conjugation, cached: it costs a parse and the same few verbs recur. */
function conjugate(inf: string): { present: string; past: string } {
  let c = conjugations.get(inf);
  if (!c) {
    const doc = nlp(inf);
    doc.tag("Verb");
    const forms = doc.verbs().conjugate()[0] as { PresentTense?: string; PastTense?: string } | undefined;
    c = { present: forms?.PresentTense ?? inf, past: forms?.PastTense ?? inf };
    conjugations.set(inf, c);
  }
  return c;
}

export function isVerbTok(toks: Tok[], k: number): boolean {
  const t = toks[k];
  if (!t || isDateTok(t)) return false;
  if (has(t, "Verb")) return true;
  // compromise reads "I don't like cats" with "like" as a preposition
  const prev = toks[k - 1];
  return FORCE_VERBS.has(t.word) && prev !== undefined && ["Pronoun", "Auxiliary", "Negative", "Adverb", "Noun"].some((tag) => has(prev, tag));
}

const isNeg = (t: Tok): boolean => NEGATIONS.has(t.word) || has(t, "Negative");
const isModal = (t: Tok): boolean => MODALS.has(t.word) || has(t, "Modal");

/** The first verb group in toks[a, b), or null when the clause has no verb. */
export function findVerbGroup(toks: Tok[], a: number, b: number): VerbGroup | null {
  let k = a;
  while (k < b && !isVerbTok(toks, k)) k += 1;
  if (k >= b) return null;
  const start = k;
  const aux: Tok[] = [];
  let modal: string | null = null;
  let negated = false;
  let main = -1;
  for (; k < b; k += 1) {
    const t = toks[k]!;
    if (isModal(t)) modal = t.word;
    else if (isNeg(t)) negated = true;
    else if (has(t, "Adverb") && !isVerbTok(toks, k)) continue;
    else if (isVerbTok(toks, k)) {
      const next = nextVerb(toks, k + 1, b);
      const auxLike = has(t, "Auxiliary") || BE.has(t.word) || HAVE.has(t.word) || DO.has(t.word);
      if (auxLike && next >= 0) aux.push(t);
      else {
        main = k;
        break;
      }
    } else break;
  }
  if (main < 0) {
    // "I'm happy": the copula is the verb
    const last = aux.pop();
    if (!last) return null;
    main = last.i;
  }
  let end = main + 1;
  const particles: string[] = [];
  while (end < b && has(toks[end], "Particle")) particles.push(toks[end++]!.word);
  const words = predicateWords(toks[main]!, aux, modal, negated);
  return { start, main, end, copula: BE.has(toks[main]!.word), words: [...words, ...particles] };
}

/** Index of the next verb after auxiliaries' adverbs and negations, or -1. */
function nextVerb(toks: Tok[], k: number, b: number): number {
  for (; k < b; k += 1) {
    const t = toks[k]!;
    if (isVerbTok(toks, k)) return k;
    if (!(has(t, "Adverb") || isNeg(t) || isModal(t))) return -1;
  }
  return -1;
}

function predicateWords(v: Tok, aux: Tok[], modal: string | null, negated: boolean): string[] {
  const inf = v.root ?? v.word;
  const past = aux.some((a) => PAST_AUX.has(a.word)) || (aux.length === 0 && has(v, "PastTense"));
  const be = aux.some((a) => BE.has(a.word));
  const perfect = aux.some((a) => HAVE.has(a.word));
  if (BE.has(v.word)) return [...(modal ? [modal, "be"] : [past ? "was" : "is"]), ...(negated ? ["not"] : [])];
  if (modal) return [modal, ...(negated ? ["not"] : []), inf];
  if (negated) return [past ? "did" : "does", "not", inf];
  if (perfect && v.word === "got") return ["has"];
  if (be && has(v, "Gerund")) return [past ? conjugate(inf).past : conjugate(inf).present]; // "have been working": works
  if (be) return [v.word]; // passive: "born", "married", "based"
  if (perfect) return [v.word];
  if (past && !has(v, "PastTense") && !has(v, "Participle")) return [conjugate(inf).past];
  if (past) return [v.word];
  return [conjugate(inf).present];
}
