/**
 * Retrieval scores of one question: the share of its evidence among the first k sources, for
 * each k, and the reciprocal rank of the first source that is evidence (0 if none). `retrieved`
 * is the source id of each source in order; a turn that gives two sources takes two places.
 */
export function scoreRanking(retrieved: string[], evidence: string[], ks: number[]): { recall: Record<number, number>; reciprocalRank: number } {
  const want = new Set(evidence);
  const recall: Record<number, number> = {};
  for (const k of ks) {
    const top = new Set(retrieved.slice(0, k));
    recall[k] = want.size === 0 ? 0 : [...want].filter((e) => top.has(e)).length / want.size;
  }
  const first = retrieved.findIndex((id) => want.has(id));
  return { recall, reciprocalRank: first < 0 ? 0 : 1 / (first + 1) };
}
