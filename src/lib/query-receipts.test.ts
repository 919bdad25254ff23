import { describe, expect, it } from "vitest";
import { readQueryReceipts } from "./query-receipts";

describe("readQueryReceipts", () => {
  it("reads what was retrieved, what was given and what the answer cited", () => {
    const r = readQueryReceipts([
      {
        stage: "retrieve_graph",
        output: {
          lists: { facts_text: 2, entities: 1 },
          retrieved: [
            { key: "f:1", kind: "fact", text: "Alice lives in Paris.", score: 0.03, ranks: { facts_text: 1, entities: 1 }, textId: "t1" },
            { key: "f:2", kind: "fact", text: "Bob lives in Rome.", score: 0.01, ranks: { facts_text: 2 }, textId: "t2" },
          ],
        },
      },
      {
        stage: "query",
        output: {
          given: [{ n: 1, key: "f:1", kind: "fact", text: "Alice lives in Paris.", score: 0.03, ranks: { facts_text: 1 }, textId: "t1" }],
          answer: "Paris [1].",
          cited: [1],
        },
      },
    ]);
    expect(r.lists).toEqual({ facts_text: 2, entities: 1 });
    expect(r.retrieved.map((s) => [s.key, s.ranks])).toEqual([
      ["f:1", { facts_text: 1, entities: 1 }],
      ["f:2", { facts_text: 2 }],
    ]);
    expect(r.given).toEqual([expect.objectContaining({ n: 1, key: "f:1", cited: true })]);
    expect(r.answer).toBe("Paris [1].");
    expect(r.note).toBeNull();
  });

  it("reads a source given by key (as runs keep them now) from what was retrieved", () => {
    const r = readQueryReceipts([
      {
        stage: "retrieve_graph",
        output: {
          lists: { facts_text: 2 },
          retrieved: [
            { key: "f:1", kind: "fact", text: "Alice lives in Paris.", score: 0.03, ranks: { facts_text: 1 }, textId: "t1" },
            { key: "f:2", kind: "fact", text: "Bob lives in Rome.", score: 0.01, ranks: { facts_text: 2 }, textId: "t2" },
          ],
        },
      },
      { stage: "query", output: { given: [{ n: 1, key: "f:2" }, { n: 2, key: "f:gone" }], answer: "Rome [1].", cited: [1] } },
    ]);
    expect(r.given).toEqual([
      { n: 1, key: "f:2", kind: "fact", text: "Bob lives in Rome.", score: 0.01, ranks: { facts_text: 2 }, textId: "t2", cited: true },
      // one the retrieved list does not hold (its output was not kept): the key alone
      { n: 2, key: "f:gone", kind: "", text: "", score: 0, ranks: {}, textId: null, cited: false },
    ]);
  });

  it("says nothing was found for an empty dataset, and survives missing parts", () => {
    const r = readQueryReceipts([{ stage: "retrieve_graph", output: { lists: {}, retrieved: [], note: "the dataset is empty" } }]);
    expect(r).toEqual({ lists: {}, note: "the dataset is empty", retrieved: [], given: [], answer: null });
    expect(readQueryReceipts([{ stage: "query", output: "garbage" }]).given).toEqual([]);
  });
});
