import { createHash, randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { entities } from "../db/schema";
import { NotFoundError } from "../errors";
import { batches, purgeGraph, type Subject, subjectTexts } from "./graph";
import { turn } from "../slices";
import { purgeRuns, type PurgeStamp } from "./runs";
import { inIds, PurgedTables, RedactedTables, zeroTally } from "./tally";
import { clearUserIn } from "../stm/stm";
import type { MessageCache } from "../stm/cache";

/*
 * subjects.purge (#5): deletes a person's data (by the app's userId, or by their entity) from the
 * given datasets: the texts and all stored from them (graph.ts), and what the run logs kept of
 * them (runs.ts). Per dataset:
 *   texts    the user's; or those naming the entity or stating a fact about it
 *   graph    their chunks, facts and mentions; the entities left unsupported; the BM25 statistics
 *   runs     remember runs that stored them (and, by userId, every run naming the user): params
 *            replaced by the stamp, inferences and stage outputs deleted; query runs whose receipts
 *            cite a deleted row likewise; other remember runs' candidate outputs that cite one
 *
 * In batches (#11): one transaction per PURGE_BATCH texts of one dataset, the event loop turning
 * between them, so that a purge across a thousand datasets does not hold every other request
 * (on PGlite one long transaction held the process for 42 s). Every batch leaves the graph
 * consistent: a batch deletes whole texts with everything stored from them. A purge that is
 * interrupted is run again to finish (it finds what is left); each call's receipt counts what
 * that call deleted. Then the tables are vacuumed (outside any transaction, one at a time).
 */

/** Texts of one dataset deleted per transaction. */
export const PURGE_BATCH = 50;

export interface PurgeReceipt {
  id: string;
  at: Date;
  /** ref: the value's sha256, first 16 hex digits; the receipt does not keep the person's id */
  subject: { kind: "userId" | "entityId"; ref: string };
  /** the names of the datasets purged */
  datasets: string[];
  /** rows deleted per table, every table listed */
  deleted: Record<string, number>;
  /** run-log rows whose params were replaced by the stamp */
  redacted: Record<string, number>;
  /** the tables vacuumed after the purge */
  vacuumed: string[];
}

export interface PurgeActor {
  kind: "user" | "key" | "system";
  id: string | null;
  label: string;
}

export async function purgeSubject(args: {
  db: Db;
  datasets: { id: string; name: string }[];
  subject: Subject;
  actor: PurgeActor;
  /** texts per transaction (default PURGE_BATCH) */
  batchSize?: number;
  /** short-term memory's message cache, whose messages of the user go at once (without it, the rows alone) */
  stmCache?: MessageCache;
  /** records the receipt (the audit event), in a transaction of its own after the last batch */
  record?: (tx: Db, receipt: PurgeReceipt) => Promise<void>;
}): Promise<PurgeReceipt> {
  const { db, subject } = args;
  const [kind, value] = "userId" in subject ? (["userId", subject.userId] as const) : (["entityId", subject.entityId] as const);
  const id = randomUUID();
  const at = new Date();
  const stamp: PurgeStamp = { purged: { id, at: at.toISOString(), by: args.actor.label } };
  const deleted = zeroTally(PurgedTables);
  const redacted = zeroTally(RedactedTables);
  const ref = createHash("sha256").update(value).digest("hex").slice(0, 16);
  const targets = "entityId" in subject ? await holding(db, args.datasets, subject.entityId) : args.datasets;
  for (const ds of targets) {
    const found = await subjectTexts(db, ds.id, subject);
    for (const batch of batches(found, args.batchSize ?? PURGE_BATCH)) {
      await turn();
      await db.transaction(async (t) => {
        const tx = t as unknown as Db;
        const gone = await purgeGraph(tx, ds.id, subject, batch, deleted);
        await purgeRuns(tx, ds.id, subject, gone, stamp, deleted, redacted);
      });
    }
    // a person's short-term memory goes with them (#14): an entity has none
    if ("userId" in subject) {
      const stm = await clearUserIn(args.stmCache, db, ds.id, subject.userId);
      for (const [table, n] of Object.entries(stm.rows) as [keyof typeof stm.rows, number][]) deleted[table] += n;
    }
  }
  const receipt: PurgeReceipt = { id, at, subject: { kind, ref }, datasets: targets.map((d) => d.name), deleted, redacted, vacuumed: [] };
  if (args.record) await db.transaction((tx) => args.record!(tx as unknown as Db, receipt));
  receipt.vacuumed = await vacuum(db, [...PurgedTables, ...RedactedTables]);
  return receipt;
}

/**
 * VACUUM each table (not inside a transaction: Postgres refuses), so that the deleted rows' space
 * is cleaned of them now rather than when autovacuum (Postgres) or nothing (PGlite) gets to it.
 * What may still hold the data afterwards is in the README (Purge). Returns the tables vacuumed.
 */
export async function vacuum(db: Db, tables: readonly string[]): Promise<string[]> {
  const done: string[] = [];
  for (const t of tables) {
    await turn();
    await db.execute(sql`VACUUM ${sql.identifier(t)}`);
    done.push(t);
  }
  return done;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The given dataset that holds the entity, or NotFoundError (one outside them is not found either). */
async function holding(tx: Db, datasets: { id: string; name: string }[], entityId: string) {
  // not an id at all: not found, rather than Postgres's uuid syntax error
  if (!UUID.test(entityId)) throw new NotFoundError("entity", entityId);
  const rows = await tx
    .select({ datasetId: entities.datasetId })
    .from(entities)
    .where(and(eq(entities.id, entityId), inArray(entities.datasetId, inIds(datasets.map((d) => d.id)))));
  const found = datasets.filter((d) => rows.some((r) => r.datasetId === d.id));
  if (found.length === 0) throw new NotFoundError("entity", entityId);
  return found;
}

/** Rows per purged table within the datasets (tests compare them with a receipt). */
export async function countRows(db: Db, datasetIds: string[]): Promise<Record<string, number>> {
  const parts = PurgedTables.map((t) => sql`(SELECT count(*)::int FROM ${sql.identifier(t)} WHERE dataset_id IN ${inIds(datasetIds)}) AS ${sql.identifier(t)}`);
  const [row] = await queryRows<Record<string, number>>(db, sql`SELECT ${sql.join(parts, sql`, `)}`);
  return { ...row };
}
