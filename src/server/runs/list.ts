import { and, count, desc, eq, getTableColumns, getTableName, type SQL, sql } from "drizzle-orm";
import { type RunKind, RunStatuses, type RunStatus } from "../../lib/stages";
import type { Db } from "../db/client";
import { anyStageFailedSql } from "../db/schema/stage-group";
import type { Scope } from "../auth/caller";
import { resolveDataset } from "../datasets/datasets";
import { decodeCursor, encodeCursor } from "../cursor";
import type { ListRunsInput } from "./schemas";
import { type RunSummary, summarize } from "./shape";
import { runLogs } from "./tables";

export interface RunList {
  items: RunSummary[];
  nextCursor: string | null;
  /** runs per status for the same dataset and flag filter (not the status filter: the tiles) */
  counts: Record<RunStatus, number>;
}

export async function listRuns({ db, scope, kind, input }: { db: Db; scope: Scope; kind: RunKind; input: ListRunsInput }): Promise<RunList> {
  const { table, stages } = runLogs[kind];
  const dataset = await resolveDataset(db, input.dataset, scope);

  const base: SQL[] = [eq(table.datasetId, dataset.id)];
  if (input.flagged) base.push(sql`${table.status} = 'succeeded' AND ${anyStageFailedSql(stages, getTableName(table))}`);
  const page: SQL[] = [...base];
  if (input.status) page.push(eq(table.status, input.status));
  if (input.cursor) {
    // the (created_at, id) of the last run of a page, newest first
    const [createdAt, id] = decodeCursor(input.cursor, ["timestamp", "uuid"]);
    page.push(sql`(${table.createdAt}, ${table.id}) < (${createdAt.toISOString()}::timestamptz, ${id}::uuid)`);
  }

  // The list leaves out params: a remember's can be a whole document.
  const { params: _params, ...columns } = getTableColumns(table);
  const [rows, grouped] = await Promise.all([
    db
      .select(columns)
      .from(table)
      .where(and(...page))
      .orderBy(desc(table.createdAt), desc(table.id))
      .limit(input.limit + 1),
    db
      .select({ status: table.status, n: count() })
      .from(table)
      .where(and(...base))
      .groupBy(table.status),
  ]);

  const more = rows.length > input.limit;
  const items = rows.slice(0, input.limit).map((r) => summarize(kind, dataset.name, r, stages));
  const last = items.at(-1);
  const counts = Object.fromEntries(RunStatuses.map((s) => [s, 0])) as Record<RunStatus, number>;
  for (const g of grouped) counts[g.status] = Number(g.n);
  return { items, nextCursor: more && last ? encodeCursor([last.createdAt.toISOString(), last.id]) : null, counts };
}
