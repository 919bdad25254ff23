import { finish } from "../slices";
import { classifyText } from "../models/builtin/classify";
import { embedding } from "../models/builtin/embed";
import { extractGraph } from "../models/builtin/extract";
import { summarizeText } from "../models/builtin/summarize";
import { estimateTokens } from "../models/builtin/text";
import { chunking, type ChunkOptions } from "../remember/chunk";
import type { ExtractedGraph } from "../models/types";

/**
 * The work the compute thread does (index.ts sends it there): what reads a whole text or a chunk
 * word by word. Each task is a plain function of plain data, so that it can cross threads.
 */
export const computeTasks = {
  chunk: (input: { text: string } & ChunkOptions) => finish(chunking(input.text, input)),
  classify: (text: string) => ({ value: classifyText(text), tokensIn: estimateTokens(text) }),
  extract: (input: { text: string; occurredAt?: string | null; speaker?: string | null }): ExtractedGraph => extractGraph(input),
  summarize: (text: string) => summarizeText(text),
  embed: (texts: string[]) => finish(embedding(texts)),
};

export type ComputeTasks = typeof computeTasks;
export type ComputeTask = keyof ComputeTasks;
