import { beforeEach, describe, expect, it } from "vitest";
import { useFakeOpenAIProvider } from "./fake-provider.test-util";
import { ModelError, type ModelProvider, type ObserveSeriesInput } from "../types";
import type { FakeOpenAI } from "../../../test/fake-openai";

const shared = useFakeOpenAIProvider();
let fake: FakeOpenAI;
let provider: ModelProvider;
beforeEach(() => {
  fake = shared.fake();
  provider = shared.provider();
});

type Body = { messages: { role: string; content: string }[]; response_format?: { json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } } };

const fact = (object: string, value: number) => ({
  subject: "Borealis Ltd",
  predicate: "has_turnover",
  object,
  sentence: `Borealis Ltd's turnover was ${object}.`,
  value,
  unit: "GBP",
  validAt: null,
});
const input: ObserveSeriesInput = {
  seriesKey: "borealis-quarterly",
  members: [
    { textId: "t1", occurredAt: "2025-03-31T00:00:00.000Z", createdAt: "2025-04-02T00:00:00.000Z", content: "Quarter one.", facts: [fact("£2 million", 2e6)] },
    { textId: "t2", occurredAt: "2025-06-30T00:00:00.000Z", createdAt: "2025-07-02T00:00:00.000Z", content: "Quarter two.", facts: [fact("£2.6 million", 2.6e6)] },
  ],
};

describe("openai provider: observeSeries", () => {
  it("sends the window with a strict json_schema and returns the observations", async () => {
    const answer = { observations: [{ content: "Borealis Ltd's turnover rose from £2 million to £2.6 million between 2025-03-31 and 2025-06-30.", textIds: ["t1", "t2"] }] };
    fake.setChat({ content: answer, usage: { prompt_tokens: 200, completion_tokens: 40 } });
    const r = await provider.observeSeries(input, {});
    expect(r.value).toEqual(answer);
    expect(r.tokensOut).toBe(40);
    const b = fake.requests[0]!.body as Body;
    expect(b.response_format?.json_schema).toMatchObject({ name: "observations", strict: true });
    expect(b.response_format!.json_schema.schema).toMatchObject({ type: "object", required: ["observations"], additionalProperties: false });
    const user = b.messages[1]!.content;
    expect(user).toContain("Series: borealis-quarterly");
    expect(user).toContain("Member t1 (2025-03-31)");
    expect(user).toContain("Borealis Ltd | has_turnover | £2.6 million [value 2600000 GBP]");
  });

  it("an answer outside the schema is a ModelError", async () => {
    fake.setChat({ content: { observations: [{ content: "" }] } });
    await expect(provider.observeSeries(input, {})).rejects.toBeInstanceOf(ModelError);
  });
});
