import { graphHref } from "./admin-links";

/*
 * An answer cites its sources as [n] (also [1, 2] or [1][2]). The playground shows each marker
 * as a link to its source; markers that name no source stay plain text.
 */

export type AnswerPart = { kind: "text"; text: string } | { kind: "cite"; n: number };

const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

export function splitCitations(answer: string, known: Iterable<number>): AnswerPart[] {
  const sources = new Set(known);
  const parts: AnswerPart[] = [];
  const text = (t: string) => {
    if (!t) return;
    const last = parts.at(-1);
    if (last?.kind === "text") last.text += t;
    else parts.push({ kind: "text", text: t });
  };
  let at = 0;
  for (const m of answer.matchAll(MARKER)) {
    text(answer.slice(at, m.index));
    for (const n of m[1]!.split(",").map((s) => Number(s.trim()))) {
      if (sources.has(n)) parts.push({ kind: "cite", n });
      else text(`[${n}]`);
    }
    at = m.index + m[0].length;
  }
  text(answer.slice(at));
  return parts;
}

/** The parts of query.ask's sources a citation link needs. */
export interface CitedSource {
  n: number;
  kind: "fact" | "summary";
  id: string;
  entityIds: readonly string[];
}

/** Where a citation leads: a fact to its subject in the graph explorer, anything else to its place in the sources list. */
export function citationHref(source: CitedSource, dataset: string): string {
  const subject = source.entityIds[0];
  if (source.kind === "fact" && subject) return graphHref(dataset, subject, source.id);
  return `#${sourceAnchor(source.n)}`;
}

export const sourceAnchor = (n: number) => `source-${n}`;
