import { describe, expect, it } from "vitest";
import { createBuiltinProvider } from ".";
import { ResolveEdges, type EntityCandidate, type FactCandidate, type ResolveEdgesInput } from "../types";
import { nameKey } from "../../text/name-key";
import { affirmative, denies, singleValuedSlot } from "./predicates";
import { isNicknamePair } from "./nicknames";

const provider = createBuiltinProvider();

async function resolve(input: ResolveEdgesInput): Promise<ResolveEdges> {
  const r = await provider.resolveEdges(input, {});
  expect(ResolveEdges.safeParse(r.value).success).toBe(true);
  expect(r.model).toBe("builtin-resolve-v1");
  return r.value;
}

const cand = (ref: string, name: string, type = "person", aliases: string[] = []): EntityCandidate => ({ ref, name, type, aliases, summary: null });

/** The match for one new entity against some candidates. */
async function match(name: string, type: string, aliases: string[], candidates: EntityCandidate[]): Promise<string | null> {
  const v = await resolve({ entities: [{ n: 1, name, type, aliases, candidates }], facts: [] });
  return v.entities[0]!.match;
}

const fc = (ref: string, subject: string, predicate: string, object: string, validAt: string | null = null): FactCandidate => ({
  ref, subject, predicate, object, sentence: `${subject} ${predicate.replace(/_/g, " ")} ${object}.`, validAt,
});

/** The verdict for one new fact against some candidates. */
async function verdict(subject: string, predicate: string, object: string, candidates: FactCandidate[], validAt: string | null = null) {
  const v = await resolve({
    entities: [],
    facts: [{ n: 7, subject, predicate, object, sentence: `${subject} ${predicate} ${object}.`, validAt, candidates }],
  });
  const f = v.facts[0]!;
  expect(f.n).toBe(7);
  return { duplicateOf: f.duplicateOf, contradicts: f.contradicts };
}

describe("builtin resolveEdges: entities", () => {
  it("folds case, accents and punctuation", async () => {
    expect(nameKey("  Café Müller, Inc. ")).toBe("cafe muller inc");
    expect(await match("cafe muller", "organization", [], [cand("e1", "Café Müller", "organization")])).toBe("e1");
    expect(await match("Zoë", "person", [], [cand("e1", "ZOE")])).toBe("e1");
    expect(await match("Zoe", "person", [], [cand("e1", "Chloe")])).toBeNull();
  });

  it("a name equal to a candidate's alias, or a candidate named like one of our aliases", async () => {
    expect(await match("Bob", "person", [], [cand("e1", "Robert Smith", "person", ["Bob"])])).toBe("e1");
    expect(await match("Robert Smith", "person", ["Bob"], [cand("e1", "Bob")])).toBe("e1");
    // an alias shared by both sides is not a name of either
    expect(await match("Robert Smith", "person", ["Bob"], [cand("e1", "Bob Jones", "person", ["Bob"])])).toBeNull();
  });

  it("types must agree unless one is vague", async () => {
    expect(await match("Paris", "person", [], [cand("e1", "Paris", "place")])).toBeNull();
    expect(await match("Paris", "thing", [], [cand("e1", "Paris", "place")])).toBe("e1");
  });

  it("company forms are dropped", async () => {
    expect(await match("Acme", "organization", [], [cand("e1", "Acme Corp", "organization")])).toBe("e1");
    expect(await match("Acme, Inc.", "organization", [], [cand("e1", "ACME Ltd", "organization")])).toBe("e1");
    expect(await match("Acme Company", "organization", [], [cand("e1", "Acme GmbH", "organization")])).toBe("e1");
    expect(await match("Acme Labs", "organization", [], [cand("e1", "Acme Corp", "organization")])).toBeNull();
  });

  it("a first name is the full name of a person when only one candidate fits", async () => {
    expect(await match("Alice", "person", [], [cand("e1", "Alice Smith"), cand("e2", "Bob Jones")])).toBe("e1");
    expect(await match("Alice Smith", "person", [], [cand("e1", "Alice")])).toBe("e1");
    // two Alices: a tie, so a new entity
    expect(await match("Alice", "person", [], [cand("e1", "Alice Smith"), cand("e2", "Alice Jones")])).toBeNull();
    // not for places or organisations
    expect(await match("New", "place", [], [cand("e1", "New York", "place")])).toBeNull();
    // nor when one side is not known to be a person
    expect(await match("Alice", "thing", [], [cand("e1", "Alice Smith")])).toBeNull();
  });

  it("a nickname needs an alias to link the two", async () => {
    // Robert Smith known as Bob; a new "Bob Smith"
    expect(await match("Bob Smith", "person", [], [cand("e1", "Robert Smith", "person", ["Bob"])])).toBe("e1");
    // the new one carries the alias
    expect(await match("Robert Smith", "person", ["Bob"], [cand("e1", "Bob Smith")])).toBe("e1");
    // nickname alone: no
    expect(await match("Bob Smith", "person", [], [cand("e1", "Robert Smith")])).toBeNull();
    // linked, but the surnames differ
    expect(await match("Bob Jones", "person", [], [cand("e1", "Robert Smith", "person", ["Bob"])])).toBeNull();
    expect(isNicknamePair("bob", "robert")).toBe(true);
    expect(isNicknamePair("peggy", "margaret")).toBe(true);
    expect(isNicknamePair("meg", "peggy")).toBe(true);
    expect(isNicknamePair("bob", "william")).toBe(false);
  });

  it("names that differ in a digit or a word are two entities, however alike the strings", async () => {
    expect(await match("Worker3", "person", [], [cand("e1", "Worker8")])).toBeNull();
    expect(await match("Person11", "person", [], [cand("e1", "Person111")])).toBeNull();
    expect(await match("Person111", "person", [], [cand("e1", "Person11")])).toBeNull();
    expect(await match("Blue Bakery", "organization", [], [cand("e1", "Blue Bakery 2", "organization")])).toBeNull();
    expect(await match("Blue Bakery 2", "organization", [], [cand("e1", "Blue Bakery", "organization")])).toBeNull();
    expect(await match("Blue Bakery 2", "organization", [], [cand("e1", "Blue Bakery 3", "organization")])).toBeNull();
    expect(await match("Green Grocery", "organization", [], [cand("e1", "Green Grocery Outlet", "organization")])).toBeNull();
    // a number after a first name is not a surname
    expect(await match("Worker", "person", [], [cand("e1", "Worker 3")])).toBeNull();
    expect(await match("Worker 3", "person", [], [cand("e1", "Worker")])).toBeNull();
    // two people who share a first name, and the alias the extractor gives both
    expect(await match("Alice Dupont", "person", ["Alice"], [cand("e1", "Alice Moreau", "person", ["Alice"])])).toBeNull();
    // while the rules that are not string similarity still hold
    expect(await match("Worker3", "person", [], [cand("e1", "WORKER3")])).toBe("e1");
    expect(await match("Worker3", "person", [], [cand("e1", "Worker3 Smith")])).toBe("e1");
    expect(await match("Blue Bakery", "organization", [], [cand("e1", "Blue Bakery Ltd", "organization")])).toBe("e1");
    expect(await match("Alice", "person", [], [cand("e1", "Alice Moreau", "person", ["Alice"])])).toBe("e1");
    expect(await match("Rob Smith", "person", [], [cand("e1", "Robert Smith", "person", ["Rob"])])).toBe("e1");
  });

  it("the stronger rule wins over a weaker one; ties at the strongest are null", async () => {
    // exact name beats first-name
    expect(await match("Alice", "person", [], [cand("e1", "Alice Smith"), cand("e2", "Alice")])).toBe("e2");
    expect(await match("Alice", "person", [], [cand("e1", "Alice"), cand("e2", "alice")])).toBeNull();
    // the extractor gives "Robert Smith" the alias "Robert": the exact name still wins
    expect(await match("Robert Smith", "person", ["Robert"], [cand("e1", "Robert"), cand("e2", "Robert Smith", "person", ["Robert"])])).toBe("e2");
    // the same candidate listed twice is one candidate
    expect(await match("Alice", "person", [], [cand("e1", "Alice"), cand("e1", "Alice")])).toBe("e1");
    expect(await match("Alice", "person", [], [])).toBeNull();
  });
});

describe("builtin resolveEdges: facts", () => {
  it("same subject, predicate and normalised object is a duplicate", async () => {
    expect(await verdict("Alice", "lives_in", "paris", [fc("f1", "Alice", "lives_in", "Paris")])).toEqual({ duplicateOf: "f1", contradicts: [] });
    // the extractor's synonyms count as the same predicate
    expect(await verdict("Alice", "moved_to", "Paris", [fc("f1", "alice", "lives_in", "Paris")])).toEqual({ duplicateOf: "f1", contradicts: [] });
    // another subject, predicate or object is not
    expect((await verdict("Bob", "lives_in", "Paris", [fc("f1", "Alice", "lives_in", "Paris")])).duplicateOf).toBeNull();
    expect((await verdict("Alice", "likes", "Paris", [fc("f1", "Alice", "lives_in", "Paris")])).duplicateOf).toBeNull();
    expect((await verdict("Alice", "likes", "jazz", [fc("f1", "Alice", "likes", "rock")])).duplicateOf).toBeNull();
    // two dated events on different days are two facts
    expect((await verdict("Alice", "visited", "Paris", [fc("f1", "Alice", "visited", "Paris", "2019-05-01")], "2023-05-01")).duplicateOf).toBeNull();
    expect((await verdict("Alice", "visited", "Paris", [fc("f1", "Alice", "visited", "Paris", "2019-05-01")], null)).duplicateOf).toBe("f1");
  });

  it("a single-valued predicate with another object contradicts", async () => {
    const current = [fc("f1", "Alice", "lives_in", "Paris"), fc("f2", "Alice", "works_at", "Acme"), fc("f3", "Alice", "likes", "Paris")];
    expect(await verdict("Alice", "lives_in", "Berlin", current, "2024-01-01")).toEqual({ duplicateOf: null, contradicts: ["f1"] });
    expect(await verdict("Alice", "works_at", "Globex", current)).toEqual({ duplicateOf: null, contradicts: ["f2"] });
    expect(await verdict("Alice", "works_for", "Globex", current)).toEqual({ duplicateOf: null, contradicts: ["f2"] });
    expect((await verdict("Alice", "is_married_to", "Bob", [fc("f1", "Alice", "married_to", "Carl")])).contradicts).toEqual(["f1"]);
    expect((await verdict("Alice", "has_age", "31", [fc("f1", "Alice", "age", "30")])).contradicts).toEqual(["f1"]);
    expect((await verdict("Ravi", "has_favorite_color", "green", [fc("f1", "Ravi", "has_favorite_color", "blue")])).contradicts).toEqual(["f1"]);
    // another person's home is no contradiction
    expect((await verdict("Bob", "lives_in", "Berlin", current)).contradicts).toEqual([]);
  });

  it("multi-valued predicates never contradict by object", async () => {
    for (const p of ["likes", "has", "visited", "went_to", "met", "is_a", "lived_in", "located_in", "born_in", "is_ceo_of"]) {
      expect((await verdict("Alice", p, "Berlin", [fc("f1", "Alice", p, "Paris")])).contradicts, p).toEqual([]);
    }
    expect(singleValuedSlot("lives_in")).toBe("residence");
    expect(singleValuedSlot("likes")).toBeNull();
  });

  it("opposite predicates with the same object contradict", async () => {
    expect((await verdict("Kim", "does_not_like", "cats", [fc("f1", "Kim", "likes", "cats")])).contradicts).toEqual(["f1"]);
    expect((await verdict("Kim", "likes", "cats", [fc("f1", "Kim", "does_not_like", "cats")])).contradicts).toEqual(["f1"]);
    expect((await verdict("Kim", "dislikes", "cats", [fc("f1", "Kim", "likes", "cats")])).contradicts).toEqual(["f1"]);
    expect((await verdict("Kim", "is_not_a", "vegan", [fc("f1", "Kim", "is_a", "vegan")])).contradicts).toEqual(["f1"]);
    expect((await verdict("Kim", "does_not_have", "a car", [fc("f1", "Kim", "has", "a car")])).contradicts).toEqual(["f1"]);
    expect((await verdict("Kim", "left", "Acme", [fc("f1", "Kim", "works_at", "Acme")])).contradicts).toEqual(["f1"]);
    expect((await verdict("Kim", "quit", "Acme", [fc("f1", "Kim", "works_for", "Acme")])).contradicts).toEqual(["f1"]);
    expect((await verdict("Kim", "divorced", "Lee", [fc("f1", "Kim", "is_married_to", "Lee")])).contradicts).toEqual(["f1"]);
    // negatives: another object, or an event that a later state does not undo
    expect((await verdict("Kim", "does_not_like", "dogs", [fc("f1", "Kim", "likes", "cats")])).contradicts).toEqual([]);
    expect((await verdict("Kim", "works_at", "Acme", [fc("f1", "Kim", "left", "Acme")])).contradicts).toEqual([]);
    expect(affirmative("does_not_watch_tv")).toBe("watches_tv");
    expect(affirmative("does_not_work_for")).toBe("works_at");
    expect(denies("likes", "likes")).toBe(false);
  });

  it("exclusive states under `is` contradict", async () => {
    expect((await verdict("Kim", "is", "married", [fc("f1", "Kim", "is", "single")])).contradicts).toEqual(["f1"]);
    expect((await verdict("Kim", "is", "happy", [fc("f1", "Kim", "is", "tired")])).contradicts).toEqual([]);
  });

  it("subjects and objects also compare through the entities matched in the same call", async () => {
    const v = await resolve({
      entities: [{ n: 1, name: "Bob", type: "person", aliases: [], candidates: [cand("e1", "Robert Smith", "person", ["Bob", "Robert"])] }],
      facts: [
        {
          n: 1, subject: "Bob", predicate: "lives_in", object: "Berlin", sentence: "Bob lives in Berlin.", validAt: null,
          candidates: [fc("f1", "Robert Smith", "lives_in", "Paris"), fc("f2", "Robert Smith", "likes", "Berlin")],
        },
        { n: 2, subject: "Bob", predicate: "likes", object: "jazz", sentence: "Bob likes jazz.", validAt: null, candidates: [fc("f3", "Robert Smith", "likes", "jazz")] },
      ],
    });
    expect(v).toEqual({
      entities: [{ n: 1, match: "e1" }],
      facts: [
        { n: 1, duplicateOf: null, contradicts: ["f1"] },
        { n: 2, duplicateOf: "f3", contradicts: [] },
      ],
    });
  });

  it("is deterministic and answers every n in order", async () => {
    const input: ResolveEdgesInput = {
      entities: [3, 1, 2].map((n) => ({ n, name: `E${n}`, type: "thing", aliases: [], candidates: [] })),
      facts: [5, 4].map((n) => ({ n, subject: "A", predicate: "likes", object: "B", sentence: "A likes B.", validAt: null, candidates: [] })),
    };
    const a = await resolve(input);
    expect(a.entities.map((e) => e.n)).toEqual([3, 1, 2]);
    expect(a.facts.map((f) => f.n)).toEqual([5, 4]);
    expect(await resolve(input)).toEqual(a);
  });
});
