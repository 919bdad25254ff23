import type { Answer, ContextItem } from "../types";
import { contentWords, stem } from "../../text/words";

export const NO_INFORMATION_ANSWER = "I don't have any information about that.";
const MAX_CITED = 3;

const stems = (text: string): Set<string> => new Set(contentWords(text).map(stem));

/**
 * Extractive answer: the context items sharing the most content words with the question (up to
 * three, in their ranked order), each followed by its citation marker. When nothing overlaps the
 * top-ranked item is used: the retriever put it first for a reason.
 */
export function answerFromContext(question: string, context: ContextItem[]): Answer {
  if (context.length === 0) return { answer: NO_INFORMATION_ANSWER, cited: [] };
  const q = stems(question);
  const scored = context.map((item, rank) => {
    let overlap = 0;
    for (const w of stems(item.text)) if (q.has(w)) overlap += 1;
    return { item, rank, overlap };
  });
  const best = Math.max(...scored.map((s) => s.overlap));
  const picked = best === 0 ? scored.slice(0, 1) : scored.filter((s) => s.overlap === best).slice(0, MAX_CITED);
  return {
    answer: picked.map((s) => `${s.item.text.trim()} [${s.item.n}]`).join(" "),
    cited: picked.map((s) => s.item.n),
  };
}
