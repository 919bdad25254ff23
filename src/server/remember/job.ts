import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import pLimit, { type LimitFunction } from "p-limit";
import { z } from "zod";
import type { Db } from "../db/client";
import { chunks as chunksTable, texts } from "../db/schema";
import type { Models } from "../models/record";
import type { Complexity, ExtractedGraph } from "../models/types";
import { type Candidates, type ChunkFactShape, loadCandidates } from "./candidates";
import { chunkEntities } from "./resolve-edges/match-entities";
import { compute } from "../compute";
import { nameKey, uniqueKeys } from "../text/name-key";
import { type Output, output } from "../pipeline";
import { keepOutput, readOutput } from "../runs/outputs";
import { holdsRun, LeaseLostError } from "./manager";
import { NO_PENDING_WRITES, type PendingWrites, pendingWrites } from "./pending";
import { type Plan, resolvePlan } from "./resolve";
import type { RunParams } from "./schemas";
import { type StoreResult, storeChunk, storeSeries } from "./store";

/*
 * The state of one remember call and one method per stage (the list is in pipeline.ts). Stages
 * read what earlier ones left here and leave what later ones need; each returns its Output, which
 * the run log keeps (a chunk's, as the chunk is stored). chunk_text alone writes its own (below).
 *
 * A run may take several attempts (a crash, an outage, a shutdown): each resumes from what the
 * earlier ones left. The text's id is the run's, chunk_text's output is the chunk plan (written,
 * fenced, before any chunk is stored), and a chunk is stored in one transaction; so an attempt
 * reads the plan and the chunks stored, and works on the rest only.
 */

/** chunk_text's output: the plan every attempt of the run follows. */
const ChunkPlan = z.object({
  tokens: z.number(),
  chunks: z.array(z.object({ index: z.number().int(), tokens: z.number().int(), content: z.string() })),
});
type ChunkPlan = z.infer<typeof ChunkPlan>;

export interface RememberRunContext {
  db: Db;
  models: Models;
  datasetId: string;
  runId: string;
  /** the claim's attempt number: only while it holds the run may the job write (the fencing token) */
  attempt: number;
  pgvector: boolean;
  settings: { chunkTokens: number; overlapTokens: number; extractConcurrency: number };
  /** enrichment providers configured in this process (#8 brings them; none yet) */
  providers: { geo: boolean; webSearch: boolean; observeSeries: boolean };
}

export interface ChunkWork {
  index: number;
  id: string;
  content: string;
  tokenCount: number;
  graph: ExtractedGraph | null;
  summary: string | null;
  /** [chunk, …entity names, …fact sentences] embeddings, in that order */
  vectors: number[][] | null;
  candidates: Candidates | null;
  plan: Plan | null;
  stored: StoreResult | null;
}

const newChunk = (index: number, content: string, tokenCount: number): ChunkWork => ({
  index,
  id: randomUUID(),
  content,
  tokenCount,
  graph: null,
  summary: null,
  vectors: null,
  candidates: null,
  plan: null,
  stored: null,
});

/** Starts `task` for this item and the next ones up to the bound, and awaits this item's. */
class Lookahead<T> {
  private readonly started = new Map<number, Promise<T>>();
  private readonly limit: LimitFunction;
  constructor(
    private readonly width: number,
    private readonly task: (index: number) => Promise<T>,
  ) {
    this.limit = pLimit(width);
  }
  /** the next index to start */
  private next = 0;
  /**
   * Item `index`'s result, starting it and the next ones up to the width. Each index is taken
   * once: the result is not kept here afterwards (a text of a thousand chunks held every chunk's
   * graph and embeddings until its end, and the heap's collections held the thread for seconds).
   */
  get(index: number, count: number): Promise<T> {
    this.next = Math.max(this.next, index);
    for (; this.next < Math.min(count, index + this.width); this.next++) {
      const i = this.next;
      const p = this.limit(() => this.task(i));
      // a failure is reported when its own item awaits it, not as an unhandled rejection
      p.catch(() => {});
      this.started.set(i, p);
    }
    const p = this.started.get(index);
    if (!p) throw new Error(`item ${index} was taken already`);
    this.started.delete(index);
    return p;
  }

  /** Item `index`'s result if it has started and is not taken yet, without taking it (or starting anything). */
  peek(index: number): Promise<T> | undefined {
    return this.started.get(index);
  }
}

/** The chunk's facts as load_candidates reads them: each entity by its keys, as resolve_edges merges them. */
function chunkFactShapes(graph: ExtractedGraph): ChunkFactShape[] {
  const entities = chunkEntities(graph);
  const keysOf = (name: string) => {
    const k = nameKey(name);
    return entities.find((e) => e.keys.includes(k))?.keys ?? [k];
  };
  return graph.facts.map((f) => ({
    subjectKeys: keysOf(f.subject),
    predicate: f.predicate,
    objectKeys: f.objectIsEntity ? keysOf(f.object) : [],
    value: f.objectIsEntity ? null : f.object,
  }));
}

/** the most candidate facts load_candidates keeps for the run page (see keptCandidates) */
export const KEPT_CANDIDATE_FACTS = 100;

/**
 * What load_candidates keeps of its candidates for the run page: every entity, and the first
 * KEPT_CANDIDATE_FACTS facts with the count of all. On a long text about a recurring cast a chunk
 * has hundreds of candidate facts (20 per subject and predicate), and keeping them whole made this
 * output larger than everything the chunk stores, and its write the longest statement of a chunk.
 */
export function keptCandidates(c: Candidates) {
  return {
    entities: c.entities.map((e) => ({ id: e.id, name: e.name, type: e.type, via: e.via, forKey: e.forKey, score: e.score })),
    factsTotal: c.facts.length,
    facts: c.facts.slice(0, KEPT_CANDIDATE_FACTS).map((f) => ({
      id: f.id,
      subject: f.subjectName,
      predicate: f.predicate,
      object: f.objectName ?? f.objectValue,
      validAt: f.validAt,
    })),
  };
}

export class RememberJob {
  /** the run's id, or the id an earlier attempt's text has (runs from before ids were the run's) */
  textId: string;
  complexity: Complexity | null = null;
  /** every chunk of the text */
  chunks: ChunkWork[] = [];
  /** the chunks this attempt works on: those no earlier attempt stored */
  pending: ChunkWork[] = [];
  /** this attempt has stored a chunk, and with it the text */
  private textStored = false;
  /** what earlier attempts left (resume()) */
  private earlier: { plan: ChunkPlan | null; stored: Map<number, string> } = { plan: null, stored: new Map() };
  private readonly extractions: Lookahead<ExtractedGraph>;
  private readonly summaries: Lookahead<string>;
  private readonly embeddings: Lookahead<number[][]>;
  /** candidates loaded while the chunk before was stored, by place in `pending` (loadAhead) */
  private readonly ahead = new Map<number, Promise<Candidates>>();

  constructor(
    readonly ctx: RememberRunContext,
    readonly params: RunParams,
  ) {
    const { models, settings } = ctx;
    this.textId = ctx.runId;
    const speaker = params.source?.speaker ?? null;
    // Extraction, summaries and embeddings of later chunks start while earlier ones are
    // awaited (bounded by GB_EXTRACT_CONCURRENCY): they do not depend on what earlier chunks
    // stored. Each promise is started inside its own stage, so its inferences are filed there.
    // Indexed by place in `pending`, the items of the pipeline's Each.
    this.extractions = new Lookahead(settings.extractConcurrency, (i) =>
      models.extractGraph({ text: this.pending[i]!.content, occurredAt: params.occurredAt, speaker }),
    );
    this.summaries = new Lookahead(
      settings.extractConcurrency,
      async (i) => (await models.summarize({ text: this.pending[i]!.content, speaker })).summary,
    );
    // Embeddings only where they mean something beyond the words: nothing reads a non-semantic
    // provider's (builtin's hashed ones), and on PGlite each stored vector cost an HNSW insert,
    // the largest share of a chunk's store.
    this.embeddings = new Lookahead(settings.extractConcurrency, async (i) =>
      models.semanticEmbeddings ? models.embed({ texts: this.embeddingTexts(this.pending[i]!) }) : [],
    );
  }

  private get fence() {
    return { id: this.ctx.runId, datasetId: this.ctx.datasetId, attempt: this.ctx.attempt };
  }

  /** Reads what earlier attempts of this run left: the chunk plan and the chunks stored. */
  async resume(): Promise<void> {
    const { db, datasetId, runId } = this.ctx;
    const [text] = await db
      .select({ id: texts.id })
      .from(texts)
      .where(and(eq(texts.datasetId, datasetId), eq(texts.runId, runId)))
      .limit(1);
    this.textId = text?.id ?? runId;
    const plan = ChunkPlan.safeParse(await readOutput(db, "remember", this.ctx, "chunk_text", 0));
    const stored = await db
      .select({ index: chunksTable.index, id: chunksTable.id })
      .from(chunksTable)
      .where(and(eq(chunksTable.datasetId, datasetId), eq(chunksTable.textId, this.textId)));
    this.earlier = { plan: plan.success ? plan.data : null, stored: new Map(stored.map((c) => [c.index, c.id])) };
  }

  /** An earlier attempt chunked the text: this one follows its plan (classify_complexity is not asked again). */
  resumed(): boolean {
    return this.earlier.plan !== null;
  }

  get occurredAt(): Date | null {
    return this.params.occurredAt ? new Date(this.params.occurredAt) : null;
  }

  async classifyComplexity(): Promise<Output> {
    this.complexity = await this.ctx.models.classifyComplexity({ text: this.params.text });
    return output(this.complexity);
  }

  /** Keeps its output itself, unlike every other stage: see keepPlan. */
  async chunkText(): Promise<void> {
    const startedAt = new Date();
    const { plan, stored } = this.earlier;
    if (plan) {
      this.chunks = plan.chunks.map((c) => newChunk(c.index, c.content, c.tokens));
      for (const c of this.chunks) c.id = stored.get(c.index) ?? c.id;
      this.pending = this.chunks.filter((c) => !stored.has(c.index));
      const resumed = { attempt: this.ctx.attempt, storedBefore: [...stored.keys()].sort((a, b) => a - b) };
      await this.keepPlan({ ...plan, resumed }, startedAt);
      return;
    }
    const { chunkTokens, overlapTokens } = this.ctx.settings;
    const text = this.params.text.trim();
    // on the compute thread: a text of a megabyte takes a second to chunk, which requests must not wait for
    const planned = await compute("chunk", { text, maxTokens: chunkTokens, overlapTokens });
    const tokens = planned.tokens;
    // The classifier may keep a text whole; never past twice the chunk size, so that a model
    // is not handed more than it can take.
    const whole = this.complexity?.chunk === false && tokens <= chunkTokens * 2;
    const pieces = whole ? [{ content: text, tokenCount: tokens }] : planned.chunks;
    this.chunks = pieces.map((p, index) => newChunk(index, p.content, p.tokenCount));
    // chunks stored by an attempt that died before its plan was kept (runs of an older version)
    for (const c of this.chunks) c.id = stored.get(c.index) ?? c.id;
    this.pending = this.chunks.filter((c) => !stored.has(c.index));
    await this.keepPlan({ tokens, chunks: this.chunks.map((c) => ({ index: c.index, tokens: c.tokenCount, content: c.content })) }, startedAt);
  }

  /**
   * chunk_text's output is not an Output through the run log like the others': it is the plan
   * later attempts follow, durable queue state. So the stage writes it itself, before any chunk
   * is stored, and only while this attempt holds the run (a process that lost the run cannot
   * replace the plan that the chunks stored follow); and if it cannot be written, the stage
   * fails, and with it the attempt (no chunk may be stored without the plan it belongs to).
   */
  private async keepPlan(plan: ChunkPlan & { resumed?: unknown }, startedAt: Date): Promise<void> {
    await this.ctx.db.transaction(async (tx) => {
      if (!(await holdsRun(tx as unknown as Db, this.fence))) throw this.lost();
      await keepOutput(tx as unknown as Db, "remember", this.ctx, "chunk_text", 0, plan, { startedAt, finishedAt: new Date() });
    });
  }

  private lost(): LeaseLostError {
    return new LeaseLostError(`remember run ${this.ctx.runId}: attempt ${this.ctx.attempt} no longer holds the run; nothing more is written`);
  }

  async extractGraph(chunk: ChunkWork, position: number): Promise<Output> {
    chunk.graph = await this.extractions.get(position, this.pending.length);
    return output(chunk.graph);
  }

  async summarizeChunk(chunk: ChunkWork, position: number): Promise<Output> {
    chunk.summary = await this.summaries.get(position, this.pending.length);
    return output({ summary: chunk.summary });
  }

  private embeddingTexts(chunk: ChunkWork): string[] {
    const g = chunk.graph ?? { entities: [], facts: [] };
    return [chunk.content, ...g.entities.map((e) => e.name), ...g.facts.map((f) => f.sentence)];
  }

  async loadCandidates(chunk: ChunkWork, position: number): Promise<Output> {
    const graph = chunk.graph ?? { entities: [], facts: [] };
    chunk.vectors = await this.embeddings.get(position, this.pending.length);
    const ahead = this.ahead.get(position);
    this.ahead.delete(position);
    chunk.candidates = await (ahead ?? this.candidatesOf(graph, chunk.vectors, NO_PENDING_WRITES));
    return output(keptCandidates(chunk.candidates));
  }

  private candidatesOf(graph: ExtractedGraph, vectors: number[][], pending: PendingWrites): Promise<Candidates> {
    return loadCandidates(this.ctx.db, {
      datasetId: this.ctx.datasetId,
      keys: uniqueKeys(graph.entities.flatMap((e) => [e.name, ...e.aliases])),
      entityKeys: graph.entities.map((e) => ({ keys: [nameKey(e.name), ...uniqueKeys(e.aliases)], type: e.type })),
      // embedding neighbours only where embeddings mean something beyond the words (not builtin's: none are made)
      vectors: vectors.length > 0 ? graph.entities.map((e, i) => ({ key: nameKey(e.name), vector: vectors[1 + i]! })) : [],
      // the facts resolve_edges may compare the chunk's with: same subject and predicate, or same subject and object
      chunkFacts: chunkFactShapes(graph),
      pgvector: this.ctx.pgvector,
      dimensions: this.ctx.models.embeddingDimensions,
      pending,
    });
  }

  /**
   * Starts loading the candidates of the chunk at `position` while the one before it is stored,
   * reading the dataset through what that store writes (pending.ts): the database works on both
   * at once (two connections on Postgres; on PGlite one statement after the other, with no wait
   * for this thread in between), and this thread resolves while it does. Not where embeddings
   * are semantic: a pending entity's embedding is not compared (and the model calls of that
   * chunk's load would be filed under store). Only once its extraction has started.
   */
  private loadAhead(position: number, pending: PendingWrites): void {
    if (this.ctx.models.semanticEmbeddings || position >= this.pending.length) return;
    const graph = this.extractions.peek(position);
    if (!graph) return;
    const load = graph.then((g) => this.candidatesOf(g, [], pending));
    // a failure is the chunk's load_candidates' to report, when it awaits this
    load.catch(() => {});
    this.ahead.set(position, load);
  }

  async resolveEdges(chunk: ChunkWork): Promise<Output> {
    chunk.plan = await resolvePlan(
      {
        graph: chunk.graph ?? { entities: [], facts: [] },
        candidates: chunk.candidates ?? { entities: [], facts: [] },
        occurredAt: this.occurredAt,
        now: new Date(),
      },
      (input) => this.ctx.models.resolveEdges(input),
    );
    // the question itself is the stage's model call's request (its inference): kept once, not twice
    const { asked, ...plan } = chunk.plan;
    return output({ ...plan, asked: asked ? { entities: asked.entities.length, facts: asked.facts.length } : null });
  }

  /** store links the series itself when the text is one chunk (store's `also`). */
  seriesWithStore(): boolean {
    return this.params.series !== undefined && this.chunks.length === 1;
  }

  seriesAlone(): boolean {
    return this.params.series !== undefined && this.chunks.length > 1;
  }

  async store(chunk: ChunkWork, position: number): Promise<Output> {
    const graph = chunk.graph ?? { entities: [], facts: [] };
    const plan = chunk.plan!;
    this.loadAhead(position + 1, pendingWrites(plan, chunk.candidates ?? { entities: [], facts: [] }, new Date()));
    const vectors = new Map<string, number[]>();
    const v = chunk.vectors ?? [];
    graph.entities.forEach((e, i) => {
      const planned = plan.entities.find((p) => p.keys.includes(nameKey(e.name)));
      if (planned?.isNew && v[1 + i]) vectors.set(planned.id, v[1 + i]!);
    });
    const sentenceVector = new Map(graph.facts.map((f, i) => [f.sentence, v[1 + graph.entities.length + i]]));
    for (const f of plan.facts) {
      const vec = sentenceVector.get(f.sentence);
      if (vec) vectors.set(f.id, vec);
    }
    chunk.stored = await storeChunk(this.ctx.db, {
      datasetId: this.ctx.datasetId,
      runId: this.ctx.runId,
      attempt: this.ctx.attempt,
      text: {
        id: this.textId,
        // sent with the first chunk this attempt stores (a megabyte need not travel a thousand times)
        content: this.textStored ? null : this.params.text,
        userId: this.params.userId ?? null,
        source: this.params.source ?? {},
        seriesKey: this.params.series ?? null,
        occurredAt: this.occurredAt,
      },
      chunk: {
        id: chunk.id,
        index: chunk.index,
        content: chunk.content,
        summary: chunk.summary ?? "",
        tokenCount: chunk.tokenCount,
        embedding: v[0] ?? null,
      },
      plan,
      vectors,
      linkSeries: this.seriesWithStore(),
    });
    this.textStored = true;
    // stored: what the chunk's stages made need not stay in memory (the run log holds their
    // outputs until it writes them with this one, as the stage ends)
    chunk.graph = null;
    chunk.vectors = null;
    chunk.candidates = null;
    chunk.plan = null;
    return output(chunk.stored);
  }

  async storeSeries(): Promise<Output> {
    const position = await storeSeries(this.ctx.db, this.fence, this.textId, this.params.series!);
    return output({ series: this.params.series, position });
  }

  /** An enrichment stage runs when the call asks for it and its provider is configured. */
  enrichment(kind: "geo" | "webSearch" | "observeSeries"): boolean {
    const asked = this.params.options?.enrich?.[kind] === true;
    const series = kind !== "observeSeries" || this.params.series !== undefined;
    return asked && series && this.ctx.providers[kind];
  }
}
