import { beforeEach, describe, expect, it } from "vitest";
import { createOpenAIProvider } from ".";
import { DEFAULTS, useFakeOpenAIProvider } from "./fake-provider.test-util";
import { ModelError, type ModelProvider } from "../types";
import { fakeEmbedding, startFakeOpenAI, type FakeOpenAI } from "../../../test/fake-openai";

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
  reasoning_effort?: string;
  tools?: unknown[];
  dimensions?: number;
  encoding_format?: string;
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

describe("openai provider: structured tasks", () => {
  it("extractGraph sends a strict json_schema and parses the answer", async () => {
    const graph = {
      entities: [{ name: "Alice", type: "person", aliases: [] }, { name: "Paris", type: "place", aliases: [] }],
      facts: [{ subject: "Alice", predicate: "lives_in", object: "Paris", objectIsEntity: true, sentence: "Alice lives in Paris.", validAt: null, invalidAt: null }],
    };
    fake.setChat({ content: graph, usage: { prompt_tokens: 120, completion_tokens: 45 } });
    const r = await provider.extractGraph({ text: "I live in Paris.", speaker: "Alice", occurredAt: "2024-01-02" }, {});
    expect(r.value).toEqual(graph);
    expect(r.model).toBe("gpt-test");
    expect(r.tokensIn).toBe(120);
    expect(r.tokensOut).toBe(45);
    const b = body();
    expect(fake.requests[0]!.path).toBe("/v1/chat/completions");
    expect(b.model).toBe("gpt-test");
    expect(b.reasoning_effort).toBeUndefined();
    expect(b.response_format?.type).toBe("json_schema");
    expect(b.response_format?.json_schema).toMatchObject({ name: "graph", strict: true });
    const schema = b.response_format!.json_schema.schema;
    expect(schema).toMatchObject({ type: "object", required: ["entities", "facts"], additionalProperties: false });
    expect(JSON.stringify(schema)).not.toMatch(/minLength|\$schema|9007199254740991/);
    expect(b.messages[0]!.role).toBe("system");
    expect(b.messages[0]!.content).toMatch(/snake_case/);
    expect(b.messages[0]!.content).toMatch(/lives_in/);
    expect(b.messages[1]!.content).toContain("Speaker: Alice");
    expect(b.messages[1]!.content).toContain("Said at: 2024-01-02");
    expect(b.messages[1]!.content).toContain("I live in Paris.");
    expect(r.request).toEqual(b);
  });

  it("summarize, classifyComplexity and answer parse their answers", async () => {
    fake.setChat([
      { content: { summary: "Alice lives in Paris." } },
      { content: { complexity: "complex", chunk: true, reason: "long" } },
      { content: { answer: "Paris [1]", cited: [1] } },
    ]);
    expect((await provider.summarize({ text: "Alice lives in Paris. She likes it." }, {})).value).toEqual({ summary: "Alice lives in Paris." });
    expect((await provider.classifyComplexity({ text: "..." }, {})).value).toEqual({ complexity: "complex", chunk: true, reason: "long" });
    const a = await provider.answer({ question: "Where does Alice live?", context: [{ n: 1, text: "Alice lives in Paris." }] }, {});
    expect(a.value).toEqual({ answer: "Paris [1]", cited: [1] });
    expect(body(2).messages[1]!.content).toContain("[1] Alice lives in Paris.");
    expect(body(2).messages[1]!.content).toContain("Question: Where does Alice live?");
    expect(fake.requests.map((r) => (r.body as Body).response_format?.json_schema.name)).toEqual(["summary", "complexity", "answer"]);
  });

  it("opts.model and opts.reasoning reach the request", async () => {
    fake.setChat({ content: { summary: "s" } });
    const r = await provider.summarize({ text: "t" }, { model: "gpt-big", reasoning: "high" });
    expect(body().model).toBe("gpt-big");
    expect(body().reasoning_effort).toBe("high");
    expect(r.model).toBe("gpt-big");
  });

  it("malformed JSON is a ModelError with the raw response", async () => {
    fake.setChat("this is not json {");
    const err = await rejection(provider.summarize({ text: "t" }, {}));
    expect(err.message).toBe("malformed JSON from model gpt-test");
    expect(JSON.stringify(err.details.response)).toContain("this is not json {");
    expect(err.details.request).toEqual(body());
  });

  it("a schema mismatch is a ModelError naming the field", async () => {
    fake.setChat({ content: { entities: [{ name: "Alice", type: "person" }], facts: [] } });
    const err = await rejection(provider.extractGraph({ text: "t" }, {}));
    expect(err.message).toMatch(/^answer from model gpt-test does not match schema: entities\.0\.aliases: /);
  });

  it("a refusal is a ModelError", async () => {
    fake.setChat({ content: null, refusal: "I can't help with that." });
    const err = await rejection(provider.summarize({ text: "t" }, {}));
    expect(err.message).toContain("refused");
  });
});

describe("openai provider: chat", () => {
  it("sends function tools and returns tool calls with parsed arguments", async () => {
    fake.setChat({ toolCalls: [{ id: "call_1", name: "search", arguments: { query: "Paris", limit: 3 } }], usage: { prompt_tokens: 10, completion_tokens: 2 } });
    const tools = [{ name: "search", description: "Search memory", parameters: { type: "object", properties: { query: { type: "string" } } } }];
    const r = await provider.chat({ messages: [{ role: "user", content: "Where is Alice?" }], tools }, {});
    expect(r.value).toEqual({ content: null, toolCalls: [{ id: "call_1", name: "search", arguments: { query: "Paris", limit: 3 } }] });
    expect(r.tokensIn).toBe(10);
    expect(body().tools).toEqual([{ type: "function", function: tools[0] }]);
  });

  it("sends an earlier tool round trip in the API's shape", async () => {
    fake.setChat("Alice is in Paris.");
    const r = await provider.chat(
      {
        messages: [
          { role: "user", content: "Where is Alice?" },
          { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "search", arguments: { query: "Alice" } }] },
          { role: "tool", content: "Alice lives in Paris.", toolCallId: "call_1" },
        ],
      },
      {},
    );
    expect(r.value).toEqual({ content: "Alice is in Paris.", toolCalls: [] });
    expect(body().messages).toEqual([
      { role: "user", content: "Where is Alice?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "search", arguments: '{"query":"Alice"}' } }] },
      { role: "tool", content: "Alice lives in Paris.", tool_call_id: "call_1" },
    ]);
    expect(body().tools).toBeUndefined();
  });

  it("malformed tool arguments are a ModelError", async () => {
    fake.setChat({ toolCalls: [{ name: "search", arguments: "{oops" }] });
    const err = await rejection(provider.chat({ messages: [{ role: "user", content: "x" }] }, {}));
    expect(err.message).toMatch(/malformed JSON from model gpt-test in the arguments of tool search/);
  });
});

describe("openai provider: embeddings", () => {
  it("asks for base64, decodes it, and returns what the server sent (normalised)", async () => {
    const vectors: Record<string, number[]> = { a: [1, 0, 0, 0, 0, 0, 0, 0], b: [0, 0.6, 0.8, 0, 0, 0, 0, 0] };
    fake.setEmbeddings((text) => vectors[text] ?? []);
    const r = await provider.embed({ texts: ["a", "b"] }, {});
    expect(r.value).toEqual([vectors.a, [0, expect.closeTo(0.6, 6), expect.closeTo(0.8, 6), 0, 0, 0, 0, 0]]);
    expect(body()).toMatchObject({ model: "embed-test", input: ["a", "b"], dimensions: 8, encoding_format: "base64" });
    expect(fake.requests[0]!.path).toBe("/v1/embeddings");
    expect(r.tokensIn).toBeGreaterThan(0);
    expect(r.tokensOut).toBeNull();
    expect(provider.embeddingDimensions).toBe(8);
  });

  it("default fake vectors round-trip through base64 within float32 precision", async () => {
    const r = await provider.embed({ texts: ["hello world"] }, {});
    const expected = fakeEmbedding("hello world", 8);
    r.value[0]!.forEach((x, i) => expect(x).toBeCloseTo(expected[i]!, 6));
  });

  it("a vector of the wrong size is a ModelError", async () => {
    fake.setEmbeddings(() => [1, 0, 0]);
    const err = await rejection(provider.embed({ texts: ["a"] }, {}));
    expect(err.message).toBe("embedding from model embed-test has 3 dimensions, expected 8");
  });

  it("no texts, no call", async () => {
    const r = await provider.embed({ texts: [] }, {});
    expect(r.value).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("openai provider: failures", () => {
  it("retries a 500 and then succeeds", async () => {
    const retrying = createOpenAIProvider({ apiKey: "k", baseURL: fake.url, timeoutMs: 5_000, maxRetries: 2, defaults: DEFAULTS });
    fake.setChat([{ status: 500, headers: { "retry-after-ms": "10" } }, { content: { summary: "second time" } }]);
    const r = await retrying.summarize({ text: "t" }, {});
    expect(r.value.summary).toBe("second time");
    expect(fake.requests).toHaveLength(2);
  });

  it("an HTTP error after retries is a ModelError with the status", async () => {
    fake.setChat({ status: 400, body: { error: { message: "bad schema", type: "invalid_request_error" } } });
    const err = await rejection(provider.summarize({ text: "t" }, {}));
    expect(err.message).toMatch(/^model gpt-test call failed with HTTP 400: /);
    expect(err.message).toContain("bad schema");
    expect(fake.requests).toHaveLength(1);
  });

  it("a slow server is a timeout ModelError", async () => {
    const impatient = createOpenAIProvider({ apiKey: "k", baseURL: fake.url, timeoutMs: 100, maxRetries: 0, defaults: DEFAULTS });
    fake.setChat({ delayMs: 2_000, content: { summary: "too late" } });
    const started = Date.now();
    const err = await rejection(impatient.summarize({ text: "t" }, {}));
    expect(err.message).toBe("request to model gpt-test timed out (timeout 100 ms)");
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("an unreachable server is a ModelError", async () => {
    const other = await startFakeOpenAI();
    const url = other.url;
    await other.close();
    const lost = createOpenAIProvider({ apiKey: "k", baseURL: url, timeoutMs: 1_000, maxRetries: 0, defaults: DEFAULTS });
    const err = await rejection(lost.embed({ texts: ["a"] }, {}));
    expect(err.message).toMatch(/^could not reach the model server for embed-test/);
  });
});
