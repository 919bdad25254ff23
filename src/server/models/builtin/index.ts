import type { ModelProvider } from "../types";
import { answerFromContext } from "./answer";
import { builtinChat } from "./chat";
import { compute } from "../../compute";
import { EMBEDDING_DIMENSIONS } from "./embed";
import { observeSeries } from "./observe";
import { resolveEdges } from "./resolve";
import { BUILTIN_MODELS, builtinResult } from "./result";
import { estimateTokens } from "./text";

/**
 * The builtin provider: deterministic, offline algorithms behind the model interface, so that
 * the app runs its whole job with no network and tests are repeatable. Call options (model,
 * reasoning) do not apply and are ignored; every result names the algorithm that produced it.
 * The tasks that read a whole text or a chunk run on the compute thread (../../compute): a
 * megabyte of text must not stop the server answering. Resolving, answering and chatting read
 * little and run here.
 */
export function createBuiltinProvider(): ModelProvider {
  return {
    name: "builtin",
    embeddingDimensions: EMBEDDING_DIMENSIONS,
    semanticEmbeddings: false,
    async classifyComplexity(input) {
      const { value, tokensIn } = await compute("classify", input.text);
      return builtinResult(BUILTIN_MODELS.classify, input, value, tokensIn, estimateTokens(value.reason));
    },
    async extractGraph(input) {
      const value = await compute("extract", input);
      const out = value.facts.map((f) => f.sentence).join(" ") + " " + value.entities.map((e) => e.name).join(" ");
      return builtinResult(BUILTIN_MODELS.extract, input, value, estimateTokens(input.text), estimateTokens(out));
    },
    async summarize(input) {
      // extractive: the text's own sentences, said by the speaker when there is one
      const summary = await compute("summarize", input.text);
      const value = { summary: input.speaker && summary ? `${input.speaker}: ${summary}` : summary };
      return builtinResult(BUILTIN_MODELS.summarize, input, value, estimateTokens(input.text), estimateTokens(value.summary));
    },
    async resolveEdges(input) {
      const value = resolveEdges(input);
      const seen = [
        ...input.entities.flatMap((e) => [e.name, ...e.candidates.map((c) => c.name)]),
        ...input.facts.flatMap((f) => [f.sentence, ...f.candidates.map((c) => c.sentence)]),
      ];
      const tokensIn = seen.reduce((sum, t) => sum + estimateTokens(t), 0);
      return builtinResult(BUILTIN_MODELS.resolve, input, value, tokensIn, estimateTokens(JSON.stringify(value)));
    },
    async embed(input) {
      const value = await compute("embed", input.texts);
      const tokensIn = input.texts.reduce((sum, t) => sum + estimateTokens(t), 0);
      // the response is a digest: vectors would bloat every inference row
      const result = builtinResult(BUILTIN_MODELS.embed, input, value, tokensIn, null);
      return { ...result, response: { count: value.length, dimensions: EMBEDDING_DIMENSIONS } };
    },
    async answer(input) {
      const value = answerFromContext(input.question, input.context);
      const tokensIn = estimateTokens(input.question) + input.context.reduce((sum, c) => sum + estimateTokens(c.text), 0);
      return builtinResult(BUILTIN_MODELS.answer, input, value, tokensIn, estimateTokens(value.answer));
    },
    async observeSeries(input) {
      const value = observeSeries(input);
      const tokensIn = input.members.reduce((sum, m) => sum + m.facts.reduce((n, f) => n + estimateTokens(f.sentence), 0), 0);
      return builtinResult(BUILTIN_MODELS.observe, { seriesKey: input.seriesKey, members: input.members.length }, value, tokensIn, estimateTokens(JSON.stringify(value)));
    },
    async chat(input) {
      const value = builtinChat(input.messages);
      const tokensIn = input.messages.reduce((sum, m) => sum + estimateTokens(m.content), 0);
      return builtinResult(BUILTIN_MODELS.chat, input, value, tokensIn, estimateTokens(value.content ?? ""));
    },
  };
}
