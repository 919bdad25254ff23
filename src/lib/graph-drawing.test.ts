import { describe, expect, it } from "vitest";
import { EMPTY_DRAWING, type HoodInput, mergeNeighbourhood, predicateLabel, toElements } from "./graph-drawing";

const entity = (id: string, name = id) => ({ id, name, type: "person" });
const fact = (id: string, s: string, predicate: string, o: string | null, value: string | null = null) => ({
  id,
  predicate,
  subject: { id: s },
  object: o ? { id: o } : null,
  objectValue: value,
});

const alice: HoodInput = {
  nodes: [entity("a", "Alice"), entity("p", "Paris"), entity("c", "Acme")],
  edges: [fact("f1", "a", "lives_in", "p"), fact("f2", "a", "works_at", "c"), fact("f3", "a", "age", null, "thirty-two years and a bit more")],
};

describe("the graph explorer's drawing", () => {
  it("draws entities as nodes, facts as edges labelled by predicate, literal values as small nodes", () => {
    const d = mergeNeighbourhood(EMPTY_DRAWING, alice);
    expect(d.nodes.map((n) => [n.id, n.label, n.kind])).toEqual([
      ["a", "Alice", "entity"],
      ["p", "Paris", "entity"],
      ["c", "Acme", "entity"],
      ["value:f3", "thirty-two years and a …", "value"],
    ]);
    expect(d.edges).toEqual([
      { id: "f1", source: "a", target: "p", label: "lives in" },
      { id: "f2", source: "a", target: "c", label: "works at" },
      { id: "f3", source: "a", target: "value:f3", label: "age" },
    ]);
    expect(d.omitted).toEqual([]);
  });

  it("adds an expanded node's neighbourhood without repeating what is drawn", () => {
    const first = mergeNeighbourhood(EMPTY_DRAWING, alice);
    const paris: HoodInput = { nodes: [entity("p", "Paris"), entity("a", "Alice"), entity("b", "Bob")], edges: [fact("f1", "a", "lives_in", "p"), fact("f4", "b", "lives_in", "p")] };
    const d = mergeNeighbourhood(first, paris);
    expect(d.nodes.map((n) => n.id)).toEqual(["a", "p", "c", "value:f3", "b"]);
    expect(d.edges.map((e) => e.id)).toEqual(["f1", "f2", "f3", "f4"]);
  });

  it("stops adding nodes when full, and counts the facts it left out once", () => {
    const d = mergeNeighbourhood(EMPTY_DRAWING, alice, 2);
    expect(d.nodes.map((n) => n.id)).toEqual(["a", "p"]);
    expect(d.edges.map((e) => e.id)).toEqual(["f1"]);
    expect(d.omitted).toEqual(["f2", "f3"]);
    expect(mergeNeighbourhood(d, alice, 2).omitted).toEqual(["f2", "f3"]);
  });

  it("marks the selected and the expanded nodes for the stylesheet", () => {
    const d = mergeNeighbourhood(EMPTY_DRAWING, alice);
    const els = toElements(d, { selected: "a", expanded: new Set(["a"]) });
    expect(els.find((e) => e.data.id === "a")?.classes).toEqual(["entity", "selected-entity", "expanded"]);
    expect(els.find((e) => e.data.id === "p")?.classes).toEqual(["entity"]);
    expect(els.find((e) => e.data.id === "f1")).toMatchObject({ group: "edges", data: { source: "a", target: "p", label: "lives in" } });
  });

  it("reads predicates as words", () => {
    expect(predicateLabel("is_based_in")).toBe("is based in");
  });
});
