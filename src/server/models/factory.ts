import type { Env } from "../../env";
import { createBuiltinProvider } from "./builtin";
import { createOpenAIProvider } from "./openai";
import type { CallOptions, ModelProvider } from "./types";

/** The provider the environment asks for: openai when a key is set (or GB_MODELS says so). */
export function createProvider(env: Env): ModelProvider {
  if (env.GB_MODELS === "builtin") return createBuiltinProvider();
  return createOpenAIProvider({
    // env.ts requires the key when GB_MODELS is openai
    apiKey: env.OPENAI_API_KEY ?? "",
    baseURL: env.OPENAI_BASE_URL,
    timeoutMs: env.GB_MODEL_TIMEOUT_MS,
    maxRetries: env.GB_MODEL_MAX_RETRIES,
    defaults: {
      chatModel: env.GB_CHAT_MODEL,
      embeddingModel: env.GB_EMBEDDING_MODEL,
      embeddingDimensions: env.GB_EMBEDDING_DIMENSIONS,
    },
  });
}

/**
 * CallOptions per stage: the code's defaults, then GB_STAGE_MODELS, then the request's
 * options (later wins, field by field).
 */
export function resolveStageOptions(
  ...layers: (Readonly<Partial<Record<string, CallOptions>>> | undefined)[]
): Record<string, CallOptions> {
  const out: Record<string, CallOptions> = {};
  for (const layer of layers) {
    for (const [stage, opts] of Object.entries(layer ?? {})) out[stage] = { ...out[stage], ...opts };
  }
  return out;
}

/**
 * What a remember's embeddings are made with in a process of this configuration: "builtin" (none
 * that queries search), or "openai <model> <dimensions>", the model being the load_candidates
 * stage's (GB_STAGE_MODELS) or GB_EMBEDDING_MODEL. Processes sharing a database's remember queue
 * leave a run to a process of its submitter's embeddings while one runs (claimNext).
 */
export function embeddingSpace(env: Env, stageOptions: Readonly<Record<string, CallOptions>>): string {
  if (env.GB_MODELS === "builtin") return "builtin";
  return `openai ${stageOptions.load_candidates?.model ?? env.GB_EMBEDDING_MODEL} ${env.GB_EMBEDDING_DIMENSIONS}`;
}
