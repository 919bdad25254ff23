import OpenAI from "openai";
import { Answer, Complexity, ExtractedGraph, SeriesObservations, Summary, type CallControl, type ModelProvider } from "../types";
import { chatCall } from "./chat";
import { embedCall } from "./embed";
import {
  ANSWER_PROMPT, CLASSIFY_PROMPT, EXTRACT_PROMPT, OBSERVE_PROMPT, SUMMARIZE_PROMPT, answerUserMessage, extractUserMessage, observeUserMessage,
} from "./prompts";
import { resolveCall } from "./resolve";
import { structuredCall, type CallContext } from "./structured";

export interface OpenAIProviderConfig {
  apiKey: string;
  /** any OpenAI-compatible server (Ollama, vLLM, LM Studio …); default api.openai.com */
  baseURL?: string;
  /** per attempt; default 60 s */
  timeoutMs?: number;
  /** retries (with the SDK's exponential backoff) on 408/409/429/5xx and connection errors; default 2 */
  maxRetries?: number;
  defaults: { chatModel: string; embeddingModel: string; embeddingDimensions: number };
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

/** The openai provider: every task a chat-completion or embeddings call through the official SDK. */
export function createOpenAIProvider(cfg: OpenAIProviderConfig): ModelProvider {
  const timeoutMs = cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new OpenAI({
    apiKey: cfg.apiKey,
    ...(cfg.baseURL ? { baseURL: cfg.baseURL } : {}),
    timeout: timeoutMs,
    maxRetries: cfg.maxRetries ?? DEFAULT_MAX_RETRIES,
  });
  const ctx: CallContext = { client, chatModel: cfg.defaults.chatModel, timeoutMs };
  const embedCtx = { ...ctx, embeddingModel: cfg.defaults.embeddingModel, dimensions: cfg.defaults.embeddingDimensions };
  // a call's signal joins the shared client settings for that call only
  const on = <C extends CallContext>(base: C, control?: CallControl): C => (control?.signal ? { ...base, signal: control.signal } : base);
  return {
    name: "openai",
    embeddingDimensions: cfg.defaults.embeddingDimensions,
    semanticEmbeddings: true,
    classifyComplexity: (input, opts, control) =>
      structuredCall(on(ctx, control), opts, { name: "complexity", schema: Complexity, system: CLASSIFY_PROMPT, user: input.text }),
    extractGraph: (input, opts, control) =>
      structuredCall(on(ctx, control), opts, { name: "graph", schema: ExtractedGraph, system: EXTRACT_PROMPT, user: extractUserMessage(input) }),
    summarize: (input, opts, control) =>
      structuredCall(on(ctx, control), opts, {
        name: "summary",
        schema: Summary,
        system: SUMMARIZE_PROMPT,
        user: input.speaker ? `Said by ${input.speaker} (name them in the summary):\n${input.text}` : input.text,
      }),
    resolveEdges: (input, opts, control) => resolveCall(on(ctx, control), opts, input),
    answer: (input, opts, control) =>
      structuredCall(on(ctx, control), opts, { name: "answer", schema: Answer, system: ANSWER_PROMPT, user: answerUserMessage(input) }),
    observeSeries: (input, opts, control) =>
      structuredCall(on(ctx, control), opts, { name: "observations", schema: SeriesObservations, system: OBSERVE_PROMPT, user: observeUserMessage(input) }),
    embed: (input, opts, control) => embedCall(on(embedCtx, control), opts, input),
    chat: (input, opts, control) => chatCall(on(ctx, control), opts, input),
  };
}
