import type { Db } from "../db/client";
import type { Models } from "../models/record";
import { type Output, output, Stop } from "../pipeline";
import { type TermWeights, termWeights } from "./bm25";
import { boostNamedSpeakers, boostNamedTime, cut, fuse, type Given, type Ranked } from "./fusion";
import { LIST_NAMES, type ListName } from "./lists/registry";
import { retrieveLists } from "./retrieve";
import { type AskInput, NO_INFORMATION, type Source } from "./schemas";

/**
 * The state of one query call and one method per stage (the list is in pipeline.ts). A stage's
 * receipt is its Output, which the run log keeps.
 */

export interface QueryRunContext {
  db: Db;
  models: Models;
  datasetId: string;
  runId: string;
  pgvector: boolean;
  /** most tokens of source text given to the model */
  tokenBudget: number;
  /** geo providers configured in this process (#8 brings them; none yet) */
  providers: { geo: boolean };
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
    if ((await this.termWeights()).chunks === 0) return;
    this.vectorNote = "not searched: embedding the question failed (embed_question); text lists only";
    this.vector = (await this.ctx.models.embed({ texts: [this.input.question] }))[0] ?? null;
    this.vectorNote = null;
  }

  async retrieveGraph(): Promise<Output> {
    const weights = await this.termWeights();
    // nothing to retrieve: the fixed answer, unless short-term memory may answer
    if (weights.chunks === 0) return output({ lists: {}, retrieved: [], note: "the dataset is empty" }, this.hasShortTerm() ? undefined : Stop);
    const vector = this.vector;
    const lists = await retrieveLists({
      db: this.ctx.db,
      datasetId: this.ctx.datasetId,
      question: this.input.question,
      vector,
      asOf: this.input.asOf ?? null,
      pgvector: this.ctx.pgvector,
      dimensions: this.ctx.models.embeddingDimensions,
      weights,
    });
    const skipped = new Set(this.ctx.skipLists ?? []);
    const fused = fuse(skipped.size === 0 ? lists : (Object.fromEntries(LIST_NAMES.map((name) => [name, skipped.has(name) ? [] : lists[name]])) as typeof lists));
    // relative times ("yesterday") are read against asOf when the question asks about then
    this.retrieved = boostNamedTime(boostNamedSpeakers(fused, this.input.question), this.input.question, this.input.asOf ?? new Date());
    this.given = cut(this.retrieved, this.input.limit, this.ctx.tokenBudget);
    const kept = {
      lists: Object.fromEntries(LIST_NAMES.map((name) => [name, lists[name].length])),
      ...(skipped.size ? { skipped: [...skipped] } : {}),
      ...(vector ? {} : { vectors: this.vectorNote ?? "not searched: the embeddings of this provider are not semantic" }),
      retrieved: this.retrieved.map(receipt),
    };
    // nothing known about it: the fixed answer, and no model is asked (unless short-term memory may answer)
    return output(kept, this.given.length === 0 && !this.hasShortTerm() ? Stop : undefined);
  }

  private hasShortTerm(): boolean {
    return !!this.ctx.shortTerm?.text.trim();
  }

  /** detect_geo runs when the question names a place and a geocoder is configured (#8). */
  namesPlace(): boolean {
    return this.ctx.providers.geo;
  }

  async answerQuestion(): Promise<Output> {
    const context = this.given.map((c, i) => ({ n: i + 1, text: c.text }));
    const shortTerm = this.ctx.shortTerm;
    const a = await this.ctx.models.answer({ question: this.input.question, context, ...(shortTerm?.text.trim() ? { memory: shortTerm.text } : {}) });
    this.answer = a.answer;
    this.cited = a.cited.filter((n) => n >= 1 && n <= context.length);
    return output({
      given: this.given.map((c, i) => ({ n: i + 1, ...receipt(c) })),
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
    }));
  }
}

/** What a receipt keeps of a candidate: enough to see why it was (or was not) given. */
function receipt(c: Ranked) {
  return { key: c.key, kind: c.kind, text: c.text, score: Number(c.score.toFixed(6)), ranks: c.ranks, textId: c.source.textId };
}
