import { createHash, randomBytes, randomUUID } from "node:crypto";
import { and, desc, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { type Role, roleAtLeast } from "../../lib/roles";
import type { Db } from "../db/client";
import { announce, forgetHere, lookupsOf } from "../db/lookups";
import { apiKeys, datasets, DEFAULT_TEAM_ID } from "../db/schema";
import { ForbiddenError, logError, NotFoundError } from "../errors";
import { actorOf, recordAudit } from "./audit";
import { type Caller, uuidArray } from "./caller";
import type { CreateKeyInput } from "./schemas";

/*
 * API keys: "gb_" and 43 characters of base64url (256 random bits). Only the SHA-256 of a key is
 * stored (a slow hash buys nothing for a random 256-bit secret and would cost every call); its
 * first 11 characters are kept to tell keys apart in the admin pages.
 */

const PREFIX_LENGTH = 11;

export const hashKey = (secret: string) => createHash("sha256").update(secret).digest("hex");
export const keyPrefix = (secret: string) => secret.slice(0, PREFIX_LENGTH);

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  datasets: string[] | null;
  createdBy: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

type KeyRow = typeof apiKeys.$inferSelect;

async function datasetNames(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: datasets.id, name: datasets.name }).from(datasets).where(inArray(datasets.id, [...ids]));
  return new Map(rows.map((r) => [r.id, r.name]));
}

async function view(db: Db, rows: KeyRow[]): Promise<ApiKeyView[]> {
  const names = await datasetNames(db, rows.flatMap((r) => r.datasetIds ?? []));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    role: r.role,
    datasets: r.datasetIds ? r.datasetIds.map((id) => names.get(id) ?? id) : null,
    createdBy: r.createdBy,
    createdAt: r.createdAt,
    lastUsedAt: r.lastUsedAt,
    revokedAt: r.revokedAt,
  }));
}

/**
 * The keys a caller may see and revoke: its team's, and for a caller restricted to some datasets
 * only the keys restricted to some of those (never an unrestricted key, nor one that reaches a
 * dataset the caller cannot see). Any other key is "not found".
 */
function visibleTo(caller: Caller): SQL | undefined {
  const team = eq(apiKeys.teamId, caller.teamId);
  if (caller.datasetIds === null) return team;
  return and(team, sql`cardinality(${apiKeys.datasetIds}) > 0 AND ${apiKeys.datasetIds} <@ ${uuidArray(caller.datasetIds)}`);
}

export async function listApiKeys({ db, caller }: { db: Db; caller: Caller }): Promise<ApiKeyView[]> {
  const rows = await db.select().from(apiKeys).where(visibleTo(caller)).orderBy(desc(apiKeys.createdAt));
  return view(db, rows);
}

/**
 * Makes a key; the secret is in the answer and nowhere else, ever. A caller restricted to some
 * datasets makes keys restricted to some of its own (none named: all of its own); naming another
 * dataset is "not found", as it is for every other call of that caller.
 */
export async function createApiKey({ db, caller, input }: { db: Db; caller: Caller; input: CreateKeyInput }): Promise<{ key: ApiKeyView; secret: string }> {
  if (!roleAtLeast(caller.role, input.role)) throw new ForbiddenError(`a ${caller.role} cannot make a key with role ${input.role}`);
  let datasetIds: string[] | null = null;
  if (input.datasets) {
    const rows = await db
      .select({ id: datasets.id, name: datasets.name })
      .from(datasets)
      .where(and(eq(datasets.teamId, caller.teamId), inArray(datasets.name, input.datasets)));
    const missing = input.datasets.filter((n) => !rows.some((r) => r.name === n));
    // another team's dataset, or one outside the caller's own restriction, is not found
    const outside = rows.find((r) => caller.datasetIds && !caller.datasetIds.includes(r.id));
    if (missing[0] || outside) throw new NotFoundError("dataset", missing[0] ?? outside?.name ?? "");
    datasetIds = rows.map((r) => r.id);
  } else if (caller.datasetIds) {
    datasetIds = [...caller.datasetIds];
  }
  // the restriction the key got (named or inherited), for the audit log
  const restrictedTo = datasetIds ? [...(await datasetNames(db, datasetIds)).values()] : null;
  const secret = `gb_${randomBytes(32).toString("base64url")}`;
  const row = await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(apiKeys)
      .values({
        id: randomUUID(),
        teamId: caller.teamId,
        name: input.name,
        prefix: keyPrefix(secret),
        hash: hashKey(secret),
        role: input.role,
        datasetIds,
        createdBy: caller.label,
        createdAt: new Date(),
      })
      .returning();
    if (!created) throw new Error("insert returned no row");
    await recordAudit(tx, {
      teamId: caller.teamId,
      actor: actorOf(caller),
      action: "key.create",
      target: `${created.name} (${created.prefix}…)`,
      details: { keyId: created.id, role: created.role, datasets: restrictedTo },
      datasetIds: created.datasetIds,
    });
    return created;
  });
  const [key] = await view(db, [row]);
  if (!key) throw new Error("unreachable");
  return { key, secret };
}

export async function revokeApiKey({ db, caller, id }: { db: Db; caller: Caller; id: string }): Promise<ApiKeyView> {
  const row = await db.transaction(async (tx) => {
    const [found] = await tx.select().from(apiKeys).where(and(eq(apiKeys.id, id), visibleTo(caller)));
    if (!found) throw new NotFoundError("key", id);
    if (!roleAtLeast(caller.role, found.role)) throw new ForbiddenError(`a ${caller.role} cannot revoke a ${found.role} key`);
    if (found.revokedAt) return found;
    const [revoked] = await tx.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, id)).returning();
    // the other processes forget the key as this commits (db/lookups.ts)
    await announce(tx, { kind: "key", id });
    await recordAudit(tx, {
      teamId: caller.teamId,
      actor: actorOf(caller),
      action: "key.revoke",
      target: `${found.name} (${found.prefix}…)`,
      details: { keyId: id },
      datasetIds: found.datasetIds,
    });
    return revoked ?? found;
  });
  // and this one at once
  forgetHere(db, { kind: "key", id });
  const [key] = await view(db, [row]);
  if (!key) throw new Error("unreachable");
  return key;
}

// last_used_at is written at most once a minute per key and process: not a write per call
const LAST_USED_EVERY_MS = 60_000;
const lastUsedWritten = new Map<string, number>();

/**
 * The caller a bearer secret stands for, or null when it is unknown or revoked. Cached per process
 * (db/lookups.ts): a revocation is honoured at once where it was made, and within 5 s elsewhere.
 */
export async function callerForKey(db: Db, secret: string): Promise<Caller | null> {
  const hash = hashKey(secret);
  const load = () => keyCaller(db, hash);
  const caller = await (lookupsOf(db)?.key(hash, load) ?? load());
  if (!caller?.id) return null;
  const id = caller.id;
  const now = Date.now();
  if (now - (lastUsedWritten.get(id) ?? 0) > LAST_USED_EVERY_MS) {
    lastUsedWritten.set(id, now);
    // not awaited: the call does not wait for bookkeeping, and a failure here must not fail it
    db.update(apiKeys)
      .set({ lastUsedAt: new Date(now) })
      .where(eq(apiKeys.id, id))
      .catch((e: unknown) => logError("could not record a key's last use", e));
  }
  return caller;
}

async function keyCaller(db: Db, hash: string): Promise<Caller | null> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) return null;
  return { kind: "key", id: row.id, label: `${row.name} (${row.prefix}…)`, teamId: row.teamId, role: row.role, datasetIds: row.datasetIds };
}

/** GB_BOOTSTRAP_API_KEY: an owner key of the default team with that exact value, made once. */
export async function ensureBootstrapKey(db: Db, secret: string): Promise<void> {
  const inserted = await db
    .insert(apiKeys)
    .values({
      id: randomUUID(),
      teamId: DEFAULT_TEAM_ID,
      name: "bootstrap (GB_BOOTSTRAP_API_KEY)",
      prefix: keyPrefix(secret),
      hash: hashKey(secret),
      role: "owner",
      createdBy: "GB_BOOTSTRAP_API_KEY",
      createdAt: new Date(),
    })
    .onConflictDoNothing({ target: apiKeys.hash })
    .returning({ id: apiKeys.id });
  if (inserted[0]) {
    await recordAudit(db, {
      teamId: DEFAULT_TEAM_ID,
      actor: { kind: "system", id: null, label: "start-up" },
      action: "key.create",
      target: `bootstrap (${keyPrefix(secret)}…)`,
      details: { keyId: inserted[0].id, role: "owner", from: "GB_BOOTSTRAP_API_KEY" },
    });
  }
}
