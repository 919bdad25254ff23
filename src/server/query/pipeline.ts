import { stage, type Step } from "../pipeline";
import type { QueryJob } from "./job";

const notYet = (name: string) => () => {
  throw new Error(`${name} is not available in this version: geo providers arrive with #8`);
};

/** The query pipeline, top to bottom. Its stage names are exactly QueryStages. */
export const queryPipeline: readonly Step<QueryJob>[] = [
  // the question's embedding for the vector lists. Advisory: when the embedding server fails,
  // retrieval goes on with the text lists alone, and the failed stage flags the run
  stage({ name: "embed_question", policy: "advisory", enabled: (job) => job.semanticEmbeddings(), run: (job) => job.embedQuestion() }),
  // hybrid candidates, fused and cut to the budget; nothing found = Stop (the fixed answer)
  stage({ name: "retrieve_graph", run: (job) => job.retrieveGraph() }),
  // geo: advisory, when the question names a place and a geocoder is configured
  stage({ name: "detect_geo", policy: "advisory", enabled: (job) => job.namesPlace(), run: notYet("detect_geo") }),
  stage({ name: "nearby_geo", policy: "advisory", enabled: (job) => job.namesPlace(), run: notYet("nearby_geo") }),
  // the answer from what was retrieved, citing sources as [n]
  stage({ name: "query", run: (job) => job.answerQuestion() }),
];
