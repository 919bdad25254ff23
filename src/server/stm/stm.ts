import type { App } from "../app";
import type { Caller } from "../auth/caller";
import type { Db } from "../db/client";
import { allDatasets, resolveDataset } from "../datasets/datasets";
import { ValidationError } from "../errors";
import { cacheKey, type CachedMessage, type MessageCache } from "./cache";
import { channelKey, scopeKeys } from "./keys";
import { type StmEntry, renderContext } from "./render";
import type { ClearChannelInput, ClearUserInput, ContextInput, ContextMode, CaptureInput, ExecuteToolCallInput, Scope, UpgradeInput } from "./schemas";
import { MAX_CATEGORIES, UpgradeArguments } from "./schemas";
import { contextRows, type Deleted, deleteKeys, ensureRows, lockRows, type MemoryRow, ofChannel, ofUser, storeUpgrade } from "./store";

/*
 * Short-term memory's verbs (#14; the seed's STM sub-pipeline, ../shared/spec/seed-stm.md):
 *   capture          the last messages of each scope key (the message cache), the durable identity rows, the cadence
 *   upgrade          a distilled summary or categories, durable, once per turn, every version kept
 *   executeToolCall  upgrade from the update_short_term_memory tool's arguments as a model gives them
 *   context          the scope's channel and the user's (and server's) other channels, as text for a prompt
 *   clearChannel     a channel reset; clearUser: a person forgotten (subjects.purge too)
 * Deletions are awaited, in one transaction, and the cache is evicted after it: a read that
 * comes after the call never sees the keys, and a read during it sees none of the deleted rows'
 * messages (cached messages are shown only with the row of their epoch).
 */

export interface Cadence {
  /** turns captured since the last upgrade (or since the key was made) */
  turnsSinceUpgrade: number;
  lastUpgradeAt: Date | null;
  lastUpgradeTurnId: string | null;
  /** upgrades so far */
  version: number;
}

export interface CaptureResult {
  keys: string[];
  /** the messages the channel's key holds now */
  cached: number;
  cadence: Cadence;
}

const cadenceOf = (r: MemoryRow | undefined): Cadence => ({
  turnsSinceUpgrade: r?.turns_since_upgrade ?? 0,
  lastUpgradeAt: r?.last_upgrade_at ?? null,
  lastUpgradeTurnId: r?.last_upgrade_turn ?? null,
  version: r?.version ?? 0,
});

const cacheEntries = (datasetId: string, rows: MemoryRow[]) => rows.map((r) => ({ cacheKey: cacheKey(datasetId, r.key), epoch: r.epoch }));

/** stm.capture: a turn's messages into every key of its scope; never changes a summary. */
export async function capture({ app, caller, input }: { app: App; caller: Caller; input: CaptureInput }): Promise<CaptureResult> {
  const ds = await resolveDataset(app.database.db, input.dataset, caller);
  const rows = await ensureRows(app.database.db, ds.id, input.scope, true);
  const now = new Date().toISOString();
  const messages: CachedMessage[] = input.messages.map((m) => ({
    role: m.role,
    content: m.content,
    ...(m.authorId ? { authorId: m.authorId } : {}),
    at: (m.at ?? new Date(now)).toISOString(),
    userId: input.scope.userId,
  }));
  const max = app.env.GB_STM_MAX_MESSAGES_PER_CHANNEL;
  await app.stmCache.append(cacheEntries(ds.id, rows), messages, max);
  const channel = rows.find((r) => r.key === channelKey(input.scope).key);
  const [held] = await app.stmCache.read(cacheEntries(ds.id, channel ? [channel] : []));
  return { keys: rows.map((r) => r.key), cached: held?.length ?? 0, cadence: cadenceOf(channel) };
}

export type UpgradeResult =
  | { applied: true; version: number; summary: string | null; categories: Record<string, string> | null; keys: string[] }
  | { applied: false; reason: "already_upgraded_this_turn" };

/** stm.upgrade: a summary and/or categories into every key of the scope, once per turn. */
export async function upgrade({ app, caller, input }: { app: App; caller: Caller; input: UpgradeInput }): Promise<UpgradeResult> {
  const parsed = UpgradeArguments.safeParse({ summary: input.summary, categories: input.categories });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ValidationError(issue.path.join(".") || "summary", issue.message);
  }
  return applyUpgrade(app, caller, input, parsed.data);
}

async function applyUpgrade(
  app: App,
  caller: Caller,
  input: { dataset: string; scope: Scope; turnId: string },
  args: UpgradeArguments,
): Promise<UpgradeResult> {
  const max = app.env.GB_STM_MAX_SUMMARY_CHARS;
  if (args.summary !== undefined && args.summary.length > max) {
    throw new ValidationError("summary", `is ${args.summary.length} characters; at most ${max} (GB_STM_MAX_SUMMARY_CHARS)`);
  }
  const db = app.database.db;
  const ds = await resolveDataset(db, input.dataset, caller);
  const keys = scopeKeys(input.scope).map((k) => k.key);
  await ensureRows(db, ds.id, input.scope, false);
  return db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const rows = await lockRows(tx, ds.id, keys);
    // one upgrade per turn: the first key decides (they are written together)
    if (rows.some((r) => r.last_upgrade_turn === input.turnId)) return { applied: false as const, reason: "already_upgraded_this_turn" as const };
    const channel = channelKey(input.scope).key;
    let out: UpgradeResult | null = null;
    for (const row of rows) {
      const summary = args.summary !== undefined ? args.summary.trim() || null : row.summary;
      let categories = row.categories;
      if (args.categories !== undefined) {
        const merged: Record<string, string> = { ...(row.categories ?? {}) };
        for (const [k, v] of Object.entries(args.categories)) {
          if (v.trim() === "") delete merged[k.trim()];
          else merged[k.trim()] = v.trim();
        }
        const n = Object.keys(merged).length;
        if (n > MAX_CATEGORIES) throw new ValidationError("categories", `would hold ${n} categories; at most ${MAX_CATEGORIES} (give "" to remove one)`);
        categories = n ? merged : null;
      }
      const version = await storeUpgrade(tx, ds.id, row, { summary, categories, turnId: input.turnId, userId: input.scope.userId });
      if (row.key === channel || !out) out = { applied: true, version, summary, categories, keys };
    }
    return out!;
  });
}

/** stm.executeToolCall: update_short_term_memory's arguments (a JSON string or an object), as upgrade. */
export async function executeToolCall({ app, caller, input }: { app: App; caller: Caller; input: ExecuteToolCallInput }): Promise<UpgradeResult> {
  let args: unknown = input.arguments;
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch (e) {
      throw new ValidationError("arguments", `is not JSON (${e instanceof Error ? e.message : String(e)})`);
    }
  }
  const parsed = UpgradeArguments.safeParse(args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ValidationError(["arguments", ...issue.path.map(String)].join("."), issue.message);
  }
  return applyUpgrade(app, caller, input, parsed.data);
}

export interface ContextResult {
  text: string;
  sameChannel: StmEntry | null;
  otherChannels: StmEntry[];
  cadence: Cadence;
  mode: ContextMode;
}

/** how many keys a context reads, and how many other channels it shows */
const CONTEXT_ROWS = 50;
export const OTHER_CHANNELS = 5;

/** stm.context: the scope's channel and the other channels of its user (and server), and the cadence. */
export async function context({ app, caller, input }: { app: App; caller: Caller; input: ContextInput }): Promise<ContextResult> {
  const ds = await resolveDataset(app.database.db, input.dataset, caller);
  const rows = await contextRows(app.database.db, ds.id, input.scope, CONTEXT_ROWS);
  const here = channelKey(input.scope).key;
  const same = rows.find((r) => r.key === here) ?? null;
  // one entry per other channel: its server key (all its users' turns) before the user's own
  const byChannel = new Map<string, MemoryRow>();
  for (const r of rows) {
    if (r.channel_id === input.scope.channelId) continue;
    const k = `${r.server_id ?? ""} ${r.channel_id}`;
    const seen = byChannel.get(k);
    if (!seen || (seen.kind === "user" && r.kind === "server")) byChannel.set(k, r);
  }
  const others = [...byChannel.values()].slice(0, OTHER_CHANNELS);
  const shown = same ? [same, ...others] : others;
  const messages = await app.stmCache.read(cacheEntries(ds.id, shown));
  const entry = (r: MemoryRow, i: number): StmEntry => ({
    key: r.key,
    channelId: r.channel_id,
    serverId: r.server_id,
    summary: r.summary,
    categories: r.categories,
    messages: messages[i] ?? [],
    updatedAt: r.updated_at,
  });
  const entries = shown.map(entry);
  const sameEntry = same ? entries[0]! : null;
  const otherEntries = same ? entries.slice(1) : entries;
  return {
    text: renderContext(sameEntry, otherEntries, input.mode),
    sameChannel: sameEntry,
    otherChannels: otherEntries,
    cadence: cadenceOf(same ?? undefined),
    mode: input.mode,
  };
}

export interface ClearResult {
  datasets: string[];
  /** the keys deleted */
  keys: string[];
  deleted: { short_term_memories: number; short_term_memory_versions: number };
}

/** stm.clearChannel: a channel reset (the seed's /refresh): every key of the channel, rows and cached messages. */
export async function clearChannel({ app, caller, input }: { app: App; caller: Caller; input: ClearChannelInput }): Promise<ClearResult> {
  const ds = await resolveDataset(app.database.db, input.dataset, caller);
  const gone = await app.database.db.transaction((t) => deleteKeys(t as unknown as Db, ds.id, ofChannel(input.channelId, input.serverId)));
  await app.stmCache.evict(gone.keys.map((k) => cacheKey(ds.id, k)));
  return { datasets: [ds.name], keys: gone.keys, deleted: gone.rows };
}

/** stm.clearUser: a person forgotten in short-term memory, in one dataset or all the caller sees. */
export async function clearUser({ app, caller, input }: { app: App; caller: Caller; input: ClearUserInput }): Promise<ClearResult> {
  const db = app.database.db;
  const datasets = input.dataset ? [await resolveDataset(db, input.dataset, caller)] : await allDatasets({ db, scope: caller });
  const out: ClearResult = { datasets: datasets.map((d) => d.name), keys: [], deleted: { short_term_memories: 0, short_term_memory_versions: 0 } };
  for (const ds of datasets) {
    const gone = await clearUserIn(app.stmCache, db, ds.id, input.userId);
    out.keys.push(...gone.keys);
    out.deleted.short_term_memories += gone.rows.short_term_memories;
    out.deleted.short_term_memory_versions += gone.rows.short_term_memory_versions;
  }
  return out;
}

/**
 * A user's keys of one dataset deleted (their user keys and the server keys they wrote to, whose
 * distilled content may hold what they said), and their messages evicted from the cache (without
 * one, as in a script, the rows alone: cached messages of deleted rows are never shown again).
 */
export async function clearUserIn(cache: MessageCache | undefined, db: Db, datasetId: string, userId: string): Promise<Deleted> {
  const gone = await db.transaction((t) => deleteKeys(t as unknown as Db, datasetId, ofUser(userId)));
  await cache?.evictUser(datasetId, userId, gone.keys);
  return gone;
}
