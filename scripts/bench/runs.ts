import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { RememberStages } from "../../src/lib/stages";
import { LOCAL_CALLER } from "../../src/server/auth/caller";
import { groupKeys } from "../../src/server/db/schema/stage-group";
import { createDataset } from "../../src/server/datasets/datasets";
import { listRuns } from "../../src/server/runs/list";
import type { ListRunsInput } from "../../src/server/runs/schemas";
import type { BenchDatabase } from "./databases";
import { pct } from "./query";

/**
 * The admin run list on a dataset with many runs (#6: "nothing breaks on a dataset with 100k
 * runs"): the first page with the tiles' counts, a status filter, the flagged filter, and the
 * 20th page by cursor. Runs are inserted by SQL (a mix of statuses, 1% flagged).
 */
export async function benchRunsList(dbs: BenchDatabase[], size: number, repeats: number): Promise<string[][]> {
  const rows: string[][] = [["db", "runs", "page", "p50 ms", "p99 ms"]];
  for (const { name, database } of dbs) {
    const db = database.db;
    const ds = await createDataset({ db, caller: LOCAL_CALLER, input: { name: `bench-runs-${randomUUID().slice(0, 8)}` } });
    // the first stage's status decides "flagged"
    const flaggedBy = sql.identifier(groupKeys(RememberStages[0]).status);
    await db.execute(sql`
      INSERT INTO gb_remember_runs (id, dataset_id, params, status, created_at, started_at, finished_at, ${flaggedBy})
      SELECT gen_random_uuid(), ${ds.id}, '{"text":"bench"}'::jsonb,
             CASE WHEN i % 50 = 0 THEN 'failed' WHEN i % 97 = 0 THEN 'queued' ELSE 'succeeded' END,
             now() - make_interval(secs => i), now() - make_interval(secs => i), now() - make_interval(secs => i) + interval '80 ms',
             CASE WHEN i % 100 = 1 THEN 'failed' ELSE 'succeeded' END
      FROM generate_series(1, ${size}) AS i`);
    await db.execute(sql`ANALYZE gb_remember_runs`);
    const input = (extra: Partial<ListRunsInput>): ListRunsInput => ({ dataset: ds.name, limit: 50, ...extra });
    let cursor: string | undefined;
    for (let p = 0; p < 19; p++) cursor = (await listRuns({ db, scope: LOCAL_CALLER, kind: "remember", input: input({ cursor }) })).nextCursor ?? undefined;
    const cases: [string, ListRunsInput][] = [
      ["first page + counts", input({})],
      ["status=failed", input({ status: "failed" })],
      ["flagged", input({ flagged: true })],
      ["20th page (cursor)", input({ cursor })],
    ];
    for (const [label, q] of cases) {
      const times: number[] = [];
      for (let i = 0; i < repeats; i++) {
        const t = performance.now();
        await listRuns({ db, scope: LOCAL_CALLER, kind: "remember", input: q });
        times.push(performance.now() - t);
      }
      rows.push([name, String(size), label, pct(times, 50).toFixed(1), pct(times, 99).toFixed(1)]);
    }
  }
  return rows;
}
