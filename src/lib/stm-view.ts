import type { ScopeView } from "@/server/stm/read";
import type { VersionRow } from "@/server/stm/store";

/** The admin STM page's pure parts: its URL, the procedures' inputs, and the version history's changes. */

/** The list's filter as typed: "" is no filter. */
export interface StmFilter {
  userId: string;
  serverId: string;
  channelId: string;
}

export const NO_FILTER: StmFilter = { userId: "", serverId: "", channelId: "" };

/** The URL's names of the filter's fields: ?user=…&server=…&channel=…, and the open key ?key=…. */
const PARAM: Record<keyof StmFilter, string> = { userId: "user", serverId: "server", channelId: "channel" };

export function stmStateFromParams(params: URLSearchParams): { filter: StmFilter; key: string | null } {
  const get = (f: keyof StmFilter) => params.get(PARAM[f])?.trim() ?? "";
  return { filter: { userId: get("userId"), serverId: get("serverId"), channelId: get("channelId") }, key: params.get("key") || null };
}

/** The page on a dataset, filtered, with a key open (each part only when given). */
export function stmHref(dataset: string, filter: StmFilter, key?: string | null): string {
  const params = new URLSearchParams({ dataset });
  for (const f of Object.keys(PARAM) as (keyof StmFilter)[]) if (filter[f].trim()) params.set(PARAM[f], filter[f].trim());
  if (key) params.set("key", key);
  return `/admin/stm?${params.toString()}`;
}

/** Why an id cannot be a filter (the server's ScopeId: 1 to 128 characters, no ":" and no white space), or null. */
export function scopeIdProblem(value: string): string | null {
  const v = value.trim();
  if (v.length > 128) return "must be at most 128 characters";
  if (/[:\s]/.test(v)) return 'must not contain ":" or white space';
  return null;
}

export function filterProblems(filter: StmFilter): Partial<Record<keyof StmFilter, string>> {
  const out: Partial<Record<keyof StmFilter, string>> = {};
  for (const f of Object.keys(PARAM) as (keyof StmFilter)[]) {
    const problem = scopeIdProblem(filter[f]);
    if (problem) out[f] = problem;
  }
  return out;
}

/** stm.scopes' filter: the fields given, trimmed. */
export function scopesInput(dataset: string, filter: StmFilter): { dataset: string; userId?: string; serverId?: string; channelId?: string } {
  const input: ReturnType<typeof scopesInput> = { dataset };
  for (const f of Object.keys(PARAM) as (keyof StmFilter)[]) if (filter[f].trim()) input[f] = filter[f].trim();
  return input;
}

type Scope = Pick<ScopeView, "kind" | "userId" | "serverId" | "channelId" | "personaId" | "writers">;

/** A key's channel in words: "channel c1 on server s1", or a direct message's. */
export function channelLabel(s: Pick<Scope, "serverId" | "channelId">): string {
  return s.serverId ? `channel ${s.channelId} on server ${s.serverId}` : `direct-message channel ${s.channelId}`;
}

/** stm.clearChannel for a key's channel: of its server, or (a direct message) the channel id alone. */
export function clearChannelInput(dataset: string, s: Pick<Scope, "serverId" | "channelId">): { dataset: string; channelId: string; serverId?: string } {
  return s.serverId ? { dataset, channelId: s.channelId, serverId: s.serverId } : { dataset, channelId: s.channelId };
}

/** The people a key's "Forget user" offers: its user (a user key), then everyone who wrote to it. */
export function forgettableUsers(s: Pick<Scope, "userId" | "writers">): string[] {
  return [...new Set([...(s.userId ? [s.userId] : []), ...s.writers])];
}

/** stm.clearUser in this dataset only (without one it would forget the user in every dataset). */
export const clearUserInput = (dataset: string, userId: string) => ({ dataset, userId });

/** What a reset or a forget did, in one sentence. */
export function clearedNote(what: string, result: { keys: string[]; deleted: { short_term_memory_versions: number } }): string {
  const n = result.keys.length;
  if (n === 0) return `${what}: nothing to delete.`;
  const versions = result.deleted.short_term_memory_versions;
  return `${what}: ${n} ${n === 1 ? "key" : "keys"} deleted, with ${versions} ${versions === 1 ? "version" : "versions"}.`;
}

/** The cadence in words: how many captured turns since the last upgrade. */
export function turnsLabel(turns: number): string {
  return `${turns} ${turns === 1 ? "turn" : "turns"}`;
}

/** Who wrote a cached message (the app's author, else the turn's user; a model's reply may have none), and whose turn it was when that is someone else. */
export function messageAuthor(m: { role: "user" | "assistant"; authorId?: string; userId: string }): { author: string; turnOf: string | null } {
  const author = m.authorId ?? (m.role === "user" ? m.userId : "assistant");
  return { author, turnOf: author === m.userId ? null : m.userId };
}

/** A key's categories, by name. */
export function categoryEntries(categories: Record<string, string> | null): [string, string][] {
  return Object.entries(categories ?? {}).sort(([a], [b]) => a.localeCompare(b));
}

export type Change = "added" | "changed" | "removed" | null;

export interface CategoryLine {
  name: string;
  value: string;
  change: Change;
}

export interface HistoryEntry extends VersionRow {
  /** the summary differs from the version before (never on the oldest: nothing to compare with) */
  summaryChanged: boolean;
  /** the categories by name, each marked against the version before; removed ones with their old value */
  lines: CategoryLine[];
}

/** The versions (newest first, as stm.entry gives them), each compared with the one before it. */
export function versionHistory(versions: VersionRow[]): HistoryEntry[] {
  return versions.map((v, i) => {
    const before = versions[i + 1];
    const old = before?.categories ?? {};
    const now = v.categories ?? {};
    const lines: CategoryLine[] = categoryEntries(v.categories).map(([name, value]) => ({
      name,
      value,
      change: !before ? null : !(name in old) ? "added" : old[name] !== value ? "changed" : null,
    }));
    if (before) for (const [name, value] of categoryEntries(before.categories)) if (!(name in now)) lines.push({ name, value, change: "removed" });
    const summaryChanged = before !== undefined && before.summary !== v.summary;
    return { ...v, summaryChanged, lines };
  });
}
