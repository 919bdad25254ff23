import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback OpenAI-compatible server for tests: POST /v1/chat/completions and
 * POST /v1/embeddings on 127.0.0.1, with answers the test scripts. It records every request so
 * tests can check what the client really sent (model, reasoning_effort, schema, retries).
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** parsed JSON, or the raw text when the body was not JSON */
  body: unknown;
}

/** What one chat call answers. A bare string is the message content. */
export interface ChatSpec {
  /** message content; an object is sent as its JSON text */
  content?: string | object | null;
  toolCalls?: { id?: string; name: string; arguments: unknown }[];
  refusal?: string;
  /** an HTTP error: status and JSON body (default: an OpenAI-style error object) */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** wait this long before answering (to provoke client timeouts) */
  delayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** the model the answer claims; default the requested one */
  model?: string;
  /** default "stop" ("tool_calls" with toolCalls); "length" = the output was cut off */
  finishReason?: string;
}
export type ChatValue = ChatSpec | string;
export type ChatRequestBody = Record<string, unknown> & { model?: string; messages?: unknown[] };
/** A function of the request (and the 0-based call number), one value for every call, or a list: one per call. */
export type ChatAnswer = ChatValue | ChatValue[] | ((body: ChatRequestBody, call: number) => ChatValue | Promise<ChatValue>);
export type EmbeddingFn = (text: string, dimensions: number) => number[];

export interface FakeOpenAI {
  /** base URL for the SDK, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  requests: RecordedRequest[];
  /** replace the chat answer; a list starts again at its first value */
  setChat(answer: ChatAnswer): void;
  setEmbeddings(fn: EmbeddingFn): void;
  /**
   * Embeddings calls answer an HTTP error status until set back to null: a status for every call,
   * or a function of the call's input texts (null = answer normally).
   */
  setEmbeddingError(status: number | null | ((texts: string[]) => number | null)): void;
  close(): Promise<void>;
}

/** Deterministic default embedding: a normalised vector seeded by the text. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  let h = 2166136261;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  const v = Array.from({ length: dimensions }, (_, i) => Math.sin((h >>> 0) * 0.001 + i * 1.7));
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

/** Little-endian float32 base64, as the real API sends for encoding_format "base64". */
export function toBase64Float32(v: number[]): string {
  const buf = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
  return buf.toString("base64");
}

const estimate = (text: string): number => Math.ceil(text.length / 4);

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("error", reject);
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        resolve(text ? JSON.parse(text) : null);
      } catch {
        resolve(text);
      }
    });
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return; // the client gave up (timeout): nothing to answer
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function completion(body: ChatRequestBody, spec: ChatSpec, call: number): unknown {
  let content: string | null;
  if (spec.content === undefined) content = spec.toolCalls ? null : "";
  else content = typeof spec.content === "object" && spec.content !== null ? JSON.stringify(spec.content) : spec.content;
  const toolCalls = spec.toolCalls?.map((t, i) => ({
    id: t.id ?? `call_${call}_${i}`,
    type: "function",
    function: { name: t.name, arguments: typeof t.arguments === "string" ? t.arguments : JSON.stringify(t.arguments) },
  }));
  const usage = spec.usage ?? { prompt_tokens: estimate(JSON.stringify(body.messages ?? [])), completion_tokens: estimate(content ?? "") };
  return {
    id: `chatcmpl-fake-${call}`,
    object: "chat.completion",
    created: 1_700_000_000 + call,
    model: spec.model ?? body.model ?? "fake-model",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, refusal: spec.refusal ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        finish_reason: spec.finishReason ?? (toolCalls ? "tool_calls" : "stop"),
        logprobs: null,
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** The task a chat call is for: the name of its JSON schema (complexity, summary, graph, …). */
export const chatTask = (body: ChatRequestBody): string | undefined =>
  (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;

/**
 * A chat answer for remembering "Alice lives in Paris." through the openai provider (its tasks:
 * complexity, summary, resolution, graph), and `other` for any other task (query's answer).
 * `graph` adds to the graph task's answer (a delay, to keep a run in flight).
 */
export function aliceInParisChat(other: (body: ChatRequestBody) => ChatValue, graph: () => Partial<ChatSpec> = () => ({})): (body: ChatRequestBody) => ChatValue {
  return (body) => {
    const task = chatTask(body);
    if (task === "complexity") return { content: { complexity: "simple", chunk: false, reason: "short" } };
    if (task === "summary") return { content: { summary: "Alice lives in Paris." } };
    if (task === "resolution") return { content: { entities: [], facts: [] } };
    if (task === "graph") {
      return {
        ...graph(),
        content: {
          entities: [
            { name: "Alice", type: "person", aliases: [] },
            { name: "Paris", type: "place", aliases: [] },
          ],
          facts: [{ subject: "Alice", predicate: "lives_in", object: "Paris", objectIsEntity: true, sentence: "Alice lives in Paris.", validAt: null, invalidAt: null }],
        },
      };
    }
    return other(body);
  };
}

export async function startFakeOpenAI(
  handlers: {
    chat?: ChatAnswer;
    embeddings?: EmbeddingFn;
    /** every embeddings answer waits this long */
    embeddingDelayMs?: number;
    /** the port to listen on (default: any free one) */
    port?: number;
  } = {},
): Promise<FakeOpenAI> {
  let chat: ChatAnswer = handlers.chat ?? { content: "ok" };
  let embed: EmbeddingFn = handlers.embeddings ?? fakeEmbedding;
  let chatCalls = 0;
  let embeddingError: number | null | ((texts: string[]) => number | null) = null;
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => (timers.delete(t), resolve()), ms);
      timers.add(t);
    });

  async function pick(body: ChatRequestBody, call: number): Promise<ChatSpec> {
    let value: ChatValue | undefined;
    if (typeof chat === "function") value = await chat(body, call);
    else if (Array.isArray(chat)) value = chat[call];
    else value = chat;
    if (value === undefined) return { status: 500, body: { error: { message: `fake-openai: no answer scripted for call ${call}` } } };
    return typeof value === "string" ? { content: value } : value;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const path = (req.url ?? "").split("?")[0] ?? "";
    requests.push({ method: req.method ?? "", path, headers: req.headers, body });
    const json = (body && typeof body === "object" ? body : {}) as ChatRequestBody;
    if (req.method === "POST" && path === "/v1/chat/completions") {
      const call = chatCalls++;
      const spec = await pick(json, call);
      if (spec.delayMs) await wait(spec.delayMs);
      if (spec.status && spec.status >= 400) {
        const errorBody = spec.body ?? { error: { message: `fake error ${spec.status}`, type: "server_error", code: null } };
        return send(res, spec.status, errorBody, spec.headers);
      }
      return send(res, spec.status ?? 200, completion(json, spec, call), spec.headers);
    }
    if (req.method === "POST" && path === "/v1/embeddings") {
      if (handlers.embeddingDelayMs) await wait(handlers.embeddingDelayMs);
      const input = json.input;
      const texts = Array.isArray(input) ? input.map(String) : [String(input ?? "")];
      const failWith = typeof embeddingError === "function" ? embeddingError(texts) : embeddingError;
      if (failWith !== null) {
        return send(res, failWith, { error: { message: `fake embeddings error ${failWith}`, type: "server_error", code: null } });
      }
      const dimensions = typeof json.dimensions === "number" ? json.dimensions : 8;
      const base64 = json.encoding_format === "base64";
      const data = texts.map((t, index) => {
        const v = embed(t, dimensions);
        return { object: "embedding", index, embedding: base64 ? toBase64Float32(v) : v };
      });
      const tokens = texts.reduce((s, t) => s + estimate(t), 0);
      return send(res, 200, { object: "list", data, model: json.model ?? "fake-embedding", usage: { prompt_tokens: tokens, total_tokens: tokens } });
    }
    send(res, 404, { error: { message: `fake-openai: no route ${req.method} ${path}`, type: "invalid_request_error" } });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, { error: { message: String(err) } }));
  });
  await new Promise<void>((resolve) => server.listen(handlers.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    setChat(answer) {
      chat = answer;
      chatCalls = 0;
    },
    setEmbeddings(fn) {
      embed = fn;
    },
    setEmbeddingError(status) {
      embeddingError = status;
    },
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      // the SDK keeps connections alive; without this close() would wait for them
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
