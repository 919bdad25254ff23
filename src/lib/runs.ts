import { queryRunHref, rememberRunHref } from "./admin-links";
import { POLL_MS } from "./run-poll";
import { type RunKind, RunStatuses, type RunStatus } from "./stages";

/** The run views' pure parts: the status tiles and their filter in the URL, liveness, times. */

/** How often a view with a run in progress asks again. */
export const LIVE_POLL_MS = POLL_MS;

/** A run that will still change: the views poll while they show one. */
export const isLive = (status: RunStatus) => status === "queued" || status === "started";

export type RunCounts = Record<RunStatus, number> & { flagged: number };

/** The list's filter: one status, or the flagged runs (succeeded with a failed stage), or none. */
export type RunFilter = { status: RunStatus } | { flagged: true } | Record<string, never>;
export type TileKey = RunStatus | "flagged";

export interface Tile {
  key: TileKey;
  count: number;
  pressed: boolean;
}

const tileOf = (filter: RunFilter): TileKey | null => ("status" in filter ? filter.status : "flagged" in filter ? "flagged" : null);

/** One tile per status with its count, then the flagged runs; the one the list is filtered by is pressed. */
export function statusTiles(counts: RunCounts | undefined, filter: RunFilter): Tile[] {
  const on = tileOf(filter);
  return [...RunStatuses, "flagged" as const].map((key) => ({ key, count: counts?.[key] ?? 0, pressed: on === key }));
}

/** Clicking a tile filters by it; clicking the pressed one clears the filter. */
export function toggleFilter(filter: RunFilter, key: TileKey): RunFilter {
  if (tileOf(filter) === key) return {};
  return key === "flagged" ? { flagged: true } : { status: key };
}

/** Whether anything a list shows can still change: a run on the page or in the tiles that is queued or started. */
export function listIsLive(counts: RunCounts | undefined, statuses: readonly RunStatus[]): boolean {
  return (counts ? counts.queued + counts.started > 0 : false) || statuses.some(isLive);
}

/** The filter in the URL: ?status=failed or ?flagged=1 (anything else is no filter). */
export function filterFromParams(params: URLSearchParams): RunFilter {
  const status = params.get("status");
  if (status && (RunStatuses as readonly string[]).includes(status)) return { status: status as RunStatus };
  if (params.get("flagged") === "1") return { flagged: true };
  return {};
}

/** `params` with the filter in place of the old one (the dataset and the rest kept). */
export function filterToParams(filter: RunFilter, params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete("status");
  next.delete("flagged");
  if ("status" in filter) next.set("status", filter.status);
  if ("flagged" in filter) next.set("flagged", "1");
  return next;
}

/** The list procedure's filter input. */
export const filterInput = (filter: RunFilter): { status?: RunStatus; flagged?: boolean } =>
  "status" in filter ? { status: filter.status } : "flagged" in filter ? { flagged: true } : {};

/** A run's page, keeping the dataset in the URL for the header's links. */
export const runHref = (kind: RunKind, id: string, dataset: string) => (kind === "remember" ? rememberRunHref : queryRunHref)(dataset, id);
export const inferenceHref = (id: string) => `/admin/inferences/${id}`;

/** A remember run's progress for a progress bar, 0 to 1: chunks stored once they are known, else stages ended. */
export function progressFraction(p: { stagesDone: number; stagesTotal: number; chunksDone: number; chunksTotal: number | null }): number {
  if (p.chunksTotal) return Math.min(1, p.chunksDone / p.chunksTotal);
  return p.stagesTotal > 0 ? Math.min(1, p.stagesDone / p.stagesTotal) : 0;
}

/** A duration as people read it: 340 ms, 2.3 s, 4 min 12 s. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

const sameDay = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const otherDay = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" });
const full = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  fractionalSecondDigits: 3,
});

/** A run's time to the second (runs come seconds apart); the date only when it is not today. */
export function formatRunTime(date: Date | null | undefined, now = new Date()): string {
  if (!date) return "—";
  return (date.toDateString() === now.toDateString() ? sameDay : otherDay).format(date);
}

/** The whole date and time to the millisecond (a run's stages are milliseconds apart). */
export const formatFullTime = (date: Date | null | undefined) => (date ? full.format(date) : "");

/** The first characters of an id, enough to tell runs apart in a list. */
export const shortId = (id: string) => id.slice(0, 8);
