import { randomUUID } from "node:crypto";
import { and, desc, eq, lt, or } from "drizzle-orm";
import type { Db } from "../db/client";
import { auditLog } from "../db/schema";
import { decodeCursor, encodeCursor } from "../cursor";
import type { Caller } from "./caller";

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
  });
}

export interface AuditPage {
  items: (typeof auditLog.$inferSelect)[];
  nextCursor: string | null;
}

/** The team's events, newest first, paged by (at, id). */
export async function listAudit({ db, teamId, cursor, limit }: { db: Db; teamId: string; cursor?: string; limit: number }): Promise<AuditPage> {
  const after = cursor ? decodeCursor(cursor, ["timestamp", "uuid"]) : null;
  const rows = await db
    .select()
    .from(auditLog)
    .where(
      and(
        eq(auditLog.teamId, teamId),
        after ? or(lt(auditLog.at, after[0]), and(eq(auditLog.at, after[0]), lt(auditLog.id, after[1]))) : undefined,
      ),
    )
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(limit + 1);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor([last.at.toISOString(), last.id]) : null };
}
