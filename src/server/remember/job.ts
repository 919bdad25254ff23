import { createHash, randomUUID } from "node:crypto";
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import pLimit, { type LimitFunction } from "p-limit";
import { z } from "zod";
import type { Db } from "../db/client";
import { chunks as chunksTable, type DerivedFrom, entities as entitiesTable, mentions, texts, type TextSource } from "../db/schema";
import { mayHavePlaces, resolveGeo } from "../enrich/geo/resolve";
import { searchWeb } from "../enrich/search/web-search";
import { observeWindow } from "../enrich/series/observe";
import { fetchSeriesWindow, type SeriesWindow, windowOutput } from "../enrich/series/window";
import type { Enrichment } from "../enrich";
import type { Models } from "../models/record";
import type { Complexity, ExtractedGraph } from "../models/types";
import { type Candidates, type ChunkFactShape, loadCandidates } from "./candidates";
import { chunkEntities } from "./resolve-edges/match-entities";
import { compute } from "../compute";
import { nameKey, uniqueKeys } from "../text/name-key";
import { each, type Observer, type Output, output, run } from "../pipeline";
import { countTokens } from "./chunk";
import { reconcileSteps } from "./pipeline";
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
  /** the enrichment providers of this process (geocoder, web search) and the series window */
  enrich: Enrichment;
  /**
   * The run's log, for the observations of web_search and observe_series: they run through
   * reconcile (load_candidates, resolve_edges, store) as items of their own, in this run.
   */
  observer?: Observer;
  /** stops the run (shutdown, lost lease) */
  signal?: AbortSignal;
  log?: (message: string, error: unknown) => void;
}

/** A text the run writes itself (web_search, observe_series), remembered like any text. */
export interface Observation {
  content: string;
  derivedFrom: Omit<DerivedFrom, "textId">;
  /** its source (web_search: the result's URL) */
  source?: TextSource;
}

/** What became of an observation: stored (with what its store made), or stored by an earlier attempt. */
export interface ObservationStored {
  textId: string;
  content: string;
  status: "stored" | "stored_before";
  entitiesCreated: number;
  factsCreated: number;
  duplicates: number;
}

/** the longest observation kept: one chunk, whatever the chunk size */
export const MAX_OBSERVATION_CHARS = 2000;

/**
 * An observation's text id: the same for the same run, stage and words, so that an attempt that
 * resumes a run does not store an observation twice.
 */
function observationId(runId: string, stage: string, content: string): string {
  const h = createHash("sha256").update(`${runId}\n${stage}\n${content}`).digest("hex");
  // a version-4-shaped UUID made of the hash
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
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
  /** set for an observation's chunk: the observation is its own text (one chunk) */
  observation?: { textId: string; source: TextSource; derivedFrom: DerivedFrom };
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
  /** extraction found a place in this attempt (resolve_geo's switch) */
  private placesFound = false;
  /** observations this attempt has run through reconcile: their run-log items follow the chunks' */
  private observed = 0;
  /** fetch_series' window, for observe_series */
  private window: SeriesWindow | null = null;

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
    // A chunk's embeddings are of its entities and facts too: a chunk ahead is embedded once its
    // extraction (started before, by the same lookahead width) has its graph; embedding it
    // before left its entities without vectors and failed load_candidates on texts of several
    // chunks.
    this.embeddings = new Lookahead(settings.extractConcurrency, async (i) => {
      if (!models.semanticEmbeddings) return [];
      const chunk = this.pending[i]!;
      const graph = chunk.graph ?? (await this.extractions.peek(i)) ?? null;
      return models.embed({ texts: this.embeddingTexts(chunk, graph) });
    });
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
      .where(and(eq(texts.datasetId, datasetId), eq(texts.runId, runId), eq(texts.kind, "text")))
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
    if (mayHavePlaces(chunk.graph)) this.placesFound = true;
    return output(chunk.graph);
  }

  async summarizeChunk(chunk: ChunkWork, position: number): Promise<Output> {
    chunk.summary = await this.summaries.get(position, this.pending.length);
    return output({ summary: chunk.summary });
  }

  private embeddingTexts(chunk: ChunkWork, graph: ExtractedGraph | null = chunk.graph): string[] {
    const g = graph ?? { entities: [], facts: [] };
    return [chunk.content, ...g.entities.map((e) => e.name), ...g.facts.map((f) => f.sentence)];
  }

  async loadCandidates(chunk: ChunkWork, position: number): Promise<Output> {
    const graph = chunk.graph ?? { entities: [], facts: [] };
    if (chunk.observation) {
      // an observation's item: none of the text's lookahead applies
      const { models } = this.ctx;
      chunk.vectors = models.semanticEmbeddings ? await models.embed({ texts: this.embeddingTexts(chunk) }) : [];
      chunk.candidates = await this.candidatesOf(graph, chunk.vectors, NO_PENDING_WRITES);
      return output(keptCandidates(chunk.candidates));
    }
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
    const obs = chunk.observation;
    if (!obs) this.loadAhead(position + 1, pendingWrites(plan, chunk.candidates ?? { entities: [], facts: [] }, new Date()));
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
      text: obs
        ? // an observation: its own text of one chunk, the person's like the text it came from
          { id: obs.textId, content: chunk.content, userId: this.params.userId ?? null, source: obs.source, seriesKey: null, occurredAt: this.occurredAt, derivedFrom: obs.derivedFrom }
        : {
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
      linkSeries: !obs && this.seriesWithStore(),
    });
    if (!obs) this.textStored = true;
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

  /**
   * Whether the call wants an enrichment: geo and observeSeries are on unless
   * `options.enrich.<kind>` is false (observeSeries only for a text in a series); webSearch is off
   * unless it is true and a search provider is configured.
   */
  enrichment(kind: "geo" | "webSearch" | "observeSeries"): boolean {
    const asked = this.params.options?.enrich?.[kind];
    switch (kind) {
      case "geo":
        return asked !== false;
      case "observeSeries":
        return asked !== false && this.params.series !== undefined;
      case "webSearch":
        return asked === true && this.ctx.enrich.search !== null;
    }
  }

  /** resolve_geo's switch: extraction found a place (or an earlier attempt extracted, and the stage looks itself). */
  foundPlaces(): boolean {
    return this.placesFound || this.pending.length < this.chunks.length;
  }

  async resolveGeo(): Promise<Output> {
    const { db, models, datasetId, runId, enrich } = this.ctx;
    return output(await resolveGeo({ db, models, geocoder: enrich.geocoder, datasetId, runId, textId: this.textId, text: this.params.text }));
  }

  /** The text's entities, most mentioned first (web_search's queries). */
  private async mainEntities(limit: number): Promise<string[]> {
    const { db, datasetId } = this.ctx;
    const rows = await db
      .select({ name: entitiesTable.name, n: sql<number>`count(*)::int` })
      .from(mentions)
      .innerJoin(entitiesTable, and(eq(entitiesTable.datasetId, mentions.datasetId), eq(entitiesTable.id, mentions.targetId)))
      .where(and(eq(mentions.datasetId, datasetId), eq(mentions.textId, this.textId), eq(mentions.targetKind, "entity")))
      .groupBy(entitiesTable.name)
      .orderBy(desc(sql`count(*)`), entitiesTable.name)
      .limit(limit);
    return rows.map((r) => r.name);
  }

  async webSearch(): Promise<Output> {
    const { models, enrich, signal } = this.ctx;
    const entities = await this.mainEntities(10);
    const found = await searchWeb({ models, search: enrich.search!, text: this.params.text, entities, signal });
    const stored = await this.rememberObservations(
      found.observations.map((o) => ({ content: o.content, source: { kind: "web", url: o.url }, derivedFrom: { stage: "web_search", url: o.url, query: o.query } })),
    );
    return output({ search: found.output, observations: stored });
  }

  async fetchSeries(): Promise<Output> {
    const { db, datasetId, enrich } = this.ctx;
    this.window = await fetchSeriesWindow({ db, datasetId, seriesKey: this.params.series!, textId: this.textId, size: enrich.seriesWindow });
    return output(windowOutput(this.window));
  }

  /** observe_series runs on a window of two members or more (fetch_series loaded it). */
  seriesToObserve(): boolean {
    return this.window !== null && this.window.members.length >= 2;
  }

  async observeSeries(): Promise<Output> {
    const found = await observeWindow(this.ctx.models, this.window!);
    const stored = await this.rememberObservations(
      found.observations.map((o) => ({ content: o.content, derivedFrom: { stage: "observe_series", textIds: o.textIds } })),
    );
    return output({ observed: found.output, observations: stored });
  }

  /**
   * Remembers observations the run wrote (web_search, observe_series): each becomes a text of its
   * own (kind observation, with where it came from), of one chunk, extracted by the calling stage
   * and then run through reconcile (load_candidates, resolve_edges, store) like the text's own
   * chunks, as items of this run's log after them. An observation an earlier attempt of the run
   * stored is not stored again.
   */
  async rememberObservations(list: readonly Observation[]): Promise<ObservationStored[]> {
    const { db, datasetId, runId, models } = this.ctx;
    const planned = new Map<string, Observation & { content: string }>();
    for (const o of list) {
      const content = o.content.trim().slice(0, MAX_OBSERVATION_CHARS);
      if (content.length === 0) continue;
      planned.set(observationId(runId, o.derivedFrom.stage, content), { ...o, content });
    }
    if (planned.size === 0) return [];
    const before = await db
      .select({ id: texts.id })
      .from(texts)
      .where(and(eq(texts.datasetId, datasetId), inArray(texts.id, [...planned.keys()])));
    const storedBefore = new Set(before.map((r) => r.id));
    const items: ChunkWork[] = [];
    for (const [textId, o] of planned) {
      if (storedBefore.has(textId)) continue;
      const chunk = newChunk(this.chunks.length + this.observed++, o.content, countTokens(o.content));
      chunk.observation = { textId, source: o.source ?? { kind: "observation" }, derivedFrom: { ...o.derivedFrom, textId: this.textId } };
      // extracted by the calling stage (its inference); the observation is its own summary
      chunk.graph = await models.extractGraph({ text: o.content, occurredAt: this.params.occurredAt, speaker: null });
      chunk.summary = o.content;
      items.push(chunk);
    }
    const results = new Map<string, StoreResult>();
    if (items.length > 0) {
      await run([each(() => items, reconcileSteps, (c) => c.index)], this, this.ctx.observer ?? null, { signal: this.ctx.signal, log: this.ctx.log });
      for (const c of items) if (c.stored) results.set(c.observation!.textId, c.stored);
    }
    return [...planned].map(([textId, o]) => {
      const r = results.get(textId);
      return {
        textId,
        content: o.content,
        status: r ? "stored" : "stored_before",
        entitiesCreated: r?.entitiesCreated ?? 0,
        factsCreated: r?.factsCreated ?? 0,
        duplicates: r?.duplicates ?? 0,
      };
    });
  }
}
