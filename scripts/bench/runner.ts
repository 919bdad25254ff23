import { RememberStages } from "../../src/lib/stages";
import { createDataset } from "../../src/server/datasets/datasets";
import { LOCAL_CALLER } from "../../src/server/auth/caller";
import { run, stage } from "../../src/server/pipeline";
import { createRunLog } from "../../src/server/runs/run-log";
import type { BenchDatabase } from "./databases";

/**
 * Runner + run-log cost per stage: a pipeline of no-op stages (the remember table's 12 names),
 * run N times with the run-log observer (row insert, two updates per stage, finish), next to the
 * same loop with no observer. Target (PRODUCT.md §10a): ≤ 1 ms on the server, ≤ 3 ms on PGlite.
 */
const steps = RememberStages.map((s) => stage<null>({ name: s.name, run: () => {} }));

export async function benchRunner(dbs: BenchDatabase[], runs: number): Promise<string[][]> {
  const bareStart = performance.now();
  for (let i = 0; i < runs; i++) await run(steps, null, null);
  const bareMs = performance.now() - bareStart;

  const rows: string[][] = [];
  for (const { name, database } of dbs) {
    const ds = await createDataset({ db: database.db, caller: LOCAL_CALLER, input: { name: `bench-${Date.now().toString(36)}` } });
    // warm-up: the first statements pay for planning and connections
    for (let i = 0; i < 20; i++) {
      const log = await createRunLog(database.db, "remember", { datasetId: ds.id, userId: null, params: {} });
      await run(steps, null, log);
      await log.finish(null);
    }
    const start = performance.now();
    for (let i = 0; i < runs; i++) {
      const log = await createRunLog(database.db, "remember", { datasetId: ds.id, userId: null, params: { i } });
      await run(steps, null, log);
      await log.finish(null);
    }
    const ms = performance.now() - start;
    const perStage = (ms - bareMs) / (runs * steps.length);
    const target = name === "postgres" ? 1 : 3;
    rows.push([
      name,
      String(runs),
      String(steps.length),
      (bareMs / (runs * steps.length)).toFixed(4),
      (ms / (runs * steps.length)).toFixed(3),
      perStage.toFixed(3),
      `${target}`,
      perStage <= target ? "yes" : "NO",
      `${(ms / bareMs).toFixed(0)}×`,
    ]);
  }
  return [["db", "runs", "stages", "bare ms/stage", "logged ms/stage", "overhead ms/stage", "target ≤", "met", "logged/bare"], ...rows];
}
