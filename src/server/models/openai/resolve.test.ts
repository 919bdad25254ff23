import { beforeEach, describe, expect, it } from "vitest";
import { useFakeOpenAIProvider } from "./fake-provider.test-util";
import { ModelError, type ModelProvider, type ResolveEdgesInput } from "../types";
import type { FakeOpenAI } from "../../../test/fake-openai";

const shared = useFakeOpenAIProvider();
let fake: FakeOpenAI;
let provider: ModelProvider;
beforeEach(() => {
  fake = shared.fake();
  provider = shared.provider();
});

type Body = {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } };
};
const body = (i = 0): Body => fake.requests[i]!.body as Body;

async function rejection(p: Promise<unknown>): Promise<ModelError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelError);
  return err as ModelError;
}

const INPUT: ResolveEdgesInput = {
  entities: [
    {
      n: 1, name: "Bob", type: "person", aliases: [],
      candidates: [{ ref: "e1", name: "Robert Smith", type: "person", aliases: ["Robert", "Bob"], summary: "Robert works at Acme." }],
    },
    { n: 2, name: "Berlin", type: "place", aliases: [], candidates: [] },
  ],
  facts: [
    {
      n: 1, subject: "Bob", predicate: "lives_in", object: "Berlin", sentence: "Bob moved to Berlin.", validAt: "2024-01-01",
      candidates: [
        { ref: "f1", subject: "Robert Smith", predicate: "lives_in", object: "Paris", sentence: "Robert lives in Paris.", validAt: null },
        { ref: "f2", subject: "Robert Smith", predicate: "likes", object: "Berlin", sentence: "Robert likes Berlin.", validAt: null },
      ],
    },
    {
      n: 2, subject: "Bob", predicate: "works_at", object: "Acme", sentence: "Bob works at Acme.", validAt: null,
      candidates: [{ ref: "f3", subject: "Robert Smith", predicate: "works_at", object: "Acme Corp", sentence: "Robert works at Acme Corp.", validAt: null }],
    },
  ],
};

describe("openai provider: resolveEdges", () => {
  it("sends the schema, the prompt and the candidates, and returns one row per input n", async () => {
    fake.setChat({
      content: {
        entities: [{ n: 1, match: "e1" }],
        facts: [
          { n: 1, duplicateOf: null, contradicts: ["f1", "f1"] },
          { n: 2, duplicateOf: "f3", contradicts: ["f3"] },
        ],
      },
      usage: { prompt_tokens: 300, completion_tokens: 40 },
    });
    const r = await provider.resolveEdges(INPUT, { reasoning: "low" });
    expect(r.value).toEqual({
      entities: [{ n: 1, match: "e1" }, { n: 2, match: null }],
      facts: [
        { n: 1, duplicateOf: null, contradicts: ["f1"] },
        { n: 2, duplicateOf: "f3", contradicts: [] },
      ],
    });
    expect(r.tokensIn).toBe(300);
    const b = body();
    expect(b.response_format?.json_schema).toMatchObject({ name: "resolution", strict: true });
    const schema = b.response_format!.json_schema.schema;
    expect(schema).toMatchObject({ type: "object", required: ["entities", "facts"], additionalProperties: false });
    expect(JSON.stringify(schema)).toContain("duplicateOf");
    expect(JSON.stringify(schema)).toContain("contradicts");
    expect(b.messages[0]!.content).toMatch(/contradiction/i);
    expect(b.messages[0]!.content).toMatch(/later validAt supersedes/);
    const user = b.messages[1]!.content;
    expect(user).toContain('"ref":"e1"');
    expect(user).toContain('"summary":"Robert works at Acme."');
    expect(user).toContain('"ref":"f2"');
    expect(user).toContain('"validAt":"2024-01-01"');
    // an item without candidates is new by definition: not sent
    expect(user).not.toContain('"name":"Berlin"');
    expect(r.request).toEqual(b);
  });

  it("a ref that is not among that item's candidates is a ModelError", async () => {
    fake.setChat({ content: { entities: [{ n: 1, match: "e9" }], facts: [] } });
    let err = await rejection(provider.resolveEdges(INPUT, {}));
    expect(err.message).toBe('answer from model gpt-test names ref "e9" for entity n=1, which is not among its candidates (e1)');
    expect(err.details.request).toEqual(body());

    // f3 exists, but belongs to fact 2
    fake.setChat({ content: { entities: [], facts: [{ n: 1, duplicateOf: null, contradicts: ["f3"] }] } });
    err = await rejection(provider.resolveEdges(INPUT, {}));
    expect(err.message).toMatch(/names ref "f3" for fact n=1, which is not among its candidates/);
  });

  it("an n that was not asked, or answered twice, is a ModelError", async () => {
    fake.setChat({ content: { entities: [{ n: 2, match: null }], facts: [] } });
    expect((await rejection(provider.resolveEdges(INPUT, {}))).message).toMatch(/answers entity n=2, which was not asked/);
    fake.setChat({ content: { entities: [], facts: [{ n: 2, duplicateOf: null, contradicts: [] }, { n: 2, duplicateOf: null, contradicts: [] }] } });
    expect((await rejection(provider.resolveEdges(INPUT, {}))).message).toMatch(/answers fact n=2 twice/);
  });

  it("an n the model left out is filled in as new, and noted in the response", async () => {
    fake.setChat({ content: { entities: [], facts: [{ n: 2, duplicateOf: "f3", contradicts: [] }] } });
    const r = await provider.resolveEdges(INPUT, {});
    expect(r.value).toEqual({
      entities: [{ n: 1, match: null }, { n: 2, match: null }],
      facts: [{ n: 1, duplicateOf: null, contradicts: [] }, { n: 2, duplicateOf: "f3", contradicts: [] }],
    });
    expect(r.response).toMatchObject({ filled_in: { entities: [1], facts: [1] } });
  });

  it("malformed JSON and a schema mismatch are ModelErrors", async () => {
    fake.setChat('{"entities": [');
    expect((await rejection(provider.resolveEdges(INPUT, {}))).message).toBe("malformed JSON from model gpt-test");
    fake.setChat({ content: { entities: [{ n: 1 }], facts: [] } });
    expect((await rejection(provider.resolveEdges(INPUT, {}))).message).toMatch(/^answer from model gpt-test does not match schema: entities\.0\.match: /);
  });

  it("asks about a near-identical name, telling the model that a number or a word apart is another entity", async () => {
    fake.setChat({ content: { entities: [{ n: 1, match: null }], facts: [] } });
    const r = await provider.resolveEdges(
      { entities: [{ n: 1, name: "Worker3", type: "person", aliases: [], candidates: [{ ref: "e1", name: "Worker8", type: "person", aliases: [], summary: null }] }], facts: [] },
      {},
    );
    expect(r.value).toEqual({ entities: [{ n: 1, match: null }], facts: [] });
    const system = body().messages[0]!.content;
    expect(system).toMatch(/differ in a number or a word are different entities/);
    expect(system).toMatch(/Similar spelling is never enough/);
    // the first-name rule stays: "Alice" and "Alice Smith" may be one person
    expect(system).toContain('"Alice" and "Alice Smith"');
    expect(body().messages[1]!.content).toContain('{"ref":"e1","name":"Worker8","type":"person","aliases":[],"summary":null}');
  });

  it("nothing with candidates: no call, everything new", async () => {
    const r = await provider.resolveEdges(
      { entities: [{ n: 1, name: "Zed", type: "person", aliases: [], candidates: [] }], facts: [] },
      {},
    );
    expect(r.value).toEqual({ entities: [{ n: 1, match: null }], facts: [] });
    expect(fake.requests).toHaveLength(0);
  });
});
