import { randomUUID } from "node:crypto";
import { and, desc, eq, lt, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { auditLog } from "../db/schema";
import { decodeCursor, encodeCursor } from "../cursor";
import { type Caller, type Scope, uuidArray } from "./caller";

export type AuditActor = { kind: "user" | "key" | "system"; id: string | null; label: string };

export function actorOf(caller: Caller): AuditActor {
  return caller.kind === "local" ? { kind: "system", id: null, label: "local (GB_AUTH=off)" } : { kind: caller.kind, id: caller.id, label: caller.label };
}

export interface AuditEntry {
  teamId: string | null;
  actor: AuditActor;
  action: string;
  target?: string | null;
  details?: Record<string, unknown>;
  /** the datasets the event concerns; omitted = the team as a whole (see the column) */
  datasetIds?: readonly string[] | null;
}

/** Appends one event; `db` may be a transaction, so the event commits with what it records. */
export async function recordAudit(db: Pick<Db, "insert">, entry: AuditEntry): Promise<void> {
  await db.insert(auditLog).values({
    id: randomUUID(),
    teamId: entry.teamId,
    at: new Date(),
    actorKind: entry.actor.kind,
    actorId: entry.actor.id,
    actorLabel: entry.actor.label,
    action: entry.action,
    target: entry.target ?? null,
    details: entry.details ?? {},
    datasetIds: entry.datasetIds ? [...entry.datasetIds] : null,
  });
}

export interface AuditPage {
  items: (typeof auditLog.$inferSelect)[];
  nextCursor: string | null;
}

/**
 * The team's events, newest first, paged by (at, id). A caller restricted to some datasets sees
 * only the events about those datasets (every dataset of the event among its own): not the
 * team's members, sign-ins or unrestricted keys.
 */
export async function listAudit({ db, scope, cursor, limit }: { db: Db; scope: Scope; cursor?: string; limit: number }): Promise<AuditPage> {
  const after = cursor ? decodeCursor(cursor, ["timestamp", "uuid"]) : null;
  const rows = await db
    .select()
    .from(auditLog)
    .where(
      and(
        eq(auditLog.teamId, scope.teamId),
        scope.datasetIds
          ? sql`cardinality(${auditLog.datasetIds}) > 0 AND ${auditLog.datasetIds} <@ ${uuidArray(scope.datasetIds)}`
          : undefined,
        after ? or(lt(auditLog.at, after[0]), and(eq(auditLog.at, after[0]), lt(auditLog.id, after[1]))) : undefined,
      ),
    )
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(limit + 1);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor([last.at.toISOString(), last.id]) : null };
}
