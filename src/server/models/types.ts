import { z } from "zod";
import { text } from "../input";
import { ERROR_BRAND, errorKind } from "../errors";

/**
 * The model interface every stage calls. One method per task rather than a free-form prompt:
 * the builtin provider has no language model, so it can only do tasks it has an algorithm for.
 * Each provider returns a ModelResult so that the recorder (record.ts) can file what was asked
 * and answered in gb_inferences without knowing the provider.
 */

export const ReasoningEffort = z.enum(["minimal", "low", "medium", "high"]);
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

/** Per-call model choice: from defaults, then env, then the request (later wins). */
export const CallOptions = z.object({
  model: text().min(1).max(200).optional(),
  reasoning: ReasoningEffort.optional(),
});
export type CallOptions = z.infer<typeof CallOptions>;

export type ProviderName = "builtin" | "openai";

export const Complexity = z.object({
  complexity: z.enum(["simple", "complex"]),
  /** whether chunk_text should split the text (false = one chunk) */
  chunk: z.boolean(),
  reason: z.string(),
});
export type Complexity = z.infer<typeof Complexity>;

export const ExtractedEntity = z.object({
  name: z.string().min(1),
  /** person | organization | place | date | thing | … (lowercase) */
  type: z.string().min(1),
  aliases: z.array(z.string()),
});
export const ExtractedFact = z.object({
  subject: z.string().min(1),
  /** snake_case verb phrase: lives_in, works_at, moved_to, likes … */
  predicate: z.string().min(1),
  object: z.string().min(1),
  /** true when object names an entity of `entities`, false for a literal value */
  objectIsEntity: z.boolean(),
  /** the fact as one self-contained sentence */
  sentence: z.string().min(1),
  /** ISO-8601 date or date-time when the text says when it started holding, else null */
  validAt: z.string().nullable(),
  /** ISO-8601 date or date-time when the text says when it stopped holding, else null */
  invalidAt: z.string().nullable(),
});
export const ExtractedGraph = z.object({
  entities: z.array(ExtractedEntity),
  facts: z.array(ExtractedFact),
});
export type ExtractedEntity = z.infer<typeof ExtractedEntity>;
export type ExtractedFact = z.infer<typeof ExtractedFact>;
export type ExtractedGraph = z.infer<typeof ExtractedGraph>;

export const Summary = z.object({ summary: z.string() });
export type Summary = z.infer<typeof Summary>;

export const Answer = z.object({
  answer: z.string(),
  /** the `n` of each context item the answer cites */
  cited: z.array(z.number().int()),
});
export type Answer = z.infer<typeof Answer>;

/** An existing entity a new one may be (load_candidates found it by name, text or vector). */
export interface EntityCandidate {
  /** opaque reference the answer points back with (an id, or a short key like "e1") */
  ref: string;
  name: string;
  type: string;
  aliases: string[];
  summary: string | null;
}
/** A current fact a new one may duplicate or contradict. */
export interface FactCandidate {
  ref: string;
  subject: string;
  predicate: string;
  object: string;
  sentence: string;
  validAt: string | null;
}

/** What resolve_edges asks: for each new entity and fact, its candidates among what is stored. */
export interface ResolveEdgesInput {
  /** new entities whose identity is uncertain, each with existing candidates */
  entities: { n: number; name: string; type: string; aliases: string[]; candidates: EntityCandidate[] }[];
  /** new facts, each with current facts it may duplicate or contradict (same subject and predicate, or same subject and object) */
  facts: {
    n: number;
    subject: string;
    predicate: string;
    object: string;
    sentence: string;
    validAt: string | null;
    candidates: FactCandidate[];
  }[];
}

/**
 * The answer: one row per input `n`. `match` is the ref of the existing entity the new one is,
 * or null for a new entity; `duplicateOf` the ref of a current fact that states the same thing;
 * `contradicts` the refs of current facts that cannot hold together with the new one, whatever
 * their dates: the caller decides which one ends (the later validAt supersedes; undated, the new
 * fact does). Refs are always among the candidates of that same `n`. Providers return exactly
 * one row per input n, in input order; an item without candidates is new (null / []).
 */
export const ResolveEdges = z.object({
  entities: z.array(z.object({ n: z.number().int(), match: z.string().nullable() })),
  facts: z.array(z.object({ n: z.number().int(), duplicateOf: z.string().nullable(), contradicts: z.array(z.string()) })),
});
export type ResolveEdges = z.infer<typeof ResolveEdges>;

/** observe_series' question: a series' latest members (oldest first), each with its facts and numbers. */
export interface ObserveSeriesInput {
  seriesKey: string;
  members: {
    textId: string;
    occurredAt: string | null;
    createdAt: string;
    content: string;
    facts: { subject: string; predicate: string; object: string; sentence: string; value: number | null; unit: string | null; validAt: string | null }[];
  }[];
}

/**
 * observe_series' answer: what changed across the series, each a short text remembered like any
 * other (so it must name its subject and its values), with the members it was drawn from.
 */
export const SeriesObservations = z.object({
  observations: z.array(
    z.object({
      /** one or two self-contained sentences: "Acme's revenue rose from 3.1 M EUR to 3.9 M EUR between 2026-01-15 and 2026-07-15." */
      content: z.string().min(1),
      /** the textIds of the members it is drawn from */
      textIds: z.array(z.string()),
    }),
  ),
});
export type SeriesObservations = z.infer<typeof SeriesObservations>;

export interface ContextItem {
  n: number;
  text: string;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  /** for role "tool": the id of the call this message answers */
  toolCallId?: string;
  /** for role "assistant": the tool calls it made (the API needs them before their "tool" answers) */
  toolCalls?: ToolCall[];
}
export interface ToolDef {
  name: string;
  description: string;
  /** JSON schema of the arguments */
  parameters: Record<string, unknown>;
}
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}
export interface ChatReply {
  content: string | null;
  toolCalls: ToolCall[];
}

/** What a provider hands back: the value plus what the recorder files. */
export interface ModelResult<T> {
  value: T;
  /** the model that answered (e.g. "gpt-4o-mini", "builtin-extract-v1") */
  model: string;
  /** what was sent, as JSON (messages, input texts …) */
  request: unknown;
  /** what came back, as JSON (raw message, or a digest for embeddings) */
  response: unknown;
  tokensIn: number | null;
  tokensOut: number | null;
}

export type Task = "classify" | "extract" | "summarize" | "embed" | "answer" | "chat" | "resolve" | "observe" | ExternalTask;
/** calls of providers other than the model provider, recorded like model calls (Models.external) */
export type ExternalTask = "geocode" | "web_search";

export interface ModelProvider {
  readonly name: ProviderName;
  classifyComplexity(input: { text: string }, opts: CallOptions, control?: CallControl): Promise<ModelResult<Complexity>>;
  extractGraph(
    /** speaker: who said the text (a chat turn), so that "I" and "my" can be resolved */
    input: { text: string; occurredAt?: string | null; speaker?: string | null },
    opts: CallOptions,
    control?: CallControl,
  ): Promise<ModelResult<ExtractedGraph>>;
  /** `speaker`: who said the text (a chat turn); the summary names them */
  summarize(input: { text: string; speaker?: string | null }, opts: CallOptions, control?: CallControl): Promise<ModelResult<Summary>>;
  /** resolve_edges: which new entities are existing ones, which new facts repeat or contradict current ones */
  resolveEdges(input: ResolveEdgesInput, opts: CallOptions, control?: CallControl): Promise<ModelResult<ResolveEdges>>;
  /** one vector per text, all of `dimensions` length, L2-normalised */
  embed(input: { texts: string[] }, opts: CallOptions, control?: CallControl): Promise<ModelResult<number[][]>>;
  answer(
    /** `memory`: the asker's short-term memory (stm.context's text), to read the question by; not a source to cite */
    input: { question: string; context: ContextItem[]; memory?: string },
    opts: CallOptions,
    control?: CallControl,
  ): Promise<ModelResult<Answer>>;
  chat(
    input: { messages: ChatMessage[]; tools?: ToolDef[] },
    opts: CallOptions,
    control?: CallControl,
  ): Promise<ModelResult<ChatReply>>;
  /** observe_series: observations across a series' window (changes, trends, what started or stopped) */
  observeSeries(input: ObserveSeriesInput, opts: CallOptions, control?: CallControl): Promise<ModelResult<SeriesObservations>>;
  readonly embeddingDimensions: number;
  /**
   * Whether embeddings carry meaning beyond the words (a trained model), so that nearest
   * neighbours find what full text cannot. The builtin hashed embeddings do not: query does not
   * search by them (measured on LoCoMo: they only add noise to full text).
   */
  readonly semanticEmbeddings: boolean;
}

/**
 * A failed model call. Carries what was sent and, when there was one, what came back, so the
 * inference row of a failure is as useful as that of a success. `transient`: an outage rather
 * than a verdict (no connection, a timeout, 408/409/429/5xx, output cut off at its length
 * limit), so the remember queue tries the run again later instead of failing it.
 */
export class ModelError extends Error {
  /** recognised by isModelError, also from the other bundled copy of this class (errors.ts) */
  readonly [ERROR_BRAND] = "model";
  readonly transient: boolean;
  constructor(
    message: string,
    readonly details: { model: string; request: unknown; response?: unknown; cause?: unknown; transient?: boolean },
  ) {
    super(message);
    this.name = "ModelError";
    this.transient = details.transient ?? false;
  }
}

export const isModelError = (e: unknown): e is ModelError => errorKind(e) === "model";

/** What a call may carry besides its options: a signal that aborts it (a run being stopped). */
export interface CallControl {
  signal?: AbortSignal;
}
