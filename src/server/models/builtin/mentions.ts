import { has, type Tok } from "./tokens";
import {
  DETERMINERS, FIRST_PERSON, OTHER_PRONOUNS, PERSON_NOUNS, POSSESSIVE_DETS, THIRD_PERSON, VAGUE_NOUNS,
} from "./lexicon";
import { commonRun, display, isCapitalised, isNounTok, isNumberTok, isPossessive, isProperTok, properRun, quantityRun, spanText, stripPossessive } from "./spans";

/**
 * A mention: a span of tokens naming something. Proper names and common noun phrases become
 * entities; pronouns stand for one when they can be resolved. A possessed phrase ("my dog",
 * "Marta's mom") is named after its owner ("Marta's dog") so that two speakers' dogs stay
 * two entities, and remembers the owner so that the owner gets a `has_…` fact.
 */
export interface Mention {
  start: number;
  /** exclusive */
  end: number;
  kind: "proper" | "common" | "pronoun";
  /** entity name; for an unresolved pronoun "" */
  name: string;
  /** person | organization | place | thing; "" for a name of unknown kind */
  type: string;
  /** owner of a possessed phrase and the phrase itself: "my sister" → (speaker, "sister") */
  owner: string | null;
  ownerType: string;
  head: string;
  /** an amount ("3.1 M EUR", "$3.9 million", "42 employees"): a literal value when it is an object */
  quantity?: true;
}

/** Who "I" and "she" are, updated as the text is read. */
export interface PronounContext {
  speaker: string | null;
  lastPerson: string | null;
}

function resolvePronoun(word: string, ctx: PronounContext): string | null {
  if (FIRST_PERSON.has(word) || POSSESSIVE_DETS[word] === "speaker") return ctx.speaker;
  if (THIRD_PERSON.has(word) || POSSESSIVE_DETS[word] === "third") return ctx.lastPerson;
  return null;
}

const isPronounTok = (t: Tok): boolean =>
  has(t, "Pronoun") || FIRST_PERSON.has(t.word) || THIRD_PERSON.has(t.word) || OTHER_PRONOUNS.has(t.word);

/**
 * A name of one or more words ending in a possessive mark, owner of the phrase after it:
 * "Orvane Media's subscribers" → "Orvane Media". Null before another name: "Charlotte's Web" is a title.
 */
function ownerName(toks: Tok[], i: number): { name: string; type: string; end: number } | null {
  if (!isProperTok(toks, i)) return null;
  const run = properRun(toks, i);
  if (!isPossessive(toks[run.end - 1]!) || isProperTok(toks, run.end)) return null;
  return { name: stripPossessive(spanText(toks, i, run.end)), type: run.type, end: run.end };
}

/** All mentions of one sentence, left to right. Updates ctx.lastPerson as it goes. */
export function findMentions(toks: Tok[], ctx: PronounContext): Mention[] {
  const out: Mention[] = [];
  const push = (m: Mention): void => {
    out.push(m);
    if (m.type === "person" && m.kind !== "pronoun" && m.name) ctx.lastPerson = m.name;
  };
  let i = 0;
  while (i < toks.length) {
    const t = toks[i]!;
    let owner: string | null = null;
    let ownerType = "";
    let j = i;
    if (isNumberTok(t)) {
      // "3.1 M EUR", "$3.9 million", "42 employees": the number with its unit or counted noun
      const end = quantityRun(toks, i);
      const run = commonRun(toks, i);
      const headTok = run ? toks[run.head]! : t;
      const type = PERSON_NOUNS.has(headTok.word) || has(headTok, "Actor") ? "person" : "thing";
      const name = toks.slice(i, end).map((x) => x.text).filter(Boolean).join(" ");
      push({ start: i, end, kind: "common", name, type, owner: null, ownerType: "", head: name, quantity: true });
      i = end;
      continue;
    }
    // "the Helios Group's headcount": the determiner belongs to the possessed phrase, not the name
    const named = ownerName(toks, DETERMINERS.has(t.word) ? i + 1 : i);
    if (Object.hasOwn(POSSESSIVE_DETS, t.word) && (isNounTok(toks[i + 1]) || commonRun(toks, i + 1))) {
      owner = resolvePronoun(t.word, ctx);
      ownerType = owner ? "person" : "";
      j = i + 1;
    } else if (isPronounTok(t)) {
      const ref = resolvePronoun(t.word, ctx);
      out.push({ start: i, end: i + 1, kind: "pronoun", name: ref ?? "", type: ref ? "person" : "", owner: null, ownerType: "", head: t.word });
      i += 1;
      continue;
    } else if (named) {
      // the owner is not a mention of its own: the possessed phrase carries it
      owner = named.name;
      ownerType = named.type;
      if (named.type === "person") ctx.lastPerson = owner;
      j = named.end;
    } else if (isProperTok(toks, i)) {
      const run = properRun(toks, i);
      const last = toks[run.end - 1]!;
      const name = spanText(toks, i, run.end);
      if (isPossessive(last) && isProperTok(toks, run.end)) {
        // "Charlotte's Web": a title, not Charlotte's web
        const tail = properRun(toks, run.end);
        const title = spanText(toks, i, tail.end);
        push({ start: i, end: tail.end, kind: "proper", name: title, type: tail.type === "person" ? "" : tail.type, owner: null, ownerType: "", head: "" });
        i = tail.end;
        continue;
      } else if (!isNounTok(toks[run.end]) || has(toks[run.end], "Possessive")) {
        push({ start: i, end: run.end, kind: "proper", name, type: run.type, owner: null, ownerType: "", head: "" });
        i = run.end;
        continue;
      } // else a name leading a common phrase ("NASA science camp"): read on as a phrase
    } else if (i === 0 && isCapitalised(t) && isPossessive(t) && has(t, "Noun") && commonRun(toks, 1)) {
      // "Acme's revenue …": a name the tagger does not know, made a name by its capital and its "'s"
      owner = stripPossessive(t.text);
      j = 1;
    }
    if (!owner) while (toks[j] && DETERMINERS.has(toks[j]!.word)) j += 1;
    const run = commonRun(toks, j);
    if (!run) {
      i = Math.max(i + 1, j);
      continue;
    }
    const headTok = toks[run.head]!;
    const phrase = toks.slice(j, run.end).map(display).join(" ");
    const type = PERSON_NOUNS.has(headTok.word) || has(headTok, "Actor") ? "person" : "thing";
    const next = run.end < toks.length && isProperTok(toks, run.end) ? properRun(toks, run.end) : null;
    if (owner && type === "person" && next && (next.type === "person" || next.type === "")) {
      // "my sister Emma": Emma is the sister
      const name = spanText(toks, run.end, next.end);
      push({ start: i, end: next.end, kind: "proper", name: stripPossessive(name), type: "person", owner, ownerType, head: phrase });
      i = next.end;
      continue;
    }
    if (!VAGUE_NOUNS.has(headTok.word)) {
      const name = owner ? `${owner}'s ${phrase}` : phrase;
      push({ start: i, end: run.end, kind: "common", name, type, owner, ownerType, head: phrase });
    }
    i = run.end;
  }
  return out;
}
