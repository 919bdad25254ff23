import { each, type Item, type Step } from "../pipeline";
import { placeholderRun, stagesOf } from "../stages";
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
    // a text of one chunk links its series in the same transaction
    also: ({ job }) => (job.seriesWithStore() ? ["store_series"] : []),
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
  // enrichment: placeholders in this version (options.enrich is refused), off unless asked for and configured
  stage("resolve_geo", { enabled: (job) => job.enrichment("geo"), run: placeholderRun("remember", "resolve_geo") }),
  stage("web_search", { enabled: (job) => job.enrichment("webSearch"), run: placeholderRun("remember", "web_search") }),
  stage("fetch_series", { enabled: (job) => job.enrichment("observeSeries"), run: placeholderRun("remember", "fetch_series") }),
  stage("observe_series", { enabled: (job) => job.enrichment("observeSeries"), run: placeholderRun("remember", "observe_series") }),
];
