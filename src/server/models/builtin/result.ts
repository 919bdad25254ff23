import type { ModelResult } from "../types";

/** Model names the builtin provider reports; versioned so that stored inferences stay comparable. */
export const BUILTIN_MODELS = {
  classify: "builtin-classify-v1",
  extract: "builtin-extract-v1",
  summarize: "builtin-summarize-v1",
  embed: "builtin-embed-v1",
  answer: "builtin-answer-v1",
  chat: "builtin-chat-v1",
  resolve: "builtin-resolve-v1",
  observe: "builtin-observe-v1",
} as const;

export function builtinResult<T>(
  model: string,
  request: unknown,
  value: T,
  tokensIn: number | null,
  tokensOut: number | null,
): ModelResult<T> {
  return { value, model, request, response: value, tokensIn, tokensOut };
}
