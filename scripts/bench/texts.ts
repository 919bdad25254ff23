/*
 * Texts of a given size and shape, for the responsiveness figures and the chunking tests: the
 * shapes that once made chunking or the builtin models superlinear. Deterministic.
 */
export const SHAPES = ["story", "prose", "paragraph", "nopunct", "lines", "unicode", "word"] as const;
export type Shape = (typeof SHAPES)[number];

const WORDS = (
  "alice bob carol paris berlin lagos works lives likes coffee garden river mountain teacher doctor " +
  "company acme sister brother went yesterday visited project budget meeting office"
).split(" ");

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s >>> 8) / 0x1000000;
  };
}

const SYLLABLES = "ka ri mo len sa tu vi ne da lo ma ren ti sol be an ir ul fe go".split(" ");
const PLACE_ENDS = ["ton", "ville", "burg", "port", "field", "haven"];
const ORG_ENDS = ["Labs", "Works", "Foods", "Bank", "Press"];

/**
 * story: what a long real text looks like to the extractor: people, places and organisations of
 * a fixed cast (600 people, 120 places, 60 organisations) met again and again, the few often and
 * the many rarely (a Zipf-like pick), in sentences of a few kinds, with plain sentences between.
 */
function storyText(bytes: number): string {
  const r = random(7);
  const name = (parts: number) => {
    let w = "";
    for (let i = 0; i < parts; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)]!;
    return w[0]!.toUpperCase() + w.slice(1);
  };
  const people = Array.from({ length: 600 }, () => `${name(2)} ${name(3)}`);
  const places = Array.from({ length: 120 }, (_, i) => `${name(2)}${PLACE_ENDS[i % PLACE_ENDS.length]}`);
  const orgs = Array.from({ length: 60 }, (_, i) => `${name(2)} ${ORG_ENDS[i % ORG_ENDS.length]}`);
  const pick = <T>(xs: T[]) => xs[Math.min(xs.length - 1, Math.floor(xs.length * r() ** 3))]!;
  const first = (p: string) => p.split(" ")[0]!;
  const kinds: (() => string)[] = [
    () => `${pick(people)} lives in ${pick(places)}.`,
    () => `${pick(people)} works at ${pick(orgs)} as a ${pick(WORDS)}.`,
    () => `${pick(people)} met ${pick(people)} in ${pick(places)} last week.`,
    () => `${first(pick(people))} moved to ${pick(places)} in ${1990 + Math.floor(r() * 35)}.`,
    () => `${pick(people)}'s sister is ${pick(people)}.`,
    () => `${pick(orgs)} opened an office in ${pick(places)}.`,
    () => "It rained all afternoon, and nobody said much.",
    () => `They talked about the ${pick(WORDS)} and the ${pick(WORDS)} until late.`,
  ];
  const parts: string[] = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    const piece = kinds[Math.floor(r() * kinds.length)]!() + (i % 6 === 0 ? "\n\n" : " ");
    parts.push(piece);
    size += Buffer.byteLength(piece);
  }
  return parts.join("");
}

/**
 * story: see storyText; prose: random words in sentences in paragraphs (every capitalised run a
 * new name: the extractor's worst case); paragraph: one paragraph of sentences; nopunct: words, no
 * punctuation, no line breaks; lines: one sentence a line; unicode: random characters of the
 * Basic Multilingual Plane; word: one "word" of the whole size.
 */
export function shapedText(shape: Shape, bytes: number): string {
  if (shape === "word") return "x".repeat(bytes);
  if (shape === "story") return Buffer.from(storyText(bytes)).subarray(0, bytes).toString("utf8").replace(/\uFFFD$/, "");
  const r = random(42);
  const word = () => WORDS[Math.floor(r() * WORDS.length)]!;
  const parts: string[] = [];
  let size = 0;
  let i = 0;
  while (size < bytes) {
    let piece: string;
    if (shape === "unicode") piece = String.fromCodePoint(0x20 + Math.floor(r() * 0x2fe0));
    else if (shape === "nopunct") piece = `${word()} `;
    else {
      const ws = Array.from({ length: 6 + Math.floor(r() * 10) }, word);
      const sentence = `${ws[0]![0]!.toUpperCase()}${ws.join(" ").slice(1)}.`;
      i += 1;
      piece = shape === "lines" ? `${sentence}\n` : shape === "prose" && i % 6 === 0 ? `${sentence}\n\n` : `${sentence} `;
    }
    parts.push(piece);
    size += Buffer.byteLength(piece);
  }
  // cut to the byte size without breaking a character
  return Buffer.from(parts.join("")).subarray(0, bytes).toString("utf8").replace(/\uFFFD$/, "");
}
