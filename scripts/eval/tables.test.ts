import { describe, expect, it } from "vitest";
import { ablationTable, categoryTable, conversationTable, render, type Scored } from "./tables";

const q = (sample: string, category: number, r10: number, rr: number): Scored => ({ sample, category, recall: { 5: r10 / 2, 10: r10 }, rr });

describe("the eval's tables", () => {
  const scores = [q("a", 1, 1, 1), q("a", 4, 0, 0), q("b", 4, 1, 0.5), q("b", 4, 0.5, 0.25)];

  it("per category, with the overall mean in percent", () => {
    expect(categoryTable(scores, [5, 10])).toEqual([
      ["category", "questions", "recall@5", "recall@10", "MRR"],
      ["1 multi-hop", "1", "50.0", "100.0", "100.0"],
      ["4 single-hop", "3", "25.0", "50.0", "25.0"],
      ["overall", "4", "31.3", "62.5", "43.8"],
    ]);
  });

  it("per conversation, with each category's recall@k and - where a conversation has none", () => {
    const rows = conversationTable(scores, [10], 10);
    expect(rows[0]).toEqual(["conversation", "questions", "recall@10", "MRR", "multi-hop r@10", "single-hop r@10"]);
    expect(rows[1]).toEqual(["a", "2", "50.0", "50.0", "100.0", "0.0"]);
    expect(rows[2]).toEqual(["b", "2", "75.0", "37.5", "-", "75.0"]);
    expect(rows[3]![0]).toBe("overall");
  });

  it("ablation: each run's change from the full one, overall and per conversation", () => {
    const worse = [q("a", 1, 0, 0), q("a", 4, 0, 0), q("b", 4, 1, 1), q("b", 4, 0.5, 0.25)];
    const rows = ablationTable([{ name: "all lists", scores }, { name: "without x", scores: worse }], 10);
    expect(rows[0]).toEqual(["run", "recall@10", "MRR", "Δrecall@10", "ΔMRR", "Δ a", "Δ b"]);
    expect(rows[2]).toEqual(["without x", "37.5", "31.3", "-25.0", "-12.5", "-50.0", "+0.0"]);
  });

  it("renders columns padded to their widest cell", () => {
    expect(render([["a", "bb"], ["ccc", "d"]])).toBe("a    bb\nccc  d");
  });
});
