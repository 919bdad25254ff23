import { createHash, randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { entities } from "../db/schema";
import { NotFoundError } from "../errors";
import { purgeGraph, type Subject } from "./graph";
import { purgeRuns, type PurgeStamp } from "./runs";
import { inIds, PurgedTables, RedactedTables, zeroTally } from "./tally";

/*
 * subjects.purge (#5): deletes a person's data (by the app's userId, or by their entity) from the
 * given datasets, in one transaction: the texts and all stored from them (graph.ts), and what the
 * run logs kept of them (runs.ts). Per dataset:
 *   texts    the user's; or those naming the entity or stating a fact about it
 *   graph    their chunks, facts and mentions; the entities left unsupported; the BM25 statistics
 *   runs     remember runs that stored them (and, by userId, every run naming the user): params
 *            replaced by the stamp, inferences and stage outputs deleted; query runs whose receipts
 *            cite a deleted row likewise; other remember runs' candidate outputs that cite one
 */

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
  /** runs in the purge's transaction with the receipt: the audit event commits with the purge */
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
  return db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const targets = "entityId" in subject ? await holding(tx, args.datasets, subject.entityId) : args.datasets;
    for (const ds of targets) {
      const gone = await purgeGraph(tx, ds.id, subject, deleted);
      await purgeRuns(tx, ds.id, subject, gone, stamp, deleted, redacted);
    }
    const receipt: PurgeReceipt = { id, at, subject: { kind, ref }, datasets: targets.map((d) => d.name), deleted, redacted };
    await args.record?.(tx, receipt);
    return receipt;
  });
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
