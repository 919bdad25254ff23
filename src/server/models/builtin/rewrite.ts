import type { DateSpan } from "./dates";

/**
 * The fact sentence must stand on its own once it is out of its conversation: "I went there
 * yesterday" said by Marta on 8 May 2023 is filed as "Marta went there yesterday
 * (7 May 2023)". Only first-person pronouns are replaced (we know who the speaker is); a wrong
 * guess at "she" would be worse than leaving it.
 */

type Replacement = [RegExp, (speaker: string) => string];

const FIRST_PERSON: Replacement[] = [
  [/\bI(?:'|’)m\b|\bI am\b/g, (s) => `${s} is`],
  [/\bI(?:'|’)ve\b|\bI have\b/g, (s) => `${s} has`],
  [/\bI(?:'|’)d\b/g, (s) => `${s} would`],
  [/\bI(?:'|’)ll\b/g, (s) => `${s} will`],
  [/\bI don(?:'|’)t\b/g, (s) => `${s} doesn't`],
  [/\bI was\b/g, (s) => `${s} was`],
  [/\bI\b/g, (s) => s],
  [/\b(?:me|myself)\b/gi, (s) => s],
  [/\b(?:my|mine)\b/gi, (s) => `${s}'s`],
  [/\bwe(?:'|’)re\b/gi, (s) => `${s} and others are`],
  [/\b(?:we|us|ourselves)\b/gi, (s) => `${s} and others`],
  [/\b(?:our|ours)\b/gi, (s) => `${s}'s`],
];

export function rewriteSentence(text: string, dates: DateSpan[], speaker: string | null): string {
  let out = text;
  // right to left, so that earlier offsets stay valid
  for (const d of [...dates].sort((a, b) => b.start - a.start)) {
    if (d.human) out = `${out.slice(0, d.end)} (${d.human})${out.slice(d.end)}`;
  }
  if (speaker) {
    for (const [re, make] of FIRST_PERSON) out = out.replace(re, () => make(speaker)); // a function: no "$&" expansion
  }
  return out;
}
