import { randomUUID } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { column, queryRows, rowDecoder } from "../db/rows";
import { scopeKeys } from "./keys";
import type { Scope } from "./schemas";

/*
 * The durable side of short-term memory: short_term_memories (one row per scope key) and
 * short_term_memory_versions (every upgrade). Statements only; the verbs are in stm.ts.
 */

export const memoryRow = rowDecoder({
  key: column.text,
  kind: column.text,
  user_id: column.nullable(column.text),
  server_id: column.nullable(column.text),
  channel_id: column.text,
  persona_id: column.nullable(column.text),
  summary: column.nullable(column.text),
  categories: column.nullable(column.json<Record<string, string>>()),
  version: column.int,
  turns_since_upgrade: column.int,
  last_upgrade_at: column.nullable(column.timestamp),
  last_upgrade_turn: column.nullable(column.text),
  epoch: column.text,
  updated_at: column.timestamp,
});
export type MemoryRow = ReturnType<typeof memoryRow>;

const COLUMNS = sql.raw(
  "key, kind, user_id, server_id, channel_id, persona_id, summary, categories, version, turns_since_upgrade, last_upgrade_at, last_upgrade_turn, epoch, updated_at",
);

/**
 * Makes the scope's rows that are missing (its durable identity) and returns every one of them.
 * `turn`: this is a captured turn, counted in the cadence (a new row starts at 1), and the user
 * joins the key's writers.
 */
export async function ensureRows(db: Db, datasetId: string, scope: Scope, turn: boolean): Promise<MemoryRow[]> {
  // in key order, the order lockRows locks them in: an upsert that took the user's row first and
  // an upgrade that holds the server's row deadlocked (Postgres: "deadlock detected")
  const keys = scopeKeys(scope).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const values = sql.join(
    keys.map(
      (k) =>
        sql`(${datasetId}::uuid, ${k.key}, ${k.kind}, ${k.kind === "user" ? scope.userId : null}, ${scope.serverId ?? null}, ${scope.channelId}, ${scope.personaId ?? null}, ARRAY[${scope.userId}]::text[], ${turn ? 1 : 0}::int, ${randomUUID()}::uuid)`,
    ),
    sql`, `,
  );
  const update: SQL = turn
    ? sql`turns_since_upgrade = m.turns_since_upgrade + 1,
          writers = CASE WHEN ${scope.userId} = ANY(m.writers) THEN m.writers ELSE array_append(m.writers, ${scope.userId}) END,
          updated_at = now()`
    : // no change, but a row to return (DO NOTHING returns none)
      sql`writers = CASE WHEN ${scope.userId} = ANY(m.writers) THEN m.writers ELSE array_append(m.writers, ${scope.userId}) END`;
  return queryRows(
    db,
    sql`INSERT INTO short_term_memories AS m (dataset_id, key, kind, user_id, server_id, channel_id, persona_id, writers, turns_since_upgrade, epoch)
        VALUES ${values}
        ON CONFLICT (dataset_id, key) DO UPDATE SET ${update}
        RETURNING ${COLUMNS}`,
    memoryRow,
  );
}

/** The rows of these keys, locked until the transaction ends (`db` is one). */
export async function lockRows(tx: Db, datasetId: string, keys: string[]): Promise<MemoryRow[]> {
  return queryRows(
    tx,
    sql`SELECT ${COLUMNS} FROM short_term_memories
        WHERE dataset_id = ${datasetId} AND key IN (SELECT jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb))
        ORDER BY key FOR UPDATE`,
    memoryRow,
  );
}

/** Stores an upgrade of one key and its version row. */
export async function storeUpgrade(
  tx: Db,
  datasetId: string,
  row: MemoryRow,
  next: { summary: string | null; categories: Record<string, string> | null; turnId: string; userId: string },
): Promise<number> {
  const version = row.version + 1;
  const categories = next.categories === null ? null : JSON.stringify(next.categories);
  await tx.execute(
    sql`UPDATE short_term_memories
        SET summary = ${next.summary}, categories = ${categories}::jsonb, version = ${version},
            turns_since_upgrade = 0, last_upgrade_at = now(), last_upgrade_turn = ${next.turnId}, updated_at = now()
        WHERE dataset_id = ${datasetId} AND key = ${row.key}`,
  );
  await tx.execute(
    sql`INSERT INTO short_term_memory_versions (dataset_id, key, version, summary, categories, turn_id, user_id)
        VALUES (${datasetId}, ${row.key}, ${version}, ${next.summary}, ${categories}::jsonb, ${next.turnId}, ${next.userId})`,
  );
  return version;
}

/**
 * The rows a scope's context reads: the user's keys (any channel) and, with a server, the
 * server's keys, of the same persona; the most recently written first.
 */
export async function contextRows(db: Db, datasetId: string, scope: Scope, limit: number): Promise<MemoryRow[]> {
  const persona = scope.personaId ?? null;
  return queryRows(
    db,
    sql`SELECT ${COLUMNS} FROM (
          SELECT * FROM short_term_memories WHERE dataset_id = ${datasetId} AND user_id = ${scope.userId} AND kind = 'user'
          ${scope.serverId ? sql`UNION ALL SELECT * FROM short_term_memories WHERE dataset_id = ${datasetId} AND server_id = ${scope.serverId} AND kind = 'server'` : sql``}
        ) m
        WHERE persona_id IS NOT DISTINCT FROM ${persona}
        ORDER BY updated_at DESC, key LIMIT ${limit}`,
    memoryRow,
  );
}

export interface VersionRow {
  version: number;
  summary: string | null;
  categories: Record<string, string> | null;
  turnId: string;
  userId: string;
  at: Date;
}

/** A key's versions, newest first. */
export async function versions(db: Db, datasetId: string, key: string, limit: number): Promise<VersionRow[]> {
  const rows = await queryRows(
    db,
    sql`SELECT version, summary, categories, turn_id, user_id, created_at FROM short_term_memory_versions
        WHERE dataset_id = ${datasetId} AND key = ${key} ORDER BY version DESC LIMIT ${limit}`,
    rowDecoder({
      version: column.int,
      summary: column.nullable(column.text),
      categories: column.nullable(column.json<Record<string, string>>()),
      turn_id: column.text,
      user_id: column.text,
      created_at: column.timestamp,
    }),
  );
  return rows.map((r) => ({ version: r.version, summary: r.summary, categories: r.categories, turnId: r.turn_id, userId: r.user_id, at: r.created_at }));
}

export interface Deleted {
  keys: string[];
  /** rows deleted per table */
  rows: { short_term_memories: number; short_term_memory_versions: number };
}

/** Deletes the keys that `where` (over short_term_memories `m`) selects, and their versions: call it in a transaction. */
export async function deleteKeys(tx: Db, datasetId: string, where: SQL): Promise<Deleted> {
  const v = await queryRows(
    tx,
    sql`DELETE FROM short_term_memory_versions v USING short_term_memories m
        WHERE v.dataset_id = ${datasetId} AND m.dataset_id = v.dataset_id AND m.key = v.key AND ${where}
        RETURNING v.version`,
  );
  const k = await queryRows<{ key: string }>(tx, sql`DELETE FROM short_term_memories m WHERE m.dataset_id = ${datasetId} AND ${where} RETURNING m.key`);
  return { keys: k.map((r) => r.key), rows: { short_term_memories: k.length, short_term_memory_versions: v.length } };
}

/** `where` of a user's keys: their user keys, and the server keys they wrote to. */
export const ofUser = (userId: string): SQL => sql`(m.user_id = ${userId} OR m.writers @> ARRAY[${userId}]::text[])`;

/** `where` of a channel's keys (of one server, when given). */
export const ofChannel = (channelId: string, serverId: string | undefined): SQL =>
  serverId === undefined ? sql`m.channel_id = ${channelId}` : sql`(m.channel_id = ${channelId} AND m.server_id = ${serverId})`;
