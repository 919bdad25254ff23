import { afterAll, beforeAll, beforeEach } from "vitest";
import { fakeEmbedding, type FakeOpenAI, startFakeOpenAI } from "../../../test/fake-openai";
import type { ModelProvider } from "../types";
import { createOpenAIProvider } from ".";

export const DEFAULTS = { chatModel: "gpt-test", embeddingModel: "embed-test", embeddingDimensions: 8 };

/**
 * An openai provider against a loopback fake, for the tests of one file: the fake lives for the
 * file; before each test its records are cleared, its answers reset and a fresh provider made
 * (no retries, 5 s timeout).
 */
export function useFakeOpenAIProvider(): { fake: () => FakeOpenAI; provider: () => ModelProvider } {
  let fake: FakeOpenAI | undefined;
  let provider: ModelProvider | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    fake!.requests.length = 0;
    fake!.setChat({ content: "ok" });
    fake!.setEmbeddings(fakeEmbedding);
    provider = createOpenAIProvider({ apiKey: "test-key", baseURL: fake!.url, timeoutMs: 5_000, maxRetries: 0, defaults: DEFAULTS });
  });
  return { fake: () => fake!, provider: () => provider! };
}
