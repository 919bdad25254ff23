import { randomUUID } from "node:crypto";
import { and, asc, count, eq, gt, inArray, not, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { announce, forgetHere, lookupsOf } from "../db/lookups";
import { datasets, DEFAULT_TEAM_ID, teams } from "../db/schema";
import { DatasetTables } from "../db/dataset-tables";
import { queryRows } from "../db/rows";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors";
import { actorOf, recordAudit } from "../auth/audit";
import { type Caller, inScope, type Scope } from "../auth/caller";
import { decodeCursor, encodeCursor } from "../cursor";
import { type CreateDatasetInput, DEFAULT_DATASET, type DeleteDatasetInput, type ListDatasetsInput } from "./schemas";
import { turn } from "../slices";

/*
 * Datasets belong to a team. Every verb finds its dataset through resolveDataset or
 * datasetInScope with the caller's Scope: a dataset of another team, or one an API key is not
 * restricted to, is "not found" (its existence is not revealed).
 */

export interface Dataset {
  id: string;
  name: string;
  teamId: string;
  createdAt: Date;
}

const inScopeOf = (scope: Scope) =>
  and(eq(datasets.teamId, scope.teamId), not(deleting), scope.datasetIds ? inArray(datasets.id, [...scope.datasetIds]) : undefined);

/** Every dataset the caller may see, by name (a team has at most GB_MAX_DATASETS_PER_TEAM). */
export async function allDatasets({ db, scope }: { db: Db; scope: Scope }): Promise<Dataset[]> {
  return db.select().from(datasets).where(inScopeOf(scope)).orderBy(asc(datasets.name), asc(datasets.id));
}

export interface DatasetPage {
  items: Dataset[];
  nextCursor: string | null;
}

/** datasets.list: the caller's datasets by name, a page at a time, paged by (name, id). */
export async function listDatasets({ db, scope, input }: { db: Db; scope: Scope; input: ListDatasetsInput }): Promise<DatasetPage> {
  const after = input.cursor ? decodeCursor(input.cursor, ["text", "uuid"]) : null;
  const rows = await db
    .select()
    .from(datasets)
    .where(
      and(
        inScopeOf(scope),
        after ? or(gt(datasets.name, after[0]), and(eq(datasets.name, after[0]), gt(datasets.id, after[1]))) : undefined,
      ),
    )
    .orderBy(asc(datasets.name), asc(datasets.id))
    .limit(input.limit + 1);
  const items = rows.slice(0, input.limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > input.limit && last ? encodeCursor([last.name, last.id]) : null };
}

/**
 * Makes a dataset of the caller's team. With `maxPerTeam`, a team that has that many already is
 * refused (CONFLICT: the name is fine, the team is full; deleting one makes room). The count runs
 * under a lock of the team's row, so concurrent creates cannot together pass the cap.
 */
export async function createDataset({
  db,
  caller,
  input,
  maxPerTeam,
}: {
  db: Db;
  caller: Caller;
  input: CreateDatasetInput;
  /** omitted: no cap (start-up's default dataset, scripts run on the machine) */
  maxPerTeam?: number;
}): Promise<Dataset> {
  // it could not see what it made: its datasets are a fixed list
  if (caller.datasetIds !== null) throw new ForbiddenError("a key restricted to some datasets cannot make new ones");
  return db.transaction(async (tx) => {
    if (maxPerTeam !== undefined) {
      // NO KEY UPDATE: creates of one team wait for each other, yet rows that merely reference
      // the team (keys, members: a FOR KEY SHARE check) do not wait for them
      await tx.select({ id: teams.id }).from(teams).where(eq(teams.id, caller.teamId)).for("no key update");
      const [n] = await tx.select({ n: count() }).from(datasets).where(eq(datasets.teamId, caller.teamId));
      if ((n?.n ?? 0) >= maxPerTeam) {
        throw new ConflictError(`the team has ${maxPerTeam} datasets, the most it may have (GB_MAX_DATASETS_PER_TEAM): delete one to make room`);
      }
    }
    const rows = await tx
      .insert(datasets)
      .values({ id: randomUUID(), teamId: caller.teamId, name: input.name, createdAt: new Date() })
      .onConflictDoNothing({ target: [datasets.teamId, datasets.name] })
      .returning();
    const row = rows[0];
    if (!row) throw new ConflictError(`dataset "${input.name}" already exists`);
    await recordAudit(tx, {
      teamId: caller.teamId,
      actor: actorOf(caller),
      action: "dataset.create",
      target: row.name,
      details: { datasetId: row.id },
      datasetIds: [row.id],
    });
    return row;
  });
}

/**
 * The caller's dataset of that name, or NotFoundError. Cached per process (db/lookups.ts; a
 * deletion is honoured at once where it was made, within 5 s elsewhere) unless `fresh`.
 */
export async function resolveDataset(db: Db, name: string, scope: Scope, { fresh = false } = {}): Promise<Dataset> {
  const load = async () => {
    const [row] = await db
      .select()
      .from(datasets)
      .where(and(eq(datasets.teamId, scope.teamId), eq(datasets.name, name)))
      .limit(1);
    return row ?? null;
  };
  const cache = fresh ? undefined : lookupsOf(db);
  const row = await (cache ? cache.dataset(scope.teamId, name, load) : load());
  if (!row || !inScope(scope, row.id)) throw new NotFoundError("dataset", name);
  return row;
}

/** The dataset of a row found by id, when the caller may see it; else undefined. */
export async function datasetInScope(db: Db, id: string, scope: Scope): Promise<Dataset | undefined> {
  if (!inScope(scope, id)) return undefined;
  const [row] = await db
    .select()
    .from(datasets)
    .where(and(eq(datasets.id, id), eq(datasets.teamId, scope.teamId), not(deleting)))
    .limit(1);
  return row;
}

/** Creates the default team's default dataset if it is missing; concurrent starts are safe. */
export async function ensureDefaultDataset(db: Db): Promise<void> {
  await db
    .insert(datasets)
    .values({ id: randomUUID(), teamId: DEFAULT_TEAM_ID, name: DEFAULT_DATASET, createdAt: new Date() })
    .onConflictDoNothing({ target: [datasets.teamId, datasets.name] });
}

export interface DatasetDeletion {
  dataset: string;
  at: Date;
  /** rows deleted per table */
  deleted: Record<string, number>;
}

/** Rows deleted per statement when a dataset is deleted. */
export const DELETE_BATCH = 2000;

/**
 * A dataset being deleted is renamed to this at once: no name a caller can give (DatasetName
 * refuses the dot), so it is found by no verb, and lists leave it out.
 */
const DELETING = ".deleting.";
const deleting = sql`${datasets.name} LIKE ${`${DELETING}%`}`;

/**
 * Deletes a dataset and everything in it. First, in one transaction, the dataset is hidden (its
 * name becomes a tombstone) and its queued runs go, so nothing more is written to it; then the
 * rows of every table with a dataset_id (DatasetTables, read from the schema) go DELETE_BATCH at
 * a time, the event loop turning between statements (one transaction for a big dataset held
 * PGlite, and so the whole process, for as long as it took); last the dataset row and the audit
 * event. A deletion that was interrupted is finished by the next datasets.delete of any dataset
 * (finishDeletions).
 */
export async function deleteDataset({ db, caller, input }: { db: Db; caller: Caller; input: DeleteDatasetInput }): Promise<DatasetDeletion> {
  await finishDeletions(db);
  // as it is now, not as a cache saw it: another process may have deleted it a moment ago
  const dataset = await resolveDataset(db, input.name, caller, { fresh: true });
  if (dataset.teamId === DEFAULT_TEAM_ID && dataset.name === DEFAULT_DATASET) {
    throw new ValidationError("name", "the default dataset cannot be deleted");
  }
  const deleted = zero();
  await db.transaction(async (tx) => {
    // a remember run being worked on would write into a deleted dataset: refuse while one runs
    const [busy] = await queryRows<{ n: number }>(
      tx,
      sql`SELECT count(*)::int AS n FROM gb_remember_runs WHERE dataset_id = ${dataset.id} AND status = 'started'`,
    );
    if ((busy?.n ?? 0) > 0) throw new ConflictError(`dataset "${dataset.name}" has a remember run in progress; try again when it has ended`);
    await tx.update(datasets).set({ name: `${DELETING}${dataset.id}` }).where(eq(datasets.id, dataset.id));
    // the other processes forget it as this commits (db/lookups.ts)
    await announce(tx, { kind: "dataset", id: dataset.id });
    // and none is claimed from now on
    const [queued] = await queryRows<{ n: number }>(
      tx,
      sql`WITH d AS (DELETE FROM gb_remember_runs WHERE dataset_id = ${dataset.id} AND status = 'queued' RETURNING 1) SELECT count(*)::int AS n FROM d`,
    );
    deleted.gb_remember_runs = (deleted.gb_remember_runs ?? 0) + (queued?.n ?? 0);
  });
  // and this one at once
  forgetHere(db, { kind: "dataset", id: dataset.id });
  return finishDeletion(db, { ...dataset, name: dataset.name }, actorOf(caller), deleted);
}

const zero = (): Record<string, number> => Object.fromEntries(DatasetTables.map((t) => [t, 0]));

async function finishDeletion(db: Db, dataset: Dataset, actor: ReturnType<typeof actorOf>, deleted: Record<string, number>): Promise<DatasetDeletion> {
  for (const table of DatasetTables) {
    const t = sql.identifier(table);
    for (;;) {
      await turn();
      const [r] = await queryRows<{ n: number }>(
        db,
        sql`WITH d AS (DELETE FROM ${t} WHERE ctid IN (SELECT ctid FROM ${t} WHERE dataset_id = ${dataset.id} LIMIT ${DELETE_BATCH}) RETURNING 1)
            SELECT count(*)::int AS n FROM d`,
      );
      deleted[table] = (deleted[table] ?? 0) + (r?.n ?? 0);
      if ((r?.n ?? 0) < DELETE_BATCH) break;
    }
  }
  const at = new Date();
  await db.transaction(async (tx) => {
    await tx.delete(datasets).where(eq(datasets.id, dataset.id));
    await recordAudit(tx, { teamId: dataset.teamId, actor, action: "dataset.delete",
      target: dataset.name,
      details: { datasetId: dataset.id, deleted: { ...deleted, datasets: 1 } },
      datasetIds: [dataset.id],
    });
  });
  return { dataset: dataset.name, at, deleted: { ...deleted, datasets: 1 } };
}

/** Finishes the deletions that were interrupted (a crash, a restart): their datasets are still tombstones. */
export async function finishDeletions(db: Db): Promise<number> {
  const left = await db.select().from(datasets).where(deleting);
  for (const d of left) {
    await finishDeletion(db, { ...d, name: d.name.slice(DELETING.length) }, { kind: "system", id: null, label: "system (an interrupted deletion, finished)" }, zero());
  }
  return left.length;
}
