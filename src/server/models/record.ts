import { randomUUID } from "node:crypto";
import type { RunKind } from "../../lib/stages";
import type { Db } from "../db/client";
import { inferences } from "../db/schema";
import { currentInferenceScope } from "../pipeline";
import type {
  Answer,
  CallOptions,
  ChatMessage,
  ChatReply,
  Complexity,
  ContextItem,
  ExternalTask,
  ExtractedGraph,
  ModelProvider,
  ModelResult,
  ObserveSeriesInput,
  ProviderName,
  ResolveEdges,
  ResolveEdgesInput,
  SeriesObservations,
  Summary,
  Task,
  ToolDef,
} from "./types";
import { logError } from "../errors";
import { isModelError } from "./types";

/**
 * What stages call: the provider's tasks, each recorded as a gb_inferences row and filed, through
 * the pipeline's inference scope, under the stage that made it. The stage passes nothing: the
 * scope says which stage is running, and the options for that stage are resolved here.
 */
export interface Models {
  readonly provider: ProviderName;
  readonly embeddingDimensions: number;
  readonly semanticEmbeddings: boolean;
  classifyComplexity(input: { text: string }, opts?: CallOptions): Promise<Complexity>;
  extractGraph(
    input: { text: string; occurredAt?: string | null; speaker?: string | null },
    opts?: CallOptions,
  ): Promise<ExtractedGraph>;
  summarize(input: { text: string; speaker?: string | null }, opts?: CallOptions): Promise<Summary>;
  resolveEdges(input: ResolveEdgesInput, opts?: CallOptions): Promise<ResolveEdges>;
  embed(input: { texts: string[] }, opts?: CallOptions): Promise<number[][]>;
  answer(input: { question: string; context: ContextItem[]; memory?: string }, opts?: CallOptions): Promise<Answer>;
  chat(input: { messages: ChatMessage[]; tools?: ToolDef[] }, opts?: CallOptions): Promise<ChatReply>;
  observeSeries(input: ObserveSeriesInput, opts?: CallOptions): Promise<SeriesObservations>;
  /**
   * A call of another provider (a geocoder lookup, a web search), recorded as an inference like
   * a model call and filed under the stage that made it. `fn`'s failure is recorded and rethrown.
   */
  external<T>(call: ExternalCall, fn: () => Promise<{ value: T; response: unknown }>): Promise<T>;
}

export interface ExternalCall {
  task: ExternalTask;
  /** the provider's name ("gazetteer", "nominatim", "searxng", "brave") */
  provider: string;
  /** what was called: the geocoder's or search engine's name or address */
  model: string;
  request: unknown;
}

type InferenceRow = typeof inferences.$inferInsert;

export interface RecordTarget {
  db: Db;
  datasetId: string;
  runKind: RunKind | null;
  runId: string | null;
  /** CallOptions per stage: defaults, then env, then the request, already merged */
  stageOptions?: Readonly<Record<string, CallOptions>>;
  log?: (message: string, error: unknown) => void;
  /** aborts the calls in flight (the run is being stopped); a call it aborted rejects with its reason */
  signal?: AbortSignal;
  /**
   * Write the records in batches, in the background (one insert for the calls made while the
   * previous insert was in flight), rather than one awaited insert a call: a remember of a long
   * text makes four calls a chunk, and with the builtin models the records were most of their
   * time. `settle()` waits for every record so far.
   */
  batched?: boolean;
  /**
   * Hand each record to this rather than writing it: the run log that writes the run's row, its
   * outputs and its records in one statement as the call ends (createDeferredRunLog, a query).
   */
  sink?: (row: InferenceRow) => void;
}

/** Models whose records may still be on their way (RecordTarget.batched). */
export interface RecordedModels extends Models {
  /** waits until every record of a call made so far is written (or its failure logged) */
  settle(): Promise<void>;
}

/** How long a record may wait for others to share its statement (RecordTarget.batched). */
const BATCH_MS = 100;

/**
 * Writes rows in order, many to a statement: a row waits up to BATCH_MS for the others of that
 * time (a chunk's three or four calls go in one insert, not one each), and those queued while a
 * write is in flight go in the next.
 */
function batchWriter(db: Db, log: (message: string, error: unknown) => void) {
  let queued: InferenceRow[] = [];
  let inFlight: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const drain = async () => {
    while (queued.length > 0) {
      const rows = queued;
      queued = [];
      try {
        await db.insert(inferences).values(rows);
      } catch (e) {
        log(`${rows.length} inference records could not be written`, e);
      }
    }
    inFlight = null;
  };
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    inFlight ??= drain();
  };
  return {
    add(row: InferenceRow) {
      queued.push(row);
      if (!timer && !inFlight) timer = setTimeout(flush, BATCH_MS);
    },
    settle: async () => {
      if (queued.length > 0) flush();
      while (inFlight) await inFlight;
    },
  };
}

export function recordedModels(provider: ModelProvider, target: RecordTarget): RecordedModels {
  const log = target.log ?? logError;
  const batch = target.batched ? batchWriter(target.db, log) : null;

  async function save(row: Omit<typeof inferences.$inferInsert, "id" | "datasetId" | "createdAt">) {
    const scope = currentInferenceScope();
    const id = randomUUID();
    const record: InferenceRow = {
      ...row,
      id,
      datasetId: target.datasetId,
      runKind: target.runKind,
      runId: target.runId,
      stage: scope?.stage ?? null,
      createdAt: new Date(),
    };
    if (target.sink) {
      target.sink(record);
      scope?.addInference(id);
      return;
    }
    if (batch) {
      batch.add(record);
      scope?.addInference(id);
      return;
    }
    try {
      await target.db.insert(inferences).values(record);
    } catch (e) {
      // Losing the record of a call must not lose the call's result.
      log(`inference ${row.task} could not be recorded`, e);
      return;
    }
    scope?.addInference(id);
  }

  const control = target.signal ? { signal: target.signal } : undefined;

  async function call<T>(task: Task, explicit: CallOptions | undefined, fn: (o: CallOptions) => Promise<ModelResult<T>>): Promise<T> {
    // a stopped run makes no new call
    target.signal?.throwIfAborted();
    const stage = currentInferenceScope()?.stage;
    const opts: CallOptions = { ...(stage ? target.stageOptions?.[stage] : undefined), ...explicit };
    const started = performance.now();
    try {
      const r = await fn(opts);
      await save({
        provider: provider.name,
        task,
        model: r.model,
        request: r.request,
        response: r.response,
        tokensIn: r.tokensIn,
        tokensOut: r.tokensOut,
        latencyMs: Math.round(performance.now() - started),
        error: null,
      });
      return r.value;
    } catch (e) {
      const details = isModelError(e) ? e.details : undefined;
      await save({
        provider: provider.name,
        task,
        model: details?.model ?? opts.model ?? "unknown",
        request: details?.request ?? null,
        response: details?.response ?? null,
        tokensIn: null,
        tokensOut: null,
        latencyMs: Math.round(performance.now() - started),
        error: e instanceof Error ? e.message : String(e),
      });
      // aborted by the run's signal: the run's reason (shutdown, lost lease), not the SDK's abort error
      if (target.signal?.aborted) throw target.signal.reason;
      throw e;
    }
  }

  async function external<T>(c: ExternalCall, fn: () => Promise<{ value: T; response: unknown }>): Promise<T> {
    target.signal?.throwIfAborted();
    const started = performance.now();
    const base = { provider: c.provider, task: c.task, model: c.model, request: c.request as object, tokensIn: null, tokensOut: null };
    try {
      const r = await fn();
      await save({ ...base, response: r.response as object, latencyMs: Math.round(performance.now() - started), error: null });
      return r.value;
    } catch (e) {
      await save({ ...base, response: null, latencyMs: Math.round(performance.now() - started), error: e instanceof Error ? e.message : String(e) });
      if (target.signal?.aborted) throw target.signal.reason;
      throw e;
    }
  }

  return {
    settle: async () => batch?.settle(),
    external,
    provider: provider.name,
    embeddingDimensions: provider.embeddingDimensions,
    semanticEmbeddings: provider.semanticEmbeddings,
    classifyComplexity: (input, o) => call("classify", o, (opts) => provider.classifyComplexity(input, opts, control)),
    extractGraph: (input, o) => call("extract", o, (opts) => provider.extractGraph(input, opts, control)),
    summarize: (input, o) => call("summarize", o, (opts) => provider.summarize(input, opts, control)),
    resolveEdges: (input, o) => call("resolve", o, (opts) => provider.resolveEdges(input, opts, control)),
    embed: (input, o) => call("embed", o, (opts) => provider.embed(input, opts, control)),
    answer: (input, o) => call("answer", o, (opts) => provider.answer(input, opts, control)),
    chat: (input, o) => call("chat", o, (opts) => provider.chat(input, opts, control)),
    observeSeries: (input, o) => call("observe", o, (opts) => provider.observeSeries(input, opts, control)),
  };
}
