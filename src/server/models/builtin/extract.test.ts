import { describe, expect, it } from "vitest";
import { createBuiltinProvider } from ".";
import type { ExtractedGraph } from "../types";
import { ExtractedGraph as ExtractedGraphSchema } from "../types";

const provider = createBuiltinProvider();

async function extract(text: string, extra: { occurredAt?: string; speaker?: string } = {}): Promise<ExtractedGraph> {
  const result = await provider.extractGraph({ text, ...extra }, {});
  // every builtin answer must pass the same schema an LLM's answer has to
  expect(ExtractedGraphSchema.safeParse(result.value).success).toBe(true);
  return result.value;
}

const entity = (g: ExtractedGraph, name: string) => g.entities.find((e) => e.name === name);
const fact = (g: ExtractedGraph, subject: string, predicate: string) =>
  g.facts.find((f) => f.subject === subject && f.predicate === predicate);

/** The invariant the rest of the pipeline relies on. */
function expectClosed(g: ExtractedGraph): void {
  const names = new Set(g.entities.map((e) => e.name));
  for (const f of g.facts) {
    expect(names.has(f.subject), `subject ${f.subject} is an entity`).toBe(true);
    if (f.objectIsEntity) expect(names.has(f.object), `object ${f.object} is an entity`).toBe(true);
  }
}

describe("builtin extractGraph: required sentences", () => {
  it("Alice lives in Paris.", async () => {
    const g = await extract("Alice lives in Paris.");
    expect(entity(g, "Alice")?.type).toBe("person");
    expect(entity(g, "Paris")?.type).toBe("place");
    expect(g.facts).toContainEqual({
      subject: "Alice", predicate: "lives_in", object: "Paris", objectIsEntity: true,
      sentence: "Alice lives in Paris.", validAt: null, invalidAt: null,
    });
    expectClosed(g);
  });

  it("In 2024 Alice moved to Berlin. → lives_in with a date", async () => {
    const g = await extract("In 2024 Alice moved to Berlin.");
    expect(entity(g, "Berlin")?.type).toBe("place");
    const f = fact(g, "Alice", "lives_in");
    expect(f).toMatchObject({ object: "Berlin", objectIsEntity: true, validAt: "2024-01-01", invalidAt: null });
    expectClosed(g);
  });

  it("Bob works at Acme.", async () => {
    const g = await extract("Bob works at Acme.");
    expect(entity(g, "Bob")?.type).toBe("person");
    expect(entity(g, "Acme")?.type).toBe("organization");
    expect(fact(g, "Bob", "works_at")).toMatchObject({ object: "Acme", objectIsEntity: true });
  });

  it("Robert works at Acme Corp. → alias Acme", async () => {
    const g = await extract("Robert works at Acme Corp.");
    expect(entity(g, "Robert")?.type).toBe("person");
    expect(entity(g, "Acme Corp")).toEqual({ name: "Acme Corp", type: "organization", aliases: ["Acme"] });
    expect(fact(g, "Robert", "works_at")?.object).toBe("Acme Corp");
  });

  it("resolves I/my to the speaker and yesterday against occurredAt", async () => {
    const g = await extract("I went to a NASA science camp yesterday and it was so inspiring.", {
      speaker: "Marta",
      occurredAt: "2023-05-08T13:56:00Z",
    });
    expect(entity(g, "Marta")?.type).toBe("person");
    expect(entity(g, "NASA science camp")).toBeDefined();
    const f = fact(g, "Marta", "went_to");
    expect(f).toMatchObject({ object: "NASA science camp", objectIsEntity: true, validAt: "2023-05-07" });
    expect(f?.sentence).toBe("Marta went to a NASA science camp yesterday (7 May 2023) and it was so inspiring.");
    // "it was so inspiring": an unresolved pronoun gives no fact
    expect(g.facts).toHaveLength(1);
  });
});

describe("builtin extractGraph: conversational patterns", () => {
  it("X is a Y → is_a with a literal object", async () => {
    const g = await extract("Alice Smith is a doctor.");
    expect(fact(g, "Alice Smith", "is_a")).toMatchObject({ object: "doctor", objectIsEntity: false });
    expect(entity(g, "Alice Smith")?.aliases).toEqual(["Alice"]);
  });

  it("merges a first name into the full name seen in the same text", async () => {
    const g = await extract("Alice Smith is a doctor. Alice likes jazz.");
    expect(g.entities.filter((e) => e.type === "person").map((e) => e.name)).toEqual(["Alice Smith"]);
    expect(fact(g, "Alice Smith", "likes")?.object).toBe("jazz");
  });

  it("likes / loves / enjoys, with a gerund as an activity", async () => {
    const g = await extract("Tomasz loves knitting. Bob enjoys jazz. I like cats.", { speaker: "Ravi" });
    expect(fact(g, "Tomasz", "loves")).toMatchObject({ object: "knitting", objectIsEntity: true });
    expect(entity(g, "knitting")?.type).toBe("activity");
    expect(fact(g, "Bob", "enjoys")?.object).toBe("jazz");
    expect(fact(g, "Ravi", "likes")?.object).toBe("cats");
  });

  it("X has Y, and possession through my", async () => {
    const g = await extract("My dog has fleas.", { speaker: "Dave" });
    expect(fact(g, "Dave's dog", "has")).toMatchObject({ object: "fleas", objectIsEntity: true });
    expect(fact(g, "Dave", "has")).toMatchObject({ object: "Dave's dog" });
    expectClosed(g);
  });

  it("X met Y at Z in W, with last week resolved", async () => {
    const g = await extract("Henrik met Sarah at Google in London last week.", { occurredAt: "2023-05-08" });
    expect(fact(g, "Henrik", "met")).toMatchObject({ object: "Sarah", validAt: "2023-05-01" });
    expect(fact(g, "Henrik", "met_at")?.object).toBe("Google");
    expect(entity(g, "Google")?.type).toBe("organization");
    expect(entity(g, "London")?.type).toBe("place");
  });

  it("X's Y is Z → has_Y", async () => {
    const g = await extract("Marta's sister is Ines. My favorite color is blue.", { speaker: "Ravi" });
    expect(fact(g, "Marta", "has_sister")).toMatchObject({ object: "Ines", objectIsEntity: true });
    expect(fact(g, "Ravi", "has_favorite_color")).toMatchObject({ object: "blue", objectIsEntity: false });
    expect(entity(g, "Ines")?.type).toBe("person");
  });

  it("X is Y's Z → has_Z the other way round", async () => {
    const g = await extract("Ines is Marta's sister.");
    expect(fact(g, "Marta", "has_sister")).toMatchObject({ object: "Ines", objectIsEntity: true });
    expect(entity(g, "Marta's sister")).toBeUndefined();
  });

  it("my sister Emma: apposition", async () => {
    const g = await extract("Yesterday I went to the gym with my sister Ines.", { speaker: "Ravi", occurredAt: "2023-01-10" });
    expect(fact(g, "Ravi", "went_to")).toMatchObject({ object: "gym", validAt: "2023-01-09" });
    expect(fact(g, "Ravi", "has_sister")).toMatchObject({ object: "Ines", validAt: null });
  });

  it("negation, progressive and perfect forms", async () => {
    const g = await extract("I don't like cats. I've been working at Acme since 2019.", { speaker: "Kim" });
    expect(fact(g, "Kim", "does_not_like")?.object).toBe("cats");
    expect(fact(g, "Kim", "works_at")).toMatchObject({ object: "Acme", validAt: "2019-01-01" });
    expect(fact(g, "Kim", "likes")).toBeUndefined();
  });

  it("from … to … gives validAt and invalidAt; a short name merges into the company", async () => {
    const g = await extract("Acme GmbH opened in Berlin. Alice worked at Acme from 2019 to 2021.");
    expect(fact(g, "Alice", "worked_at")).toMatchObject({ object: "Acme GmbH", validAt: "2019-01-01", invalidAt: "2021-01-01" });
    expect(entity(g, "Acme")).toBeUndefined();
  });

  it("a clause with no object but a date keeps the date as a literal", async () => {
    const g = await extract("My dad passed away in 2008.", { speaker: "Marta" });
    expect(fact(g, "Marta's dad", "passed_away")).toMatchObject({ object: "2008", objectIsEntity: false, validAt: "2008-01-01" });
    expect(fact(g, "Marta", "has_dad")).toMatchObject({ object: "Marta's dad", validAt: null });
  });

  it("a verb compromise reads as a noun, and a place after an activity", async () => {
    const g = await extract("Our family loves hiking at Snowdonia.", { speaker: "Tomasz" });
    expect(fact(g, "Tomasz's family", "loves")?.object).toBe("hiking");
    expect(fact(g, "Tomasz's family", "loves_hiking_at")?.object).toBe("Snowdonia");
    expect(g.entities.map((e) => e.name)).not.toContain("loves");
  });

  it("links a name that hangs on a noun to that noun", async () => {
    const g = await extract("My cousins from Portugal gave me this scarf.", { speaker: "Marta" });
    expect(fact(g, "Marta's cousins", "is_from")?.object).toBe("Portugal");
    expect(fact(g, "Marta's cousins", "gave")?.object).toBe("Marta");
    expect(entity(g, "Portugal")?.type).toBe("place");
  });

  it("a question asserts nothing but still links its names", async () => {
    const g = await extract("Have you been to Paris?", { speaker: "Marta" });
    expect(g.facts.map((f) => [f.subject, f.predicate, f.object])).toEqual([["Marta", "mentions", "Paris"]]);
  });

  it("no speaker: I stays unresolved and yields no fact about nobody", async () => {
    const g = await extract("I went to the museum.");
    expect(g.facts.filter((f) => f.predicate === "went_to")).toEqual([]);
    expectClosed(g);
  });

  it("is deterministic", async () => {
    const text = "Tomasz: We sailed on the lake last weekend with the kids. My cousins from Portugal gave me a scarf.";
    const a = await extract(text, { speaker: "Tomasz", occurredAt: "2023-05-08" });
    const b = await extract(text, { speaker: "Tomasz", occurredAt: "2023-05-08" });
    expect(b).toEqual(a);
    expect(a.facts.length).toBeGreaterThan(2);
    expectClosed(a);
  });

  it("reports the model, request and token estimates", async () => {
    const input = { text: "Alice lives in Paris.", speaker: null };
    const r = await provider.extractGraph(input, {});
    expect(r.model).toBe("builtin-extract-v1");
    expect(r.request).toEqual(input);
    expect(r.response).toEqual(r.value);
    expect(r.tokensIn).toBe(Math.round(4 * 1.3));
    expect(r.tokensOut).toBeGreaterThan(0);
  });
});

describe("builtin extractGraph: aliases", () => {
  const cases: [string, string, string, string][] = [
    ["Robert, also known as Bob, works at Acme.", "Robert", "works_at", "Acme"],
    ["Robert (Bob) Smith works at Acme.", "Robert Smith", "works_at", "Acme"],
    ["Robert, who goes by Bob, lives in Paris.", "Robert", "lives_in", "Paris"],
    ["Robert Smith, aka Bob, works at Acme.", "Robert Smith", "works_at", "Acme"],
    ["Everyone calls Robert 'Bob'.", "Robert", "also_known_as", "Bob"],
  ];
  for (const [text, name, predicate, object] of cases) {
    it(text, async () => {
      const g = await extract(text);
      expect(entity(g, name)?.type).toBe("person");
      expect(entity(g, name)?.aliases).toContain("Bob");
      expect(entity(g, "Bob")).toBeUndefined();
      expect(g.entities.filter((e) => e.type === "person")).toHaveLength(1);
      expect(fact(g, name, predicate)?.object).toBe(object);
      // the alias itself is a fact, with the sentence as written
      expect(fact(g, name, "also_known_as")).toEqual({
        subject: name, predicate: "also_known_as", object: "Bob", objectIsEntity: false, sentence: text, validAt: null, invalidAt: null,
      });
      expectClosed(g);
    });
  }

  it("a later mention of the alias is the same person, also after a merge into the full name", async () => {
    const g = await extract("Robert, also known as Bob, works at Acme. Bob likes jazz. Robert Smith lives in Paris.");
    expect(g.entities.filter((e) => e.type === "person").map((e) => e.name)).toEqual(["Robert Smith"]);
    expect(entity(g, "Robert Smith")?.aliases).toEqual(expect.arrayContaining(["Robert", "Bob"]));
    expect(fact(g, "Robert Smith", "likes")?.object).toBe("jazz");
    expect(fact(g, "Robert Smith", "works_at")?.object).toBe("Acme");
    expectClosed(g);
  });

  it("a word before the name is not part of it", async () => {
    const g = await extract("Yesterday Robert, aka Bob, went home.", { occurredAt: "2024-03-02" });
    expect(entity(g, "Robert")?.aliases).toEqual(["Bob"]);
    expect(fact(g, "Robert", "went")?.validAt).toBe("2024-03-01");
  });

  it("an acronym in brackets is an alias; a place in brackets is not", async () => {
    const g = await extract("The World Health Organization (WHO) is based in Geneva.");
    expect(entity(g, "World Health Organization")?.aliases).toEqual(["WHO"]);
    expect(entity(g, "WHO")).toBeUndefined();
    const p = await extract("Alice moved to Paris (France) last year.");
    expect(p.entities.flatMap((e) => e.aliases)).not.toContain("France");
  });

  it("an unquoted name after call is not an alias", async () => {
    const g = await extract("I called Robert Smith yesterday.", { speaker: "Ravi" });
    expect(g.entities.flatMap((e) => e.aliases)).not.toContain("Smith");
    expect(entity(g, "Robert Smith")).toBeDefined();
  });
});

describe("builtin extractGraph: amounts are literal values of what they measure", () => {
  const literal = (g: ExtractedGraph) => g.facts.filter((f) => !f.objectIsEntity).map((f) => [f.subject, f.predicate, f.object]);

  it("an owner's measure, with a copula or a verb of change", async () => {
    expect(literal(await extract("Vantor Mills's revenue was 3.1 M EUR in Q1."))).toEqual([["Vantor Mills", "has_revenue", "3.1 M EUR"]]);
    expect(literal(await extract("Vantor's revenue rose to $3.9 million."))).toEqual([["Vantor", "revenue_rose_to", "$3.9 million"]]);
    const g = await extract("Vantor's headcount fell from 120 people to 95 people between 2026-01-15 and 2026-07-15.");
    expect(literal(g)).toEqual([
      ["Vantor", "headcount_fell_from", "120 people"],
      ["Vantor", "headcount_fell_to", "95 people"],
    ]);
    expect(g.entities.map((e) => e.name)).toEqual(["Vantor"]);
    expectClosed(g);
  });

  it("a counted thing and a reading stay literal, not entities", async () => {
    expect(literal(await extract("Vantor has 42 employees."))).toEqual([["vantor", "has", "42 employees"]]);
    const g = await extract("The temperature in Lyon was -4 °C.");
    expect(literal(g)).toContainEqual(["temperature", "was", "-4 °C"]);
    expect(entity(g, "-4 °C")).toBeUndefined();
    expectClosed(g);
  });
});

describe("builtin extractGraph: a name of several words owns what follows its possessive mark", () => {
  const literal = (g: ExtractedGraph) => g.facts.filter((f) => !f.objectIsEntity).map((f) => [f.subject, f.predicate, f.object]);
  const names = (g: ExtractedGraph) => g.entities.map((e) => e.name);
  const noPossessiveName = (g: ExtractedGraph) => {
    for (const n of names(g)) expect(n, `entity ${n}`).not.toMatch(/['’]s?$/);
  };

  it("with a copula, singular or plural, and either apostrophe", async () => {
    for (const [text, owner, predicate, amount] of [
      ["Quillon Press's readers were 8400 people.", "Quillon Press", "has_readers", "8400 people"],
      ["Quillon Press’s margin is 12 percent.", "Quillon Press", "has_margin", "12 percent"],
      ["Selvig Foods’ orders were 930 boxes.", "Selvig Foods", "has_orders", "930 boxes"],
      ["The Marlow Trust's staff is 210 people.", "Marlow Trust", "has_staff", "210 people"],
    ] as const) {
      const g = await extract(text);
      expect(literal(g), text).toEqual([[owner, predicate, amount]]);
      expect(names(g), text).toEqual([owner]);
      noPossessiveName(g);
      expectClosed(g);
    }
  });

  it("with a verb of change, a person's name keeps both words", async () => {
    const g = await extract("Ilse Varga's bonus fell from 900 EUR to 700 EUR.");
    expect(literal(g)).toEqual([
      ["Ilse Varga", "bonus_fell_from", "900 EUR"],
      ["Ilse Varga", "bonus_fell_to", "700 EUR"],
    ]);
    expect(entity(g, "Ilse Varga")?.type).toBe("person");
    expectClosed(g);
  });

  it("a possessed thing is named after the whole owner, and a contraction is not a possessive", async () => {
    const g = await extract("Dana toured the Halvard Institute's new lab.");
    expect(entity(g, "Halvard Institute")).toBeDefined();
    noPossessiveName(g);
    const h = await extract("Tomas Ekdahl's moving to Oslo.");
    expect(h.facts.find((f) => f.object === "Oslo")?.subject).toBe("Tomas Ekdahl");
    noPossessiveName(h);
    expectClosed(h);
  });
});
