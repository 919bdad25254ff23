import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { ModelError, type CallOptions, type ChatMessage, type ChatReply, type ModelResult, type ToolCall, type ToolDef } from "../types";
import { chatParams, complete, completionDigest, throwIfTruncated, usageOf, type CallContext } from "./structured";

/** Our messages in the API's shape; an assistant turn that called tools carries its calls. */
export function toApiMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    if (m.role === "tool") return { role: "tool", content: m.content, tool_call_id: m.toolCallId ?? "" };
    if (m.role === "assistant" && m.toolCalls && m.toolCalls.length > 0) {
      return {
        role: "assistant",
        content: m.content || null,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) },
        })),
      };
    }
    return { role: m.role, content: m.content };
  });
}

/** Free chat with optional function tools; tool-call arguments come back parsed. */
export async function chatCall(
  ctx: CallContext,
  opts: CallOptions,
  input: { messages: ChatMessage[]; tools?: ToolDef[] },
): Promise<ModelResult<ChatReply>> {
  const tools = input.tools ?? [];
  const request: ChatCompletionCreateParamsNonStreaming = {
    ...chatParams(ctx, opts),
    messages: toApiMessages(input.messages),
    ...(tools.length > 0
      ? { tools: tools.map((t) => ({ type: "function" as const, function: { name: t.name, description: t.description, parameters: t.parameters } })) }
      : {}),
  };
  const completion = await complete(ctx, request);
  const model = completion.model || request.model;
  const response = completionDigest(completion);
  const message = completion.choices[0]?.message;
  throwIfTruncated(completion, model, request, response);
  const toolCalls: ToolCall[] = [];
  for (const call of message?.tool_calls ?? []) {
    if (call.type !== "function") continue; // custom (free-text) tools are never offered
    let args: unknown;
    try {
      args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
    } catch (cause) {
      throw new ModelError(`malformed JSON from model ${model} in the arguments of tool ${call.function.name}`, { model, request, response, cause });
    }
    toolCalls.push({ id: call.id, name: call.function.name, arguments: args });
  }
  return { value: { content: message?.content ?? null, toolCalls }, model, request, response, ...usageOf(completion) };
}
