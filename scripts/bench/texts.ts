/*
 * Texts of a given size and shape, for the responsiveness figures and the chunking tests: the
 * shapes that once made chunking or the builtin models superlinear. Deterministic.
 */
export const SHAPES = ["prose", "paragraph", "nopunct", "lines", "unicode", "word"] as const;
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

/**
 * prose: sentences in paragraphs; paragraph: one paragraph of sentences; nopunct: words, no
 * punctuation, no line breaks; lines: one sentence a line; unicode: random characters of the
 * Basic Multilingual Plane; word: one "word" of the whole size.
 */
export function shapedText(shape: Shape, bytes: number): string {
  if (shape === "word") return "x".repeat(bytes);
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
