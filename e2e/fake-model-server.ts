import { extractGraph } from "../src/server/models/builtin/extract";
import { type ChatRequestBody, type ChatValue, startFakeOpenAI } from "../src/test/fake-openai";

/*
 * The loopback model server of the e2e app on port 3102 (GB_MODELS=openai): an OpenAI-compatible
 * fake whose answers follow markers in the text, so that tests make failed, flagged and slow runs
 * through the API:
 *   [fail-extract]   extract_graph gets a 400 (a verdict, not an outage): the run fails
 *   [flaky-extract]  extract_graph gets a 503 the first time it sees the text: the run is queued
 *                    again and succeeds on its second attempt
 *   [fail-classify]  classify_complexity gets a 400: the run succeeds with a failed advisory stage
 *   [slow]           every model call of that text waits 1 s
 *   [fail-answer]    a question with it gets a 500 when the answer is asked (query.ask: BAD_GATEWAY)
 * Otherwise it answers like a small model: the builtin extractor's graph, the first sentence as
 * the summary, nothing to merge, and an answer that cites the first context item.
 */

const MARKERS = /\[(fail-extract|flaky-extract|fail-classify|slow|fail-answer)\]/g;
/** texts whose [flaky-extract] already failed once */
const flaked = new Set<string>();

function userText(body: ChatRequestBody): string {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const last = [...messages].reverse().find((m) => m.role === "user");
  return typeof last?.content === "string" ? last.content : "";
}

function answer(body: ChatRequestBody): ChatValue {
  const task = (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ?? "chat";
  const text = userText(body);
  const clean = text.replace(MARKERS, "").trim();
  switch (task) {
    case "complexity":
      if (text.includes("[fail-classify]")) return { status: 400, body: { error: { message: "classifier unavailable (fake)", type: "invalid_request_error" } } };
      return { content: { complexity: "simple", chunk: false, reason: "fake model" } };
    case "graph": {
      if (text.includes("[fail-extract]")) return { status: 400, body: { error: { message: "extraction refused (fake)", type: "invalid_request_error" } } };
      if (text.includes("[flaky-extract]") && !flaked.has(text)) {
        flaked.add(text);
        return { status: 503, body: { error: { message: "model overloaded (fake)", type: "server_error" } } };
      }
      const body = clean.includes("Text:\n") ? clean.slice(clean.indexOf("Text:\n") + 6) : clean;
      return { content: extractGraph({ text: body.trim() }) };
    }
    case "summary":
      return { content: { summary: (clean.split(/(?<=[.!?])\s/)[0] ?? clean).slice(0, 300) } };
    case "resolution":
      return { content: { entities: [], facts: [] } };
    case "answer": {
      if (text.includes("[fail-answer]")) return { status: 500, body: { error: { message: "answer model crashed (fake)", type: "server_error" } } };
      const first = /\[1\] (.*)/.exec(clean)?.[1];
      return { content: first ? { answer: `${first} [1]`, cited: [1] } : { answer: "I don't know.", cited: [] } };
    }
    default:
      return { content: "ok" };
  }
}

const port = Number(process.env.FAKE_MODEL_PORT ?? 3198);
await startFakeOpenAI({
  port,
  chat: async (body) => {
    if (JSON.stringify(body.messages ?? []).includes("[slow]")) await new Promise((r) => setTimeout(r, 1000));
    return answer(body);
  },
});
console.log(`fake model server on http://127.0.0.1:${port}/v1`);
