import { sql } from "drizzle-orm";
import type { App } from "../app";
import type { Caller } from "../auth/caller";
import { decodeCursor, encodeCursor } from "../cursor";
import { resolveDataset } from "../datasets/datasets";
import { NotFoundError } from "../errors";
import { queryRows } from "../db/rows";
import { cacheKey, type CachedMessage } from "./cache";
import type { EntryInput, ScopesInput } from "./schemas";
import { memoryRow, type MemoryRow, versions, type VersionRow } from "./store";

/*
 * Short-term memory as the admin STM page reads it: the scope keys of a dataset, found by user,
 * server or channel, newest first; one key with its cached messages and every version.
 */

export interface ScopeView {
  key: string;
  kind: "user" | "server";
  userId: string | null;
  serverId: string | null;
  channelId: string;
  personaId: string | null;
  writers: string[];
  summary: string | null;
  categories: Record<string, string> | null;
  version: number;
  turnsSinceUpgrade: number;
  lastUpgradeAt: Date | null;
  lastUpgradeTurnId: string | null;
  updatedAt: Date;
  /** messages of the key in this process's cache */
  cachedMessages: number;
}

const view = (r: MemoryRow & { writers: string[] }, cached: number): ScopeView => ({
  key: r.key,
  kind: r.kind === "server" ? "server" : "user",
  userId: r.user_id,
  serverId: r.server_id,
  channelId: r.channel_id,
  personaId: r.persona_id,
  writers: r.writers,
  summary: r.summary,
  categories: r.categories,
  version: r.version,
  turnsSinceUpgrade: r.turns_since_upgrade,
  lastUpgradeAt: r.last_upgrade_at,
  lastUpgradeTurnId: r.last_upgrade_turn,
  updatedAt: r.updated_at,
  cachedMessages: cached,
});

const withWriters = (raw: Record<string, unknown>) => ({ ...memoryRow(raw), writers: (raw.writers as string[] | null) ?? [] });

/** stm.scopes: a dataset's scope keys, the most recently written first, filtered by user, server or channel. */
export async function listScopes({ app, caller, input }: { app: App; caller: Caller; input: ScopesInput }): Promise<{ items: ScopeView[]; nextCursor: string | null }> {
  const db = app.database.db;
  const ds = await resolveDataset(db, input.dataset, caller);
  const after = input.cursor ? decodeCursor(input.cursor, ["timestamp", "text"]) : null; // [updated_at, key] of the last row
  const rows = await queryRows(
    db,
    sql`SELECT m.* FROM short_term_memories m
        WHERE m.dataset_id = ${ds.id}
          ${input.userId ? sql`AND (m.user_id = ${input.userId} OR m.writers @> ARRAY[${input.userId}]::text[])` : sql``}
          ${input.serverId ? sql`AND m.server_id = ${input.serverId}` : sql``}
          ${input.channelId ? sql`AND m.channel_id = ${input.channelId}` : sql``}
          ${after ? sql`AND (date_trunc('milliseconds', m.updated_at), m.key) < (${after[0].toISOString()}::timestamptz, ${after[1]})` : sql``}
        -- in milliseconds, as the cursor keeps them (Postgres keeps microseconds)
        ORDER BY date_trunc('milliseconds', m.updated_at) DESC, m.key DESC LIMIT ${input.limit + 1}`,
    withWriters,
  );
  const page = rows.slice(0, input.limit);
  const cached = await app.stmCache.read(page.map((r) => ({ cacheKey: cacheKey(ds.id, r.key), epoch: r.epoch })));
  const last = page.at(-1);
  return {
    items: page.map((r, i) => view(r, cached[i]?.length ?? 0)),
    nextCursor: rows.length > input.limit && last ? encodeCursor([last.updated_at, last.key]) : null,
  };
}

/** the versions stm.entry returns, newest first */
const VERSIONS = 100;

/** stm.entry: one key, its cached messages and its versions (newest first). */
export async function getEntry({
  app,
  caller,
  input,
}: {
  app: App;
  caller: Caller;
  input: EntryInput;
}): Promise<ScopeView & { messages: CachedMessage[]; versions: VersionRow[] }> {
  const db = app.database.db;
  const ds = await resolveDataset(db, input.dataset, caller);
  const [row] = await queryRows(db, sql`SELECT m.* FROM short_term_memories m WHERE m.dataset_id = ${ds.id} AND m.key = ${input.key}`, withWriters);
  if (!row) throw new NotFoundError("short-term memory key", input.key);
  const [messages] = await app.stmCache.read([{ cacheKey: cacheKey(ds.id, row.key), epoch: row.epoch }]);
  return { ...view(row, messages?.length ?? 0), messages: messages ?? [], versions: await versions(db, ds.id, row.key, VERSIONS) };
}
