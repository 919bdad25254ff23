import { randomUUID } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { datasets } from "../db/schema";
import { ConflictError, NotFoundError } from "../errors";
import { type CreateDatasetInput, DEFAULT_DATASET } from "./schemas";

export interface Dataset {
  id: string;
  name: string;
  createdAt: Date;
}

export async function listDatasets({ db }: { db: Db }): Promise<Dataset[]> {
  return db.select().from(datasets).orderBy(asc(datasets.name));
}

export async function createDataset({ db, input }: { db: Db; input: CreateDatasetInput }): Promise<Dataset> {
  const rows = await db
    .insert(datasets)
    .values({ id: randomUUID(), name: input.name, createdAt: new Date() })
    .onConflictDoNothing({ target: datasets.name })
    .returning();
  const row = rows[0];
  if (!row) throw new ConflictError(`dataset "${input.name}" already exists`);
  return row;
}

/** The dataset of that name, or NotFoundError. */
export async function resolveDataset(db: Db, name: string): Promise<Dataset> {
  const [row] = await db.select().from(datasets).where(eq(datasets.name, name)).limit(1);
  if (!row) throw new NotFoundError("dataset", name);
  return row;
}

export async function findDatasetById(db: Db, id: string): Promise<Dataset | undefined> {
  const [row] = await db.select().from(datasets).where(eq(datasets.id, id)).limit(1);
  return row;
}

/** Creates the default dataset if it is missing; concurrent starts are safe. */
export async function ensureDefaultDataset(db: Db): Promise<void> {
  await db
    .insert(datasets)
    .values({ id: randomUUID(), name: DEFAULT_DATASET, createdAt: new Date() })
    .onConflictDoNothing({ target: datasets.name });
}
