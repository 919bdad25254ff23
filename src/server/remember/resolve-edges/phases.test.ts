import { describe, expect, it } from "vitest";
import type { ExtractedFact, ExtractedGraph, ResolveEdges, ResolveEdgesInput } from "../../models/types";
import type { EntityCandidate, FactCandidate } from "../candidates";
import { nameKey } from "../../text/name-key";
import { resolvePlan } from "../resolve";
import { applyAnswer } from "./apply-answer";
import { draftFacts } from "./draft-facts";
import { matchEntities } from "./match-entities";
import { buildQuestion } from "./question";

/*
 * The phases of resolve_edges on plain values: no database, no model. Candidates are written as
 * load_candidates would find them; the model's answer is a value.
 */

const ids = () => {
  let k = 0;
  return () => `new-${++k}`;
};

function existing(id: string, name: string, type: string, via: EntityCandidate["via"] = "exact", forName?: string, aliases: string[] = []): EntityCandidate {
  return { id, name, nameKey: nameKey(name), type, aliases, aliasKeys: aliases.map(nameKey), summary: null, via, forKey: forName ? nameKey(forName) : null, score: 1 };
}

function current(id: string, subject: EntityCandidate, predicate: string, object: EntityCandidate | string, validAt: string | null = null): FactCandidate {
  const entity = typeof object === "string" ? null : object;
  return {
    id,
    subjectId: subject.id,
    subjectName: subject.name,
    predicate,
    objectId: entity?.id ?? null,
    objectName: entity?.name ?? null,
    objectValue: entity ? null : (object as string),
    sentence: `${subject.name} ${predicate} ${entity?.name ?? String(object)}.`,
    validAt: validAt ? new Date(validAt) : null,
  };
}

const fact = (subject: string, predicate: string, object: string, more: Partial<ExtractedFact> = {}): ExtractedFact => ({
  subject,
  predicate,
  object,
  objectIsEntity: true,
  sentence: `${subject} ${predicate} ${object}.`,
  validAt: null,
  invalidAt: null,
  ...more,
});

const person = (name: string, aliases: string[] = []) => ({ name, type: "person", aliases });
const place = (name: string) => ({ name, type: "place", aliases: [] });

const alice = existing("alice", "Alice Moreau", "person", "exact", undefined, ["Alice"]);
const paris = existing("paris", "Paris", "place");
const lyon = existing("lyon", "Lyon", "place");
const NOW = new Date("2025-06-01T00:00:00Z");

/** The four phases, with the model's answer given (or none asked). */
function plan(graph: ExtractedGraph, entities: EntityCandidate[], facts: FactCandidate[], answer?: (input: ResolveEdgesInput) => ResolveEdges, occurredAt: Date | null = null) {
  const newId = ids();
  const matching = matchEntities(graph, entities, newId);
  const drafts = draftFacts(graph, matching, facts, newId);
  const question = buildQuestion(matching, drafts);
  const said = question.input && answer ? answer(question.input) : { entities: [], facts: [] };
  return { matching, drafts, question, plan: applyAnswer({ matching, drafts, question, answer: said, occurredAt, now: NOW }) };
}

describe("match entities", () => {
  it("an exact name match is the existing entity, without asking; its new aliases are added", () => {
    const graph = { entities: [person("alice moreau", ["Ally"]), place("Paris")], facts: [] };
    const m = matchEntities(graph, [alice, paris], ids());
    expect(m.ids).toEqual(["alice", "paris"]);
    expect(m.ambiguous).toEqual([]);
    const { plan: p, question } = plan(graph, [alice, paris], []);
    expect(question.input).toBeNull();
    expect(p.entities[0]).toMatchObject({ id: "alice", isNew: false, name: "Alice Moreau", aliases: ["Alice", "Ally"], addedAliases: ["Ally"] });
  });

  it("of several exact matches, the one of the same type", () => {
    const town = existing("jordan-place", "Jordan", "place");
    const man = existing("jordan-person", "Jordan", "person");
    expect(matchEntities({ entities: [person("Jordan")], facts: [] }, [town, man], ids()).ids).toEqual(["jordan-person"]);
  });

  it("a similar name or a shared alias goes to the resolver with its candidates; none is new", () => {
    const worker8 = existing("w8", "Worker8", "person", "trigram", "Worker3");
    const graph = { entities: [person("Worker3"), person("Alice"), place("Nowhere")], facts: [] };
    const m = matchEntities(graph, [worker8, alice], ids());
    expect(m.exact).toEqual([null, null, null]);
    expect(m.ids).toEqual(["new-1", "new-2", "new-3"]);
    expect(m.ambiguous).toEqual([
      { n: 0, candidates: [worker8] },
      { n: 1, candidates: [alice] },
    ]);
  });

  it("the chunk's entities are one per name key, aliases merged", () => {
    const m = matchEntities({ entities: [person("Acme's", ["ACME"]), person("the Acme", ["Acme Inc"])], facts: [] }, [], ids());
    expect(m.entities).toEqual([{ name: "Acme's", type: "person", aliases: ["ACME", "Acme Inc"], keys: ["acme", "acme inc"] }]);
  });
});

describe("draft facts", () => {
  it("a fact that states a current one again is a duplicate, not asked; it dates an undated one", () => {
    const old = current("f-old", alice, "lives_in", paris);
    const graph = { entities: [person("Alice Moreau"), place("Paris")], facts: [fact("Alice Moreau", "lives_in", "Paris", { validAt: "2020" })] };
    const m = matchEntities(graph, [alice, paris], ids());
    const d = draftFacts(graph, m, [old], ids());
    expect(d.duplicates).toEqual([{ n: 0, factId: "f-old", validAt: new Date("2020-01-01") }]);
    expect(d.questions).toEqual([]);
    const { plan: p } = plan(graph, [alice, paris], [old]);
    expect(p).toMatchObject({ facts: [], duplicates: [{ factId: "f-old" }], invalidations: [], asked: null });
  });

  it("candidates are the current facts of the same subject and predicate, or subject and object, never others", () => {
    const bob = existing("bob", "Bob", "person");
    const graph = { entities: [person("Alice Moreau"), place("Lyon")], facts: [fact("Alice Moreau", "lives_in", "Lyon")] };
    const samePredicate = current("f1", alice, "lives_in", paris);
    const sameObject = current("f2", alice, "works_in", lyon);
    const otherPredicate = current("f3", alice, "likes", paris);
    const otherSubject = current("f4", bob, "lives_in", paris);
    const m = matchEntities(graph, [alice, lyon, bob, paris], ids());
    const d = draftFacts(graph, m, [samePredicate, sameObject, otherPredicate, otherSubject], ids());
    expect(d.questions).toEqual([{ n: 0, candidates: [samePredicate, sameObject] }]);
  });

  it("a fact told twice in the chunk is drafted once; a fact of no known subject is dropped", () => {
    const graph = { entities: [person("Alice Moreau"), place("Lyon")], facts: [fact("Alice Moreau", "lives_in", "Lyon"), fact("alice moreau", "lives_in", "LYON"), fact("Ghost", "lives_in", "Lyon")] };
    const d = draftFacts(graph, matchEntities(graph, [], ids()), [], ids());
    expect(d.facts).toHaveLength(1);
    expect(d.facts[0]).toMatchObject({ subjectN: 0, objectN: 1, subjectId: "new-1", objectId: "new-2" });
  });
});

describe("build the question", () => {
  it("refs number the candidates across the question; nothing uncertain asks nothing", () => {
    const worker8 = existing("w8", "Worker8", "person", "trigram", "Worker3");
    const old = current("f-old", alice, "lives_in", paris, "2020-01-01");
    const graph = { entities: [person("Worker3"), person("Alice Moreau"), place("Lyon")], facts: [fact("Alice Moreau", "lives_in", "Lyon", { validAt: "2024-03-01" })] };
    const { question } = plan(graph, [worker8, alice], [old]);
    expect(question.input).toEqual({
      entities: [{ n: 0, name: "Worker3", type: "person", aliases: [], candidates: [{ ref: "E1", name: "Worker8", type: "person", aliases: [], summary: null }] }],
      facts: [
        {
          n: 0,
          subject: "Alice Moreau",
          predicate: "lives_in",
          object: "Lyon",
          sentence: "Alice Moreau lives_in Lyon.",
          validAt: "2024-03-01T00:00:00.000Z",
          candidates: [{ ref: "F1", subject: "Alice Moreau", predicate: "lives_in", object: "Paris", sentence: "Alice Moreau lives_in Paris.", validAt: "2020-01-01T00:00:00.000Z" }],
        },
      ],
    });
    expect(question.entityRefs.get("E1")).toBe(worker8);
    expect(question.factRefs.get("F1")).toBe(old);
    expect(plan({ entities: [person("Nobody")], facts: [] }, [], []).question.input).toBeNull();
  });
});

describe("apply the answer", () => {
  const worker8 = existing("w8", "Worker8", "person", "trigram", "Worker3");
  const worker3 = { entities: [person("Worker3"), place("Acme")], facts: [fact("Worker3", "works_at", "Acme")] };

  it("a similar name the resolver matches takes the existing id, in its facts too; one it does not is new", () => {
    const matched = plan(worker3, [worker8], [], () => ({ entities: [{ n: 0, match: "E1" }], facts: [] })).plan;
    expect(matched.entities[0]).toMatchObject({ id: "w8", isNew: false, name: "Worker8", addedAliases: ["Worker3"] });
    expect(matched.facts[0]).toMatchObject({ subjectId: "w8", objectId: "new-2" });
    const apart = plan(worker3, [worker8], [], () => ({ entities: [{ n: 0, match: null }], facts: [] })).plan;
    expect(apart.entities[0]).toMatchObject({ id: "new-1", isNew: true, name: "Worker3" });
    expect(apart.facts[0]).toMatchObject({ subjectId: "new-1" });
  });

  it("an update retires the old fact: invalid from when the new one began (else when the text happened, else now)", () => {
    const old = current("f-old", alice, "lives_in", paris, "2020-01-01");
    const moved = (validAt: string | null) => ({ entities: [person("Alice Moreau"), place("Lyon")], facts: [fact("Alice Moreau", "lives_in", "Lyon", { validAt })] });
    const contradicts = () => ({ entities: [], facts: [{ n: 0, duplicateOf: null, contradicts: ["F1"] }] });
    const dated = plan(moved("2024-03-01"), [alice, lyon], [old], contradicts).plan;
    expect(dated.facts).toHaveLength(1);
    expect(dated.invalidations).toEqual([{ factId: "f-old", invalidAt: new Date("2024-03-01"), by: dated.facts[0]!.id }]);
    const told = plan(moved(null), [alice, lyon], [old], contradicts, new Date("2023-05-05")).plan;
    expect(told.invalidations[0]?.invalidAt).toEqual(new Date("2023-05-05"));
    expect(plan(moved(null), [alice, lyon], [old], contradicts).plan.invalidations[0]?.invalidAt).toEqual(NOW);
  });

  it("a contradiction that is older news ends the new fact when the known one began, and retires nothing", () => {
    const old = current("f-old", alice, "lives_in", lyon, "2024-03-01");
    const graph = { entities: [person("Alice Moreau"), place("Paris")], facts: [fact("Alice Moreau", "lives_in", "Paris", { validAt: "2020" })] };
    const p = plan(graph, [alice, paris], [old], () => ({ entities: [], facts: [{ n: 0, duplicateOf: null, contradicts: ["F1"] }] })).plan;
    expect(p.invalidations).toEqual([]);
    expect(p.facts).toEqual([expect.objectContaining({ objectId: "paris", validAt: new Date("2020-01-01"), invalidAt: new Date("2024-03-01") })]);
  });

  it("a fact the resolver calls a duplicate is a mention, not inserted", () => {
    const old = current("f-old", alice, "lives_in", "the capital");
    const graph = { entities: [person("Alice Moreau")], facts: [fact("Alice Moreau", "lives_in", "capital", { objectIsEntity: false })] };
    const p = plan(graph, [alice], [old], () => ({ entities: [], facts: [{ n: 0, duplicateOf: "F1", contradicts: [] }] })).plan;
    expect(p).toMatchObject({ facts: [], duplicates: [{ factId: "f-old", validAt: null }], invalidations: [] });
  });

  it("an answer naming an unknown ref or item changes nothing", () => {
    const old = current("f-old", alice, "lives_in", paris);
    const graph = { entities: [person("Worker3"), person("Alice Moreau"), place("Lyon")], facts: [fact("Alice Moreau", "lives_in", "Lyon")] };
    const unknown = () => ({
      entities: [
        { n: 0, match: "E9" },
        { n: 7, match: "E1" },
      ],
      facts: [
        { n: 0, duplicateOf: "F9", contradicts: ["F8", "not-a-ref"] },
        { n: 5, duplicateOf: "F1", contradicts: ["F1"] },
      ],
    });
    const p = plan(graph, [worker8, alice, lyon], [old], unknown).plan;
    expect(p.entities[0]).toMatchObject({ id: "new-1", isNew: true });
    expect(p.facts).toHaveLength(1);
    expect(p.duplicates).toEqual([]);
    expect(p.invalidations).toEqual([]);
  });

  it("a judgement about a candidate of another entity than the one chosen does not apply", () => {
    // "Alice" may be Alice Moreau or Alice Dupont; the model says Dupont, and that Moreau's fact is contradicted
    const dupont = existing("dupont", "Alice Dupont", "person", "exact", undefined, ["Alice"]);
    const moreauLives = current("f-moreau", alice, "lives_in", paris);
    const graph = { entities: [person("Alice"), place("Lyon")], facts: [fact("Alice", "lives_in", "Lyon")] };
    const { question, plan: p } = plan(graph, [alice, dupont, lyon], [moreauLives], () => ({ entities: [{ n: 0, match: "E2" }], facts: [{ n: 0, duplicateOf: null, contradicts: ["F1"] }] }));
    expect(question.entityRefs.get("E2")).toBe(dupont);
    expect(p.entities[0]).toMatchObject({ id: "dupont" });
    expect(p.facts[0]).toMatchObject({ subjectId: "dupont" });
    expect(p.invalidations).toEqual([]);
  });
});

describe("resolvePlan", () => {
  it("asks the model only when something is uncertain, once, and plans from its answer", async () => {
    const asked: ResolveEdgesInput[] = [];
    const ask = async (input: ResolveEdgesInput): Promise<ResolveEdges> => {
      asked.push(input);
      return { entities: input.entities.map((e) => ({ n: e.n, match: null })), facts: input.facts.map((f) => ({ n: f.n, duplicateOf: null, contradicts: f.candidates.map((c) => c.ref) })) };
    };
    const ctx = { occurredAt: null, now: NOW, newId: ids() };
    const sure = await resolvePlan({ ...ctx, graph: { entities: [person("Alice Moreau")], facts: [] }, candidates: { entities: [alice], facts: [] } }, ask);
    expect(asked).toEqual([]);
    expect(sure.asked).toBeNull();
    const old = current("f-old", alice, "lives_in", paris);
    const graph = { entities: [person("Alice Moreau"), place("Lyon")], facts: [fact("Alice Moreau", "lives_in", "Lyon")] };
    const moved = await resolvePlan({ ...ctx, graph, candidates: { entities: [alice, lyon], facts: [old] } }, ask);
    expect(asked).toHaveLength(1);
    expect(moved.asked).toBe(asked[0]);
    expect(moved.invalidations).toEqual([{ factId: "f-old", invalidAt: NOW, by: moved.facts[0]!.id }]);
  });
});
