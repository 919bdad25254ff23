import { each, type Item, stage, type Step } from "../pipeline";
import type { ChunkWork, RememberJob } from "./job";

type ChunkItem = Item<RememberJob, ChunkWork>;

const notYet = (name: string) => () => {
  throw new Error(`${name} is not available in this version: enrichment providers arrive with #8`);
};

/**
 * load_candidates, resolve_edges, store: what makes new knowledge consistent with the graph.
 * Run for every chunk of a text, one after another, so that a chunk is compared with what the
 * earlier chunks stored (and, with enrichment, for the observations it writes).
 */
export const reconcileSteps: readonly Step<ChunkItem>[] = [
  stage<ChunkItem>({ name: "load_candidates", run: ({ job, item, index }) => job.loadCandidates(item, index) }),
  stage<ChunkItem>({ name: "resolve_edges", run: ({ job, item }) => job.resolveEdges(item) }),
  stage<ChunkItem>({
    name: "store",
    // a text of one chunk links its series in the same transaction
    also: ({ job }) => (job.seriesWithStore() ? ["store_series"] : []),
    run: ({ job, item }) => job.store(item),
  }),
];

/** The remember pipeline, top to bottom. Its stage names are exactly RememberStages. */
export const rememberPipeline: readonly Step<RememberJob>[] = [
  // simple or complex; this run's model defaults and whether to chunk. Advisory: a classifier
  // that fails must not lose the text; without its answer the text is chunked as usual
  // (not asked again when an earlier attempt of the run chunked the text: its plan is followed)
  stage({ name: "classify_complexity", policy: "advisory", enabled: (job) => !job.resumed(), run: (job) => job.classifyComplexity() }),
  stage({ name: "chunk_text", run: (job) => job.chunkText() }),
  // per chunk not stored by an earlier attempt: entities and facts, and a summary (later chunks
  // start early, bounded)
  each((job) => job.pending, [
    stage<ChunkItem>({ name: "extract_graph", run: ({ job, item, index }) => job.extractGraph(item, index) }),
    stage<ChunkItem>({ name: "summarize_chunk", run: ({ job, item, index }) => job.summarizeChunk(item, index) }),
  ]),
  // per chunk, in order: reconcile with the graph and store
  each((job) => job.pending, reconcileSteps),
  // a text of several chunks joins its series once every chunk is stored
  stage({ name: "store_series", enabled: (job) => job.seriesAlone(), run: (job) => job.storeSeries() }),
  // enrichment: advisory, and off unless asked for and configured
  stage({ name: "resolve_geo", policy: "advisory", enabled: (job) => job.enrichment("geo"), run: notYet("resolve_geo") }),
  stage({ name: "web_search", policy: "advisory", enabled: (job) => job.enrichment("webSearch"), run: notYet("web_search") }),
  stage({ name: "fetch_series", policy: "advisory", enabled: (job) => job.enrichment("observeSeries"), run: notYet("fetch_series") }),
  stage({ name: "observe_series", policy: "advisory", enabled: (job) => job.enrichment("observeSeries"), run: notYet("observe_series") }),
];
