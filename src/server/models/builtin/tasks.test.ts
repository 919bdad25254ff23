import { describe, expect, it } from "vitest";
import { createBuiltinProvider } from ".";
import { COMPLEX_TOKENS } from "./classify";
import { NO_INFORMATION_ANSWER } from "./answer";
import { CANNOT_CHAT } from "./chat";
import { SUMMARY_MAX_CHARS } from "./summarize";

const provider = createBuiltinProvider();

const cosine = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
const norm = (a: number[]): number => Math.sqrt(a.reduce((s, x) => s + x * x, 0));

describe("builtin summarize", () => {
  it("a one-sentence text is its own summary", async () => {
    const r = await provider.summarize({ text: "Alice lives in Paris." }, {});
    expect(r.value.summary).toBe("Alice lives in Paris.");
    expect(r.model).toBe("builtin-summarize-v1");
  });

  it("picks the sentences about the text's main topic, in their original order", async () => {
    const text = [
      "The weather was mild.",
      "Alice moved to Berlin to work at Acme.",
      "Someone brought cake.",
      "At Acme, Alice leads the Berlin team.",
      "Acme opened its Berlin office for Alice.",
      "It rained later.",
    ].join(" ");
    const { value } = await provider.summarize({ text }, {});
    expect(value.summary).toBe(
      "Alice moved to Berlin to work at Acme. At Acme, Alice leads the Berlin team. Acme opened its Berlin office for Alice.",
    );
  });

  it("stays within the length cap", async () => {
    const text = Array.from({ length: 20 }, (_, i) => `Sentence number ${i} talks about gardening and tomatoes at length.`).join(" ");
    const { value } = await provider.summarize({ text }, {});
    expect(value.summary.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    expect(value.summary.length).toBeGreaterThan(0);
  });
});

describe("builtin embed", () => {
  it("returns normalised 256-dimension vectors, one per text", async () => {
    const r = await provider.embed({ texts: ["Alice lives in Paris.", "Bob works at Acme."] }, {});
    expect(provider.embeddingDimensions).toBe(256);
    expect(r.value).toHaveLength(2);
    for (const v of r.value) {
      expect(v).toHaveLength(256);
      expect(norm(v)).toBeCloseTo(1, 10);
    }
    expect(r.tokensOut).toBeNull();
    expect(r.response).toEqual({ count: 2, dimensions: 256 });
  });

  it("an empty text is the zero vector, not NaN", async () => {
    const { value } = await provider.embed({ texts: ["", "?!"] }, {});
    for (const v of value) expect(v.every((x) => x === 0)).toBe(true);
  });

  it("similar texts are closer than unrelated ones", async () => {
    const { value } = await provider.embed(
      { texts: ["Alice lives in Paris", "Alice is living in Paris, France", "The quarterly revenue of the steel mill fell"] },
      {},
    );
    const [a, b, c] = value as [number[], number[], number[]];
    expect(cosine(a, b)).toBeGreaterThan(0.5);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.3);
  });

  it("is deterministic", async () => {
    const one = await provider.embed({ texts: ["painting landscapes"] }, {});
    const two = await provider.embed({ texts: ["painting landscapes"] }, {});
    expect(two.value).toEqual(one.value);
  });
});

describe("builtin answer", () => {
  const context = [
    { n: 1, text: "Bob works at Acme." },
    { n: 2, text: "Alice lives in Berlin since 2024." },
    { n: 3, text: "Alice lived in Paris." },
  ];

  it("answers from the items sharing most words with the question and cites them", async () => {
    const r = await provider.answer({ question: "Where does Alice live now, in Berlin?", context }, {});
    expect(r.value).toEqual({ answer: "Alice lives in Berlin since 2024. [2]", cited: [2] });
  });

  it("cites every item that ties, in ranked order", async () => {
    const r = await provider.answer({ question: "Where does Alice live?", context }, {});
    expect(r.value.cited).toEqual([2, 3]);
    expect(r.value.answer).toBe("Alice lives in Berlin since 2024. [2] Alice lived in Paris. [3]");
  });

  it("falls back to the top-ranked item when nothing overlaps", async () => {
    const r = await provider.answer({ question: "What colour is the sky?", context }, {});
    expect(r.value).toEqual({ answer: "Bob works at Acme. [1]", cited: [1] });
  });

  it("says so when there is no context", async () => {
    const r = await provider.answer({ question: "Where does Alice live?", context: [] }, {});
    expect(r.value).toEqual({ answer: NO_INFORMATION_ANSWER, cited: [] });
  });
});

describe("builtin classifyComplexity", () => {
  it("a short text is simple and not chunked", async () => {
    const r = await provider.classifyComplexity({ text: "Alice lives in Paris." }, {});
    expect(r.value).toMatchObject({ complexity: "simple", chunk: false });
    expect(r.value.reason).toMatch(/~5 tokens/);
  });

  it("a long text is complex and chunked, and the reason gives the numbers", async () => {
    const words = Math.ceil(COMPLEX_TOKENS / 1.3) + 5;
    const text = Array.from({ length: words }, () => "word").join(" ");
    const r = await provider.classifyComplexity({ text }, {});
    expect(r.value).toMatchObject({ complexity: "complex", chunk: true });
    expect(r.value.reason).toContain(`~${Math.round(words * 1.3)} tokens`);
  });

  it("just under the threshold is still simple", async () => {
    const words = Math.floor((COMPLEX_TOKENS - 1) / 1.3);
    const text = Array.from({ length: words }, () => "word").join(" ");
    const r = await provider.classifyComplexity({ text }, {});
    expect(r.value.complexity).toBe("simple");
  });

  it("a mid-length text dense with names is complex", async () => {
    const text = Array.from({ length: 40 }, (_, i) => `Then Alice${i} met Bob${i} in Paris.`).join(" ");
    const r = await provider.classifyComplexity({ text }, {});
    expect(r.value.complexity).toBe("complex");
    expect(r.value.reason).toMatch(/names per 100 words/);
  });
});

describe("builtin chat", () => {
  it("quotes the most relevant earlier line and calls no tools", async () => {
    const r = await provider.chat(
      {
        messages: [
          { role: "system", content: "Facts:\nAlice lives in Paris.\nBob works at Acme." },
          { role: "user", content: "Where does Bob work?" },
        ],
        tools: [{ name: "search", description: "search", parameters: { type: "object" } }],
      },
      {},
    );
    expect(r.value).toEqual({ content: "Bob works at Acme.", toolCalls: [] });
  });

  it("says it cannot chat when nothing matches", async () => {
    const r = await provider.chat({ messages: [{ role: "user", content: "Tell me a joke" }] }, {});
    expect(r.value).toEqual({ content: CANNOT_CHAT, toolCalls: [] });
  });
});
