import { each, type Item, type Step } from "../pipeline";
import { stagesOf } from "../stages";
import type { ChunkWork, RememberJob } from "./job";

type ChunkItem = Item<RememberJob, ChunkWork>;

/** A remember stage: its policy is its definition's (src/lib/stages.ts). */
const stage = stagesOf("remember");

/** A chunk's outputs are kept under its own index: a resumed attempt's items are the chunks left. */
const chunkIndex = (chunk: ChunkWork) => chunk.index;

/**
 * load_candidates, resolve_edges, store: what makes new knowledge consistent with the graph.
 * Run for every chunk of a text, one after another, so that a chunk is compared with what the
 * earlier chunks stored (and, with enrichment, for the observations it writes).
 */
export const reconcileSteps: readonly Step<ChunkItem>[] = [
  stage<ChunkItem>("load_candidates", { run: ({ job, item, index }) => job.loadCandidates(item, index) }),
  stage<ChunkItem>("resolve_edges", { run: ({ job, item }) => job.resolveEdges(item) }),
  stage<ChunkItem>("store", {
    // a text of one chunk links its series in the same transaction (an observation is in none)
    also: ({ job, item }) => (job.seriesWithStore() && !item.observation ? ["store_series"] : []),
    run: ({ job, item, index }) => job.store(item, index),
  }),
];

/** The remember pipeline, top to bottom. Its stage names and policies are exactly RememberStages'. */
export const rememberPipeline: readonly Step<RememberJob>[] = [
  // simple or complex; this run's model defaults and whether to chunk. Advisory: a classifier
  // that fails must not lose the text; without its answer the text is chunked as usual
  // (not asked again when an earlier attempt of the run chunked the text: its plan is followed)
  stage("classify_complexity", { enabled: (job) => !job.resumed(), run: (job) => job.classifyComplexity() }),
  stage("chunk_text", { run: (job) => job.chunkText() }),
  // per chunk not stored by an earlier attempt, in order: entities and facts, and a summary, then
  // reconcile with the graph and store. The extraction and summary of the next chunks (up to
  // GB_EXTRACT_CONCURRENCY) start while this one is reconciled: the models work while the
  // database does, and no chunk waits for every other to be read.
  each(
    (job) => job.pending,
    [
      stage<ChunkItem>("extract_graph", { run: ({ job, item, index }) => job.extractGraph(item, index) }),
      stage<ChunkItem>("summarize_chunk", { run: ({ job, item, index }) => job.summarizeChunk(item, index) }),
      ...reconcileSteps,
    ],
    chunkIndex,
  ),
  // a text of several chunks joins its series once every chunk is stored
  stage("store_series", { enabled: (job) => job.seriesAlone(), run: (job) => job.storeSeries() }),
  // enrichment, advisory: a failure is noted on the stage and the run succeeds, flagged.
  // places: the text's place entities get coordinates (on unless options.enrich.geo is false)
  stage("resolve_geo", { enabled: (job) => job.enrichment("geo") && job.foundPlaces(), run: (job) => job.resolveGeo() }),
  // the web about the text's main entities: observations, each run through reconcileSteps (asked for, with a provider)
  stage("web_search", { enabled: (job) => job.enrichment("webSearch"), run: (job) => job.webSearch() }),
  // a text in a series: the window of its latest members, and observations across it, each run through reconcileSteps
  stage("fetch_series", { enabled: (job) => job.enrichment("observeSeries"), run: (job) => job.fetchSeries() }),
  stage("observe_series", { enabled: (job) => job.enrichment("observeSeries") && job.seriesToObserve(), run: (job) => job.observeSeries() }),
];
