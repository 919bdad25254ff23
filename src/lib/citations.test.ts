import { describe, expect, it } from "vitest";
import { citationHref, splitCitations } from "./citations";

describe("citations in an answer", () => {
  it("splits an answer into text and the sources it cites", () => {
    expect(splitCitations("Alice lives in Paris. [1] She works at Acme [2].", [1, 2])).toEqual([
      { kind: "text", text: "Alice lives in Paris. " },
      { kind: "cite", n: 1 },
      { kind: "text", text: " She works at Acme " },
      { kind: "cite", n: 2 },
      { kind: "text", text: "." },
    ]);
  });

  it("reads grouped and adjacent markers", () => {
    expect(splitCitations("Paris [1, 3][2]", [1, 2, 3])).toEqual([
      { kind: "text", text: "Paris " },
      { kind: "cite", n: 1 },
      { kind: "cite", n: 3 },
      { kind: "cite", n: 2 },
    ]);
  });

  it("leaves markers that name no source as text", () => {
    expect(splitCitations("Paris [7] or [x]", [1])).toEqual([{ kind: "text", text: "Paris [7] or [x]" }]);
    expect(splitCitations("I don't have any information about that.", [])).toEqual([{ kind: "text", text: "I don't have any information about that." }]);
  });

  it("links a fact to its subject in the graph explorer, anything else to the sources list", () => {
    expect(citationHref({ n: 1, kind: "fact", id: "f1", entityIds: ["e1", "e2"] }, "my data")).toBe("/admin/graph?dataset=my+data&entity=e1&fact=f1");
    expect(citationHref({ n: 2, kind: "summary", id: "c1", entityIds: [] }, "d")).toBe("#source-2");
    expect(citationHref({ n: 3, kind: "fact", id: "f3", entityIds: [] }, "d")).toBe("#source-3");
  });
});
