/*
 * What the command line prints for people (--json prints the server's JSON instead). The wire
 * types are the REST answers as JSON: times are ISO strings.
 */

export interface StageWire {
  name: string;
  status: string;
  error: string | null;
  durationMs: number | null;
  policy: string;
}

export interface RunDetailWire {
  kind: string;
  id: string;
  dataset: string;
  status: string;
  error: string | null;
  flagged: boolean;
  createdAt: string;
  durationMs: number | null;
  stages: StageWire[];
  progress: { stagesDone: number; stagesTotal: number; chunksDone: number; chunksTotal: number | null; queuePosition: number | null } | null;
}

export interface RunListWire {
  items: { id: string; status: string; flagged: boolean; createdAt: string; durationMs: number | null; userId: string | null; error: string | null }[];
  nextCursor: string | null;
  counts?: Record<string, number>;
}

export interface AskWire {
  answer: string;
  queryRunId: string;
  sources: { n: number; kind: string; text: string; score: number; validAt: string | null; invalidAt: string | null; distanceKm?: number }[];
}

const ms = (n: number | null) => (n === null ? "" : n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(1)} s`);

const MARK: Record<string, string> = { succeeded: "✓", failed: "✗", skipped: "–" };

/** One stage that has ended: "  ✓ extract_graph  120 ms". */
export function formatStageLine(s: StageWire): string {
  const took = ms(s.durationMs);
  return `  ${MARK[s.status] ?? "·"} ${s.name}${took ? `  ${took}` : ""}${s.error ? `  (${s.error})` : ""}`;
}

/** Where a running remember is: "queued, 2 ahead" or "started: 5/14 stages, chunks 3/10". */
export function formatProgress(run: RunDetailWire): string {
  const p = run.progress;
  if (run.status === "queued") return p?.queuePosition ? `queued, ${p.queuePosition} ahead` : "queued";
  if (!p) return run.status;
  const chunks = p.chunksTotal === null ? "" : `, chunks ${p.chunksDone}/${p.chunksTotal}`;
  const current = run.stages.find((s) => s.status === "started");
  return `${run.status}: ${p.stagesDone}/${p.stagesTotal} stages${chunks}${current ? ` (${current.name})` : ""}`;
}

/** A run with its stages. */
/** A run, its error and (unless `stages: false`: a remember that showed them as they ended) its stages. */
export function formatRun(run: RunDetailWire, opts: { stages?: boolean } = {}): string {
  const head = `${run.kind} run ${run.id} ${run.status}${run.flagged ? " (flagged: a stage failed)" : ""}${run.durationMs !== null ? ` in ${ms(run.durationMs)}` : ""}`;
  const stages = opts.stages === false ? [] : run.stages.filter((s) => s.status !== "not_started").map(formatStageLine);
  return [head, ...(run.error ? [`  error: ${run.error}`] : []), ...stages].join("\n");
}

export function formatRunList(kind: string, list: RunListWire): string {
  if (list.items.length === 0) return `no ${kind} runs`;
  const rows = list.items.map((r) =>
    [r.id, r.status + (r.flagged ? "*" : ""), r.createdAt.replace("T", " ").slice(0, 19), ms(r.durationMs), r.userId ?? ""].join("  "),
  );
  const more = list.nextCursor ? [`more: --cursor ${list.nextCursor}`] : [];
  return [...rows, ...(list.items.some((r) => r.flagged) ? ["* flagged: a stage failed"] : []), ...more].join("\n");
}

/** The answer, then the sources it cites, by their numbers. */
export function formatAnswer(a: AskWire): string {
  const sources = a.sources.map((s) => {
    const when = s.validAt ? ` (since ${s.validAt.slice(0, 10)}${s.invalidAt ? `, until ${s.invalidAt.slice(0, 10)}` : ""})` : "";
    const far = s.distanceKm !== undefined ? ` [${s.distanceKm.toFixed(1)} km]` : "";
    return `  [${s.n}] ${s.text}${when}${far}`;
  });
  return [a.answer, ...(sources.length ? ["", "sources:", ...sources] : []), "", `query run ${a.queryRunId}`].join("\n");
}
