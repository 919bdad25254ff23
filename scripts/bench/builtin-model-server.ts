import { createBuiltinProvider } from "../../src/server/models/builtin";
import { embedText } from "../../src/server/models/builtin/embed";
import type { ContextItem, ResolveEdgesInput } from "../../src/server/models/types";
import { type ChatRequestBody, type ChatValue, type FakeOpenAI, startFakeOpenAI } from "../../src/test/fake-openai";

/*
 * A loopback OpenAI-compatible server that answers every task with the builtin algorithms, so
 * that a benchmark runs the openai provider's whole path (prompts, schemas, answer checks, HTTP)
 * with the answers of a known model. Each task's input is read back out of the user message the
 * provider wrote (prompts.ts): the text after "Text:" for extraction, the JSON line of each item
 * for resolution, the numbered items and the question for the answer.
 */

type Message = { role: string; content: unknown };
const builtin = createBuiltinProvider();

function userMessage(body: ChatRequestBody): string {
  const last = [...((body.messages ?? []) as Message[])].reverse().find((m) => m.role === "user");
  return typeof last?.content === "string" ? last.content : "";
}

/** extractUserMessage: optional "Speaker:" and "Said at:" lines, then "Text:" and the text */
function extractInput(user: string) {
  const at = user.indexOf("Text:\n");
  const head = at >= 0 ? user.slice(0, at) : "";
  return {
    text: at >= 0 ? user.slice(at + 6) : user,
    speaker: /^Speaker: (.*)$/m.exec(head)?.[1] ?? null,
    occurredAt: /^Said at: (.*)$/m.exec(head)?.[1] ?? null,
  };
}

/** resolveUserMessage: a header line per part, then one JSON object per item */
function resolveInput(user: string): ResolveEdgesInput {
  const input: ResolveEdgesInput = { entities: [], facts: [] };
  let part: "entities" | "facts" | null = null;
  for (const line of user.split("\n")) {
    if (line.startsWith("New entities")) part = "entities";
    else if (line.startsWith("New facts")) part = "facts";
    // the lines are what the provider serialised from this same type
    else if (part && line.startsWith("{")) (input[part] as unknown[]).push(JSON.parse(line));
  }
  return input;
}

/** answerUserMessage: "Context:", one "[n] text" line per item, then "Question: …" */
function answerInput(user: string): { question: string; context: ContextItem[] } {
  const q = user.lastIndexOf("\n\nQuestion: ");
  const question = q >= 0 ? user.slice(q + 12) : user;
  const context = [...user.slice(0, q >= 0 ? q : 0).matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
  return { question, context };
}

async function answer(body: ChatRequestBody): Promise<ChatValue> {
  const task = (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ?? "chat";
  const user = userMessage(body);
  const said = /^Said by (.*) \(name them in the summary\):\n/.exec(user);
  switch (task) {
    case "complexity":
      return { content: (await builtin.classifyComplexity({ text: user }, {})).value };
    case "graph":
      return { content: (await builtin.extractGraph(extractInput(user), {})).value };
    case "summary":
      return { content: (await builtin.summarize({ text: said ? user.slice(said[0].length) : user, speaker: said?.[1] ?? null }, {})).value };
    case "resolution":
      return { content: (await builtin.resolveEdges(resolveInput(user), {})).value };
    case "answer":
      return { content: (await builtin.answer(answerInput(user), {})).value };
    default:
      return { status: 400, body: { error: { message: `builtin model server: no task "${task}"`, type: "invalid_request_error" } } };
  }
}

/**
 * The server on a free port of 127.0.0.1. It keeps no record of requests: 10,000 texts are 50,000 of them.
 * `vectors`: the embedding of a text it holds (the caller may fill it later), else the builtin's;
 * `embeddingDelayMs`: how long each embeddings answer waits (a real model's time).
 */
export async function startBuiltinModelServer(opts: { vectors?: ReadonlyMap<string, number[]>; embeddingDelayMs?: number } = {}): Promise<FakeOpenAI> {
  const server: { fake?: FakeOpenAI } = {};
  server.fake = await startFakeOpenAI({
    chat: (body) => {
      server.fake?.requests.splice(0);
      return answer(body);
    },
    embeddings: (text, dimensions) => opts.vectors?.get(text) ?? embedText(text, dimensions),
    ...(opts.embeddingDelayMs ? { embeddingDelayMs: opts.embeddingDelayMs } : {}),
  });
  return server.fake;
}
