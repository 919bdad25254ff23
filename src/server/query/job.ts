import type { Db } from "../db/client";
import type { VectorMemo } from "../db/vector-memo";
import type { Enrichment } from "../enrich";
import { countriesNamed } from "../enrich/geo/geocoder";
import { type PlaceAsked, placeAsked, placeNames } from "../enrich/geo/intent";
import { geocode } from "../enrich/geo/lookup";
import type { Models } from "../models/record";
import { type Output, output, Stop } from "../pipeline";
import { type TermWeights, termWeights } from "./bm25";
import { boostNamedSpeakers, boostPeriod, cut, fuse, type Given, namedPeriod, type Ranked } from "./fusion";
import type { Candidate } from "./lists/candidate";
import { LIST_NAMES, type ListName } from "./lists/registry";
import { retrieveList, retrieveLists, type RetrieveQuery, TEXT_LISTS, VECTOR_LISTS } from "./retrieve";
import { type AskInput, DEFAULT_RADIUS_KM, NO_INFORMATION, type Source } from "./schemas";

/**
 * The state of one query call and one method per stage (the list is in pipeline.ts). A stage's
 * receipt is its Output, which the run log keeps.
 */

export interface QueryRunContext {
  db: Db;
  /** the lists' one statement's (Database.genericDb); `db` when not given */
  listsDb?: Db;
  models: Models;
  datasetId: string;
  runId: string;
  pgvector: boolean;
  /** without pgvector: this process's copy of the vector cells (App.vectorMemo) */
  memo?: VectorMemo | null;
  /** most tokens of source text given to the model */
  tokenBudget: number;
  /** the enrichment providers of this process (detect_geo's geocoder) */
  enrich: Enrichment;
  /**
   * Lists left out of the fusion (their candidates counted in the receipt, none fused): the
   * eval's ablation (`npm run eval:locomo -- --ablate LIST`), never an API input.
   */
  skipLists?: readonly ListName[];
  /** the asker's short-term memory (query.ask's `scope`), for the answer's prompt */
  shortTerm?: { keys: string[]; text: string } | null;
}

export class QueryJob {
  /** the question's BM25 weights (also whether the dataset is empty), read once */
  private weights: TermWeights | null = null;
  /** the question's embedding, when embed_question made one */
  private vector: number[] | null = null;
  /** why there is no embedding, for retrieve_graph's receipt */
  private vectorNote: string | null = null;
  /** retrieve_graph's lists, fused again with nearby_geo's */
  private lists: Record<ListName, Candidate[]> | null = null;
  /**
   * The lists that read no embedding (TEXT_LISTS) and the place the question names, sent by
   * embed_question as it asks for the embedding, so that the database reads them while the model
   * embeds (retrieve_graph takes them, and fails with them)
   */
  private textLists: ReturnType<QueryJob["readLists"]> | null = null;
  private listQuery: RetrieveQuery | null = null;
  private period: RetrieveQuery["period"] | undefined;
  /** the place the question asks about (read in retrieve_graph: detect_geo's switch) */
  private asked: PlaceAsked | null = null;
  /** the place detect_geo found: nearby_geo's centre */
  place: FoundPlace | null = null;
  retrieved: Ranked[] = [];
  given: Given[] = [];
  answer = NO_INFORMATION;
  cited: number[] = [];

  constructor(
    readonly ctx: QueryRunContext,
    readonly input: AskInput,
  ) {}

  private async termWeights(): Promise<TermWeights> {
    this.weights ??= await termWeights(this.ctx.db, this.ctx.datasetId, this.input.question);
    return this.weights;
  }

  /** embed_question runs only for providers whose embeddings mean something beyond the words. */
  semanticEmbeddings(): boolean {
    return this.ctx.models.semanticEmbeddings;
  }

  async embedQuestion() {
    // An empty dataset has nothing to retrieve: no model is asked, even to embed.
    const weights = await this.termWeights();
    if (weights.chunks === 0) return;
    // the lists that need no embedding, read while the model embeds (a real one takes tens of
    // milliseconds, more than they do): retrieve_graph waits for the embedding's lists alone
    this.textLists = this.readLists(this.listQueryFor(weights, null), TEXT_LISTS, true);
    // retrieve_graph takes its failure; until then it must not count as unhandled
    this.textLists.catch(() => {});
    this.vectorNote = "not searched: embedding the question failed (embed_question); text lists only";
    this.vector = (await this.ctx.models.embed({ texts: [this.input.question] }))[0] ?? null;
    this.vectorNote = null;
  }

  async retrieveGraph(): Promise<Output> {
    const weights = await this.termWeights();
    // nothing to retrieve: the fixed answer, unless short-term memory may answer
    if (weights.chunks === 0) return output({ lists: {}, retrieved: [], note: "the dataset is empty" }, this.hasShortTerm() ? undefined : Stop);
    this.listQuery = this.listQueryFor(weights, this.vector);
    const early = this.textLists;
    // with embed_question's text lists, the vector lists alone (nothing to wait for without an embedding)
    const { lists, also } = early
      ? await Promise.all([early, this.listQuery.vector ? this.readLists(this.listQuery, VECTOR_LISTS, false) : null]).then(([text, vector]) => ({
          lists: vector ? joinLists(text.lists, vector.lists) : text.lists,
          also: text.also,
        }))
      : await this.readLists(this.listQuery, LIST_NAMES, true);
    const names = also.names;
    const asked = names ? await placeAsked(this.input.question, also.place) : null;
    this.lists = lists;
    this.asked = asked;
    const skipped = this.rank(lists);
    const kept = {
      lists: Object.fromEntries(LIST_NAMES.map((name) => [name, lists[name].length])),
      ...(skipped.length ? { skipped } : {}),
      ...(this.vector ? {} : { vectors: this.vectorNote ?? "not searched: the embeddings of this provider are not semantic" }),
      ...(asked ? { place: { name: asked.name, near: asked.near, how: asked.how } } : {}),
      retrieved: this.retrieved.map(receipt),
    };
    // nothing known about it: the fixed answer, and no model is asked (unless short-term memory
    // may answer, or a place the question names may have something near it)
    return output(kept, this.given.length === 0 && !this.hasShortTerm() && !asked ? Stop : undefined);
  }

  /** The lists' query for the question: with its embedding, or without (the text lists). */
  private listQueryFor(weights: TermWeights, vector: number[] | null): RetrieveQuery {
    return {
      db: this.ctx.db,
      listsDb: this.ctx.listsDb,
      datasetId: this.ctx.datasetId,
      question: this.input.question,
      vector,
      asOf: this.input.asOf ?? null,
      pgvector: this.ctx.pgvector,
      memo: this.ctx.memo ?? null,
      dimensions: this.ctx.models.embeddingDimensions,
      // relative times ("yesterday") are read against asOf when the question asks about then (once: both statements' the same)
      period: (this.period ??= namedPeriod(this.input.question, this.input.asOf ?? new Date())),
      weights,
    };
  }

  /**
   * The candidates of the lists `names` in one statement; with `place`, whether the question asks
   * about a place (detect_geo's switch), read in the same statement.
   */
  private async readLists(q: RetrieveQuery, names: readonly ListName[], place: boolean) {
    const places = place ? placeNames(this.ctx.datasetId, this.input.question) : null;
    const { lists, also } = await retrieveLists(q, { place: places ?? undefined }, names);
    return { lists, also: { names: places, place: also.place } };
  }

  /** Fuses the lists (less those skipped), boosts, and cuts to the budget; the lists it skipped. */
  private rank(lists: Record<ListName, Candidate[]>): ListName[] {
    const skipped = new Set(this.ctx.skipLists ?? []);
    const fused = fuse(skipped.size === 0 ? lists : (Object.fromEntries(LIST_NAMES.map((name) => [name, skipped.has(name) ? [] : lists[name]])) as typeof lists));
    this.retrieved = boostPeriod(boostNamedSpeakers(fused, this.input.question), this.listQuery!.period);
    this.given = cut(this.retrieved, this.input.limit, this.ctx.tokenBudget);
    return [...skipped];
  }

  /** detect_geo runs when the question names a place or asks what is near one (read in retrieve_graph). */
  namesPlace(): boolean {
    return this.asked !== null;
  }

  /**
   * detect_geo: the place's coordinates: the dataset's own place of that name, else the
   * geocoder's (an inference), with the countries the question names as hints.
   */
  async detectGeo(): Promise<Output> {
    const asked = this.asked!;
    const how = { name: asked.name, near: asked.near, named: asked.how };
    if (asked.entity) {
      const e = asked.entity;
      this.place = { name: e.name, lat: e.lat, lon: e.lon, country: e.country, entityId: e.id, ref: null };
      return output({ ...how, found: "dataset", place: this.place });
    }
    const countries = countriesNamed(this.input.question);
    const r = await geocode(this.ctx.models, this.ctx.enrich.geocoder, { name: asked.name, ...(countries.length ? { countries } : {}) });
    if (!r.place) return output({ ...how, found: null, reason: r.reason, candidates: r.candidates });
    const p = r.place;
    this.place = { name: p.name, lat: p.lat, lon: p.lon, country: p.country || null, entityId: null, ref: p.ref };
    return output({ ...how, found: "geocoder", place: this.place, reason: r.reason, candidates: r.candidates });
  }

  /** nearby_geo runs when detect_geo found the place. */
  placeFound(): boolean {
    return this.place !== null;
  }

  /**
   * nearby_geo: the nearby list (the dataset's entities within radiusKm of the place, and their
   * facts) fused with retrieve_graph's lists, and cut again.
   */
  async nearbyGeo(): Promise<Output> {
    const place = this.place!;
    const radiusKm = this.input.radiusKm ?? DEFAULT_RADIUS_KM;
    const found = await retrieveList("nearby", { ...this.listQuery!, near: { lat: place.lat, lon: place.lon, radiusKm } });
    const skipped = this.rank({ ...this.lists!, nearby: found });
    return output({
      place,
      radiusKm,
      nearby: found.map((c) => ({ key: c.key, kind: c.kind, text: c.text, distanceKm: c.distanceKm, entity: c.nearEntity, textId: c.source.textId })),
      ...(skipped.includes("nearby") ? { skipped: ["nearby"] } : {}),
      retrieved: this.retrieved.map(receipt),
    });
  }

  /** query asks the model only when there is something to answer from. */
  hasContext(): boolean {
    return this.given.length > 0 || this.hasShortTerm();
  }

  private hasShortTerm(): boolean {
    return !!this.ctx.shortTerm?.text.trim();
  }

  async answerQuestion(): Promise<Output> {
    const context = this.given.map((c, i) => ({ n: i + 1, text: c.text }));
    const shortTerm = this.ctx.shortTerm;
    const a = await this.ctx.models.answer({ question: this.input.question, context, ...(shortTerm?.text.trim() ? { memory: shortTerm.text } : {}) });
    this.answer = a.answer;
    this.cited = a.cited.filter((n) => n >= 1 && n <= context.length);
    return output({
      // by key: the rest of each (text, score, ranks) is retrieve_graph's `retrieved` already, and
      // a copy here was a third of the run log's bytes (readQueryReceipts joins them)
      given: this.given.map((c, i) => ({ n: i + 1, key: c.key })),
      // what of short-term memory joined the prompt: its keys and its length (the text is the scope's, not a receipt's)
      ...(shortTerm ? { shortTerm: { keys: shortTerm.keys, chars: shortTerm.text.length } } : {}),
      answer: this.answer,
      cited: this.cited,
    });
  }

  sources(): Source[] {
    return this.given.map((c, i) => ({
      n: i + 1,
      kind: c.kind,
      id: c.id,
      text: c.text,
      score: Number(c.score.toFixed(6)),
      validAt: c.validAt,
      invalidAt: c.invalidAt,
      entityIds: c.entityIds,
      source: c.source,
      ...(c.distanceKm !== undefined ? { distanceKm: c.distanceKm, nearEntity: c.nearEntity } : {}),
    }));
  }
}

/** The place detect_geo found: the dataset's entity, or the geocoder's place (its ref). */
export interface FoundPlace {
  name: string;
  lat: number;
  lon: number;
  country: string | null;
  entityId: string | null;
  ref: string | null;
}

/** Each list's candidates from whichever of two statements read it (each reads its own lists; the other's are empty). */
function joinLists(a: Record<ListName, Candidate[]>, b: Record<ListName, Candidate[]>): Record<ListName, Candidate[]> {
  return Object.fromEntries(LIST_NAMES.map((name) => [name, a[name].length ? a[name] : b[name]])) as Record<ListName, Candidate[]>;
}

/** What a receipt keeps of a candidate: enough to see why it was (or was not) given. */
function receipt(c: Ranked) {
  return {
    key: c.key,
    kind: c.kind,
    text: c.text,
    score: Number(c.score.toFixed(6)),
    ranks: c.ranks,
    textId: c.source.textId,
    ...(c.distanceKm !== undefined ? { distanceKm: c.distanceKm } : {}),
  };
}
