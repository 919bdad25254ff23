import type { RetrievalList } from "./candidate";
import { chunksText } from "./chunks-text";
import { chunksVector } from "./chunks-vector";
import { entities } from "./entities";
import { factsText } from "./facts-text";
import { factsVector } from "./facts-vector";
import { nearby } from "./nearby";
import { period } from "./period";
import { seriesAround } from "./series-around";

/**
 * retrieve_graph's lists by name, one line each: the names are the receipts' (runs.query.outputs)
 * and the candidates' `ranks`. Fusion reads them in this order, so keep it when adding a list
 * (at the end): a candidate's score is summed in this order, and its first finder's copy is kept.
 */
export const LISTS = {
  series_around: seriesAround,
  facts_text: factsText,
  chunks_text: chunksText,
  entities,
  facts_vector: factsVector,
  chunks_vector: chunksVector,
  // nothing in retrieve_graph: nearby_geo runs it with the place detect_geo found, and fuses again
  nearby,
  period,
} satisfies Record<string, RetrievalList>;

export type ListName = keyof typeof LISTS;
export const LIST_NAMES = Object.keys(LISTS) as ListName[];
