/**
 * The most calls one HTTP batch to /api/trpc may carry: the server answers a larger batch 400
 * (tRPC's maxBatchSize), and our clients' batch links split at this size (maxItems).
 */
export const MAX_BATCH_CALLS = 20;
