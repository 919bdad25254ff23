import { sql } from "drizzle-orm";
import { RememberStages } from "../../lib/stages";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { NotFoundError } from "../errors";
import { listOutputs, type StageOutput } from "./outputs";

const order = new Map<string, number>(RememberStages.map((s, i) => [s.name, i]));

/** runs.remember.outputs: what each stage of a run kept, in pipeline order, item by item. */
export async function rememberOutputs({ db, id, stage }: { db: Db; id: string; stage?: string }): Promise<StageOutput[]> {
  const [run] = await queryRows<{ dataset_id: string }>(db, sql`SELECT dataset_id FROM gb_remember_runs WHERE id = ${id} LIMIT 1`);
  if (!run) throw new NotFoundError("remember run", id);
  const rows = await listOutputs(db, { datasetId: run.dataset_id, runId: id }, stage);
  return rows.sort((a, b) => (order.get(a.stage) ?? 99) - (order.get(b.stage) ?? 99) || a.itemIndex - b.itemIndex);
}
