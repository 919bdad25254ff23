/*
 * What a query run kept (runs.query.outputs): retrieve_graph's candidates as fused, and query's
 * sources given to the model (by n and key: the rest is the retrieved candidate's) with the
 * answer. Read defensively: outputs are JSON the server wrote, and an older run (or a purged
 * one) may lack parts.
 */

export interface ReceiptSource {
  key: string;
  kind: string;
  text: string;
  score: number;
  /** its rank in each retrieval list it was found in */
  ranks: Record<string, number>;
  textId: string | null;
}

export interface QueryReceipts {
  /** how many candidates each retrieval list found */
  lists: Record<string, number>;
  note: string | null;
  retrieved: ReceiptSource[];
  /** given to the model, numbered as the answer cites them */
  given: (ReceiptSource & { n: number; cited: boolean })[];
  answer: string | null;
}

type Output = { stage: string; output: unknown };

const record = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function source(v: unknown): ReceiptSource {
  const r = record(v);
  const ranks = Object.fromEntries(Object.entries(record(r.ranks)).filter(([, n]) => typeof n === "number")) as Record<string, number>;
  return {
    key: String(r.key ?? ""),
    kind: String(r.kind ?? ""),
    text: String(r.text ?? ""),
    score: typeof r.score === "number" ? r.score : 0,
    ranks,
    textId: typeof r.textId === "string" ? r.textId : null,
  };
}

export function readQueryReceipts(outputs: readonly Output[]): QueryReceipts {
  const retrieve = record(outputs.find((o) => o.stage === "retrieve_graph")?.output);
  const query = record(outputs.find((o) => o.stage === "query")?.output);
  const cited = new Set(list(query.cited).filter((n): n is number => typeof n === "number"));
  const lists = Object.fromEntries(Object.entries(record(retrieve.lists)).filter(([, n]) => typeof n === "number")) as Record<string, number>;
  const retrieved = new Map(list(retrieve.retrieved).map((r) => [String(record(r).key), record(r)]));
  return {
    lists,
    note: typeof retrieve.note === "string" ? retrieve.note : null,
    retrieved: list(retrieve.retrieved).map(source),
    // a given source is kept by key (n, key) and read from what was retrieved; an older run kept it whole
    given: list(query.given).map((g, i) => {
      const n = typeof record(g).n === "number" ? (record(g).n as number) : i + 1;
      return { ...source({ ...retrieved.get(String(record(g).key)), ...record(g) }), n, cited: cited.has(n) };
    }),
    answer: typeof query.answer === "string" ? query.answer : null,
  };
}
