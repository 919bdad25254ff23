import { eq } from "drizzle-orm";
import type { RunKind } from "../../lib/stages";
import type { Db } from "../db/client";
import type { Scope } from "../auth/caller";
import { type Dataset, datasetInScope } from "../datasets/datasets";
import { NotFoundError } from "../errors";
import { runLogs } from "./tables";

/** The dataset of a run the caller may see; another team's run is NOT_FOUND, like an unknown one. */
export async function runDataset({ db, scope, kind, id }: { db: Db; scope: Scope; kind: RunKind; id: string }): Promise<Dataset> {
  const { table } = runLogs[kind];
  const [run] = await db.select({ datasetId: table.datasetId }).from(table).where(eq(table.id, id)).limit(1);
  const dataset = run && (await datasetInScope(db, run.datasetId, scope));
  if (!dataset) throw new NotFoundError(`${kind} run`, id);
  return dataset;
}
