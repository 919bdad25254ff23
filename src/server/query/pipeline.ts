import type { Step } from "../pipeline";
import { placeholderRun, stagesOf } from "../stages";
import type { QueryJob } from "./job";

/** A query stage: its policy is its definition's (src/lib/stages.ts). */
const stage = stagesOf("query");

/** The query pipeline, top to bottom. Its stage names and policies are exactly QueryStages'. */
export const queryPipeline: readonly Step<QueryJob>[] = [
  // the question's embedding for the vector lists. Advisory: when the embedding server fails,
  // retrieval goes on with the text lists alone, and the failed stage flags the run
  stage("embed_question", { enabled: (job) => job.semanticEmbeddings(), run: (job) => job.embedQuestion() }),
  // hybrid candidates, fused and cut to the budget; nothing found = Stop (the fixed answer)
  stage("retrieve_graph", { run: (job) => job.retrieveGraph() }),
  // geo: placeholders in this version, when the question names a place and a geocoder is configured
  stage("detect_geo", { enabled: (job) => job.namesPlace(), run: placeholderRun("query", "detect_geo") }),
  stage("nearby_geo", { enabled: (job) => job.namesPlace(), run: placeholderRun("query", "nearby_geo") }),
  // the answer from what was retrieved, citing sources as [n]
  stage("query", { run: (job) => job.answerQuestion() }),
];
