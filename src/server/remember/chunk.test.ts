import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { chunking, chunkText, countTokens, LONG_WORD, TOKENIZER_SPAN, tokenizer, type Chunk } from "./chunk";
import { SEGMENTER_WINDOW, sentenceSpans } from "../text/sentences";

/** A deterministic pseudo-random text: paragraphs of sentences, some with abbreviations. */
function longText(paragraphCount: number, seed = 7): string {
  let state = seed;
  const rand = (n: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const people = ["Alice", "Dr. Smith", "Mr. Jones", "Mrs. Patel", "Prof. Okafor", "Bob", "Ms. Lee"];
  const verbs = ["visited", "wrote to", "met", "called", "worked with", "argued with", "helped"];
  const places = ["Paris", "the St. Louis office", "Berlin", "the U.S. embassy", "a café near No. 5 Main St.", "Lagos"];
  const tails = [
    "after a long and tiring week of meetings",
    "to talk about e.g. budgets, hiring and the new roadmap",
    "because the project was late again",
    "at 3 p.m. on a rainy Tuesday",
    "and everyone agreed it went well",
    "with notes on approx. forty pages of drafts",
  ];
  const paragraphs: string[] = [];
  for (let p = 0; p < paragraphCount; p += 1) {
    const sentences: string[] = [];
    const n = 3 + rand(6);
    for (let s = 0; s < n; s += 1) {
      const end = [".", ".", ".", "!", "?"][rand(5)]!;
      sentences.push(`${people[rand(people.length)]} ${verbs[rand(verbs.length)]} ${places[rand(places.length)]} ${tails[rand(tails.length)]}${end}`);
    }
    paragraphs.push(sentences.join(" "));
  }
  return paragraphs.join("\n\n");
}

const squash = (s: string): string => s.replace(/\s+/g, "");

/** The text each chunk adds to the ones before it. */
function newParts(text: string, chunks: Chunk[]): string[] {
  return chunks.map((c, i) => text.slice(i === 0 ? c.start : Math.max(c.start, chunks[i - 1]!.end), c.end));
}

function expectWellFormed(text: string, chunks: Chunk[], maxTokens: number): void {
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(c.content).toBe(text.slice(c.start, c.end));
    expect(c.content).toBe(c.content.trim());
    expect(c.tokenCount).toBe(countTokens(c.content));
    expect(c.tokenCount).toBeLessThanOrEqual(maxTokens);
    if (i > 0) {
      const prev = chunks[i - 1]!;
      expect(c.start).toBeGreaterThan(prev.start);
      expect(c.end).toBeGreaterThan(prev.end);
    }
  });
  expect(squash(newParts(text, chunks).join(""))).toBe(squash(text));
}

describe("chunkText", () => {
  it("a text that fits is one chunk equal to the trimmed text", () => {
    const text = "  \n Alice lives in Paris. She works at Acme.\n\n";
    const chunks = chunkText(text, { maxTokens: 200, overlapTokens: 50 });
    expect(chunks).toEqual([
      { index: 0, content: "Alice lives in Paris. She works at Acme.", tokenCount: countTokens("Alice lives in Paris. She works at Acme."), start: 4, end: 44 },
    ]);
  });

  it("an empty or blank text has no chunks", () => {
    expect(chunkText("", { maxTokens: 200, overlapTokens: 50 })).toEqual([]);
    expect(chunkText(" \n\t\n  ", { maxTokens: 200, overlapTokens: 50 })).toEqual([]);
  });

  it("splits a long text into ~20 chunks within maxTokens, in order, overlapping by whole sentences", () => {
    const text = longText(25);
    const maxTokens = 200;
    const overlapTokens = 50;
    const chunks = chunkText(text, { maxTokens, overlapTokens });
    console.log(`long text: ${countTokens(text)} tokens → ${chunks.length} chunks`);
    expect(chunks.length).toBeGreaterThanOrEqual(15);
    expect(chunks.length).toBeLessThanOrEqual(30);
    expectWellFormed(text, chunks, maxTokens);

    const sentences = sentenceSpans(text);
    const starts = new Set(sentences.map((s) => s.start));
    const ends = new Set(sentences.map((s) => s.end));
    let overlapping = 0;
    chunks.forEach((c, i) => {
      // every chunk starts and ends on a sentence boundary
      expect(starts.has(c.start), `chunk ${i} starts a sentence`).toBe(true);
      expect(ends.has(c.end), `chunk ${i} ends a sentence`).toBe(true);
      if (i === 0) return;
      const prev = chunks[i - 1]!;
      if (c.start >= prev.end) return;
      overlapping += 1;
      // the overlap is whole trailing sentences of the previous chunk, within budget, never all of it
      expect(c.start).toBeGreaterThan(prev.start);
      const inOverlap = sentences.filter((s) => s.start >= c.start && s.end <= prev.end);
      expect(inOverlap.length).toBeGreaterThan(0);
      expect(inOverlap[0]!.start).toBe(c.start);
      expect(inOverlap[inOverlap.length - 1]!.end).toBe(prev.end);
      const tokens = inOverlap.reduce((sum, s) => sum + countTokens(text.slice(s.start, s.end)), 0);
      expect(tokens).toBeLessThanOrEqual(overlapTokens);
    });
    expect(overlapping).toBeGreaterThan(chunks.length / 3);
  });

  it("no overlap when overlapTokens is 0", () => {
    const text = longText(10);
    const chunks = chunkText(text, { maxTokens: 120, overlapTokens: 0 });
    expectWellFormed(text, chunks, 120);
    chunks.slice(1).forEach((c, i) => expect(c.start).toBeGreaterThan(chunks[i]!.end));
  });

  it("is deterministic", () => {
    const text = longText(12, 99);
    expect(chunkText(text, { maxTokens: 150, overlapTokens: 40 })).toEqual(chunkText(text, { maxTokens: 150, overlapTokens: 40 }));
  });

  it("prefers to end a chunk where a paragraph ends", () => {
    const para = (who: string): string =>
      Array.from({ length: 8 }, (_, i) => `${who} wrote sentence number ${i + 1} of the paragraph about the garden.`).join(" ");
    const a = para("Alice");
    const b = para("Bob");
    const text = `${a}\n\n${b}`;
    expect(countTokens(a)).toBeGreaterThan(100);
    expect(countTokens(a)).toBeLessThan(200);
    const chunks = chunkText(text, { maxTokens: 200, overlapTokens: 0 });
    expect(chunks.map((c) => c.content)).toEqual([a, b]);
  });

  it("does not cut after abbreviations", () => {
    const text =
      "Dr. Smith met Mr. Jones at 3 p.m. on Friday. They talked about fruit, e.g. apples and pears. " +
      "Mrs. Brown lives at No. 5 Elm St. in Springfield. Prof. J. R. Tolkien wrote it, i.e. the book. " +
      "The talk vs. the walk was a draw. Everyone went home.";
    const sentences = sentenceSpans(text).map((s) => text.slice(s.start, s.end));
    expect(sentences).toEqual([
      "Dr. Smith met Mr. Jones at 3 p.m. on Friday.",
      "They talked about fruit, e.g. apples and pears.",
      "Mrs. Brown lives at No. 5 Elm St. in Springfield.",
      "Prof. J. R. Tolkien wrote it, i.e. the book.",
      "The talk vs. the walk was a draw.",
      "Everyone went home.",
    ]);
    const chunks = chunkText(text, { maxTokens: 16, overlapTokens: 0 });
    expectWellFormed(text, chunks, 16);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      // each chunk is whole sentences: it starts with one and ends with one
      expect(sentences.some((s) => c.content.startsWith(s))).toBe(true);
      expect(sentences.some((s) => c.content.endsWith(s))).toBe(true);
    }
  });

  it("a line break ends a sentence even after an abbreviation-like word", () => {
    const text = "Shopping list for Dr.\nApples and pears.";
    expect(sentenceSpans(text).map((s) => text.slice(s.start, s.end))).toEqual(["Shopping list for Dr.", "Apples and pears."]);
  });

  it("a hard-wrapped sentence is one sentence; a heading line is not part of the next", () => {
    const text = "Notes from Tuesday\nWe met the whole team at the office and talked\nabout the plan for spring,\nAlice and Bob included. Then we left.";
    expect(sentenceSpans(text).map((s) => text.slice(s.start, s.end))).toEqual([
      "Notes from Tuesday",
      "We met the whole team at the office and talked\nabout the plan for spring,\nAlice and Bob included.",
      "Then we left.",
    ]);
  });

  it("splits a sentence longer than maxTokens between words", () => {
    const words = Array.from({ length: 600 }, (_, i) => ["river", "stone", "lantern", "quietly", "orchard"][i % 5] + String(i));
    const giant = `Intro sentence here. ${words.join(" ")} and that is all. Outro sentence.`;
    const chunks = chunkText(giant, { maxTokens: 50, overlapTokens: 10 });
    expectWellFormed(giant, chunks, 50);
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) {
      // never inside a word
      expect(c.start === 0 || /\s/.test(giant[c.start - 1]!)).toBe(true);
      expect(c.end === giant.length || /\s/.test(giant[c.end]!)).toBe(true);
    }
  });

  it("splits a single word longer than maxTokens as a last resort", () => {
    const blob = Array.from({ length: 3000 }, (_, i) => "abcdefghijklmnopqrstuvwxyz0123456789"[(i * 7) % 36]).join("");
    const chunks = chunkText(`Before. ${blob} After.`, { maxTokens: 40, overlapTokens: 10 });
    expectWellFormed(`Before. ${blob} After.`, chunks, 40);
    expect(chunks.length).toBeGreaterThan(5);
  });

  it("chunks 100 kB quickly (printed, not asserted)", () => {
    const text = longText(400, 3);
    expect(text.length).toBeGreaterThan(100_000);
    const t0 = performance.now();
    const chunks = chunkText(text, { maxTokens: 500, overlapTokens: 100 });
    const ms = performance.now() - t0;
    console.log(`chunkText: ${text.length} chars → ${chunks.length} chunks in ${ms.toFixed(0)} ms`);
    expectWellFormed(text, chunks, 500);
  });
});

/** Texts of the shapes that once made chunking superlinear, ~`size` characters each. */
function shaped(size: number): Record<string, string> {
  const words = ["river", "stone", "lantern", "quietly", "orchard", "Alice", "works", "in", "Paris"];
  const w = (i: number) => words[(i * 7) % words.length]!;
  const many = (f: (i: number) => string) => {
    const out: string[] = [];
    for (let i = 0, n = 0; n < size; i += 1) {
      out.push(f(i));
      n += out[out.length - 1]!.length;
    }
    return out.join("");
  };
  return {
    prose: many((i) => `${w(i)} ${w(i + 1)} ${w(i + 2)} ${w(i + 3)}.${i % 7 === 6 ? "\n\n" : " "}`),
    paragraph: many((i) => `Then ${w(i)} ${w(i + 1)} ${w(i + 2)}. `),
    lowercase: many((i) => `then ${w(i)} ${w(i + 1)} e.g. ${w(i + 2)}. `),
    nopunct: many((i) => `${w(i)} `),
    lines: many((i) => `${w(i)} ${w(i + 3)} ${w(i + 5)}.\n`),
    unicode: many((i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))),
    word: "x".repeat(size),
  };
}

describe("chunking is linear in the text, whatever its shape", () => {
  afterEach(() => vi.restoreAllMocks());

  /** Runs chunkText on text, and measures what the tokenizer and the segmenter were handed. */
  function watched(text: string, maxTokens = 512) {
    const tokenized: number[] = [];
    const segmented: number[] = [];
    const count = tokenizer.count;
    vi.spyOn(tokenizer, "count").mockImplementation((t: string) => {
      tokenized.push(t.length);
      return count(t);
    });
    const segment = Intl.Segmenter.prototype.segment;
    vi.spyOn(Intl.Segmenter.prototype, "segment").mockImplementation(function (this: Intl.Segmenter, t: string) {
      segmented.push(t.length);
      return segment.call(this, t);
    });
    const chunks = chunkText(text, { maxTokens, overlapTokens: 64 });
    vi.restoreAllMocks();
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return { chunks, tokenizedMax: Math.max(0, ...tokenized), tokenizedSum: sum(tokenized), segmentedMax: Math.max(0, ...segmented), segmentedSum: sum(segmented) };
  }

  // No timing: the tokenizer (BPE, quadratic in one word's length) and the segmenter (V8's costs
  // time in the length of the string per sentence) are only ever handed bounded pieces, and each
  // character reaches them a bounded number of times. The old code handed a paragraph whole to
  // the segmenter and re-counted the rest of a long sentence for every piece cut from it.
  for (const [shape, text] of Object.entries(shaped(200_000))) {
    it(`${shape}: bounded pieces, each character read a few times`, () => {
      const w = watched(text);
      expect(w.chunks.length).toBeGreaterThan(10);
      expectWellFormed(text, w.chunks, shape === "word" ? 520 : 512);
      expect(w.tokenizedMax).toBeLessThanOrEqual(TOKENIZER_SPAN);
      expect(w.segmentedMax).toBeLessThanOrEqual(SEGMENTER_WINDOW);
      expect(w.segmentedSum).toBeLessThanOrEqual(2 * text.length);
      expect(w.tokenizedSum).toBeLessThanOrEqual(12 * text.length);
    });
  }

  it("reads four times the text about four times as much (no quadratic term)", () => {
    for (const shape of ["paragraph", "nopunct", "word"]) {
      const small = watched(shaped(50_000)[shape]!);
      const large = watched(shaped(200_000)[shape]!);
      expect(large.tokenizedSum / small.tokenizedSum).toBeLessThan(5);
      expect(large.segmentedSum / Math.max(1, small.segmentedSum)).toBeLessThan(5);
    }
  });

  it("counts exactly like the tokenizer on text without words longer than LONG_WORD", () => {
    const text = longText(60, 5);
    expect(text.length).toBeGreaterThan(TOKENIZER_SPAN * 4);
    expect(countTokens(text)).toBe(countO200k(text));
    // a long word is counted in pieces: close to, not exactly, the tokenizer's count
    const blob = "ab".repeat(LONG_WORD * 4);
    expect(Math.abs(countTokens(blob) - countO200k(blob))).toBeLessThanOrEqual(8);
  });

  it("runs as work in steps: many steps for a long text, the same chunks and its token count", () => {
    const text = shaped(100_000).prose!;
    const work = chunking(text, { maxTokens: 512, overlapTokens: 64 });
    let steps = 0;
    let r = work.next();
    while (!r.done) {
      steps += 1;
      r = work.next();
    }
    expect(r.value.chunks).toEqual(chunkText(text, { maxTokens: 512, overlapTokens: 64 }));
    expect(r.value.tokens).toBe(countTokens(text.trim()));
    expect(steps).toBeGreaterThan(r.value.chunks.length);
  });

  it("keeps the sentences of a paragraph longer than the segmenter's window", () => {
    const sentences = Array.from({ length: 400 }, (_, i) => `Sentence number ${i} is about ${i % 2 ? "Dr. Smith" : "the U.S. office"} and more.`);
    const text = sentences.join(" ");
    expect(text.length).toBeGreaterThan(SEGMENTER_WINDOW * 4);
    expect(sentenceSpans(text).map((s) => text.slice(s.start, s.end))).toEqual(sentences);
  });
});
