import type { Step } from "../pipeline";
import { stagesOf } from "../stages";
import type { QueryJob } from "./job";

/** A query stage: its policy is its definition's (src/lib/stages.ts). */
const stage = stagesOf("query");

/** The query pipeline, top to bottom. Its stage names and policies are exactly QueryStages'. */
export const queryPipeline: readonly Step<QueryJob>[] = [
  // the question's embedding for the vector lists. Advisory: when the embedding server fails,
  // retrieval goes on with the text lists alone, and the failed stage flags the run
  stage("embed_question", { enabled: (job) => job.semanticEmbeddings(), run: (job) => job.embedQuestion() }),
  // hybrid candidates, fused and cut to the budget; nothing found = Stop (the fixed answer),
  // unless the question names a place (what is near it may answer)
  stage("retrieve_graph", { run: (job) => job.retrieveGraph() }),
  // geo, when the question names a place or asks what is near one: the place's coordinates,
  // then what the dataset knows within radiusKm of it, fused into the sources
  stage("detect_geo", { enabled: (job) => job.namesPlace(), run: (job) => job.detectGeo() }),
  stage("nearby_geo", { enabled: (job) => job.placeFound(), run: (job) => job.nearbyGeo() }),
  // the answer from what was retrieved, citing sources as [n]; no model without a source
  stage("query", { enabled: (job) => job.hasContext(), run: (job) => job.answerQuestion() }),
];
