import type OpenAI from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { z } from "zod";
import { ModelError, type CallOptions, type ModelResult } from "../types";
import { toModelError } from "./errors";
import { describeIssues, strictJsonSchema } from "./json-schema";

export interface CallContext {
  client: OpenAI;
  chatModel: string;
  timeoutMs: number;
  /** aborts the request (the run that made it is being stopped) */
  signal?: AbortSignal;
}

/** Model and reasoning effort of a call; reasoning_effort is only sent when asked for. */
export function chatParams(ctx: CallContext, opts: CallOptions): { model: string; reasoning_effort?: CallOptions["reasoning"] } {
  const model = opts.model ?? ctx.chatModel;
  return opts.reasoning ? { model, reasoning_effort: opts.reasoning } : { model };
}

/**
 * Runs one SDK call with a signal of its own that follows `signal` (the run's) while the call
 * lasts. The SDK adds an abort listener to the signal it is given and never removes it: handed the
 * run's signal, a run of a thousand model calls held a thousand listeners until it ended (and Node
 * warned of a leak past ten).
 */
export async function withCallSignal<T>(signal: AbortSignal | undefined, call: (options: { signal: AbortSignal } | undefined) => Promise<T>): Promise<T> {
  if (!signal) return call(undefined);
  const own = new AbortController();
  const follow = () => own.abort(signal.reason);
  if (signal.aborted) own.abort(signal.reason);
  else signal.addEventListener("abort", follow, { once: true });
  try {
    return await call({ signal: own.signal });
  } finally {
    signal.removeEventListener("abort", follow);
  }
}

export async function complete(ctx: CallContext, request: ChatCompletionCreateParamsNonStreaming): Promise<ChatCompletion> {
  try {
    return await withCallSignal(ctx.signal, (options) => ctx.client.chat.completions.create(request, options));
  } catch (err) {
    throw toModelError(err, request.model, request, ctx.timeoutMs);
  }
}

/** What the inference row keeps of a completion: the message, why it stopped, the usage. */
export function completionDigest(c: ChatCompletion): unknown {
  const choice = c.choices[0];
  return { id: c.id, model: c.model, message: choice?.message ?? null, finish_reason: choice?.finish_reason ?? null, usage: c.usage ?? null };
}

export function usageOf(c: ChatCompletion): { tokensIn: number | null; tokensOut: number | null } {
  return { tokensIn: c.usage?.prompt_tokens ?? null, tokensOut: c.usage?.completion_tokens ?? null };
}

/**
 * Output cut off at the model's length limit is not an answer: often a retry (or a run later,
 * with other chunks around it) fits, so it is transient.
 */
export function throwIfTruncated(c: ChatCompletion, model: string, request: unknown, response: unknown): void {
  if (c.choices[0]?.finish_reason !== "length") return;
  throw new ModelError(`output of model ${model} was cut off at its length limit (finish_reason "length")`, { model, request, response, transient: true });
}

/**
 * One structured-output call: system prompt + user message, a strict JSON schema built from the
 * zod schema, and the answer parsed and checked against that same zod schema. A model that
 * answers with something else is an error, not a value to guess at.
 */
export async function structuredCall<S extends z.ZodType>(
  ctx: CallContext,
  opts: CallOptions,
  task: { name: string; schema: S; system: string; user: string },
): Promise<ModelResult<z.output<S>>> {
  const request: ChatCompletionCreateParamsNonStreaming = {
    ...chatParams(ctx, opts),
    messages: [
      { role: "system", content: task.system },
      { role: "user", content: task.user },
    ],
    response_format: {
      type: "json_schema",
      json_schema: { name: task.name, strict: true, schema: strictJsonSchema(task.schema) },
    },
  };
  const completion = await complete(ctx, request);
  const model = completion.model || request.model;
  const response = completionDigest(completion);
  const message = completion.choices[0]?.message;
  throwIfTruncated(completion, model, request, response);
  if (message?.refusal) throw new ModelError(`model ${model} refused the ${task.name} task: ${message.refusal}`, { model, request, response });
  let parsed: unknown;
  try {
    parsed = JSON.parse(message?.content ?? "");
  } catch (cause) {
    throw new ModelError(`malformed JSON from model ${model}`, { model, request, response, cause });
  }
  const checked = task.schema.safeParse(parsed);
  if (!checked.success) {
    const issues = describeIssues(checked.error);
    throw new ModelError(`answer from model ${model} does not match schema: ${issues}`, { model, request, response, cause: checked.error });
  }
  return { value: checked.data, model, request, response, ...usageOf(completion) };
}
