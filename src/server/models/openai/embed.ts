import type { EmbeddingCreateParams } from "openai/resources/embeddings";
import { ModelError, type CallOptions, type ModelResult } from "../types";
import { toModelError } from "./errors";
import { type CallContext, withCallSignal } from "./structured";

/** L2-normalise: OpenAI's vectors already are, other compatible servers' not always. */
function normalise(v: number[]): number[] {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return norm > 0 ? v.map((x) => x / norm) : v.map(() => 0);
}

/**
 * Embeddings through the SDK, which asks for base64 and decodes it (a quarter of the bytes of
 * JSON floats). Every vector must have the configured dimensions: a mismatch would poison the
 * vector index, so it is an error.
 */
export async function embedCall(
  ctx: CallContext & { embeddingModel: string; dimensions: number },
  opts: CallOptions,
  input: { texts: string[] },
): Promise<ModelResult<number[][]>> {
  const model = opts.model ?? ctx.embeddingModel;
  const request: EmbeddingCreateParams = { model, input: input.texts, dimensions: ctx.dimensions };
  if (input.texts.length === 0) return { value: [], model, request, response: { count: 0 }, tokensIn: 0, tokensOut: null };
  let res;
  try {
    res = await withCallSignal(ctx.signal, (options) => ctx.client.embeddings.create(request, options));
  } catch (err) {
    throw toModelError(err, model, request, ctx.timeoutMs);
  }
  const answered = res.model || model;
  // the digest, not the vectors: they would bloat every inference row
  const response = { model: res.model, count: res.data.length, dimensions: res.data[0]?.embedding.length ?? null, usage: res.usage ?? null };
  if (res.data.length !== input.texts.length) {
    throw new ModelError(`model ${answered} returned ${res.data.length} embeddings for ${input.texts.length} texts`, { model: answered, request, response });
  }
  const vectors = [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
  const bad = vectors.find((v) => v.length !== ctx.dimensions);
  if (bad) {
    throw new ModelError(`embedding from model ${answered} has ${bad.length} dimensions, expected ${ctx.dimensions}`, { model: answered, request, response });
  }
  return { value: vectors.map(normalise), model: answered, request, response, tokensIn: res.usage?.prompt_tokens ?? null, tokensOut: null };
}
