import type { sql } from "drizzle-orm";
import { parseEnv } from "../../src/env";
import { createApp } from "../../src/server/app";
import { LOCAL_CALLER } from "../../src/server/auth/caller";
import type { Db } from "../../src/server/db/client";
import { placeNames } from "../../src/server/enrich/geo/intent";
import { ask } from "../../src/server/query/ask";
import { termWeights } from "../../src/server/query/bm25";
import { namedPeriod } from "../../src/server/query/fusion";
import { listsDbFor, listsSql } from "../../src/server/query/retrieve";
import { explainAnalyzed } from "../../src/server/db/explain";
import type { BenchDatabase } from "./databases";
import { pct, postgresCpuMs, question, QUESTION_SHAPES } from "./query";
import { seedGraph } from "./seed";

/*
 * Where a query.ask's time goes (#16), for each of the bench's question shapes at one size, with
 * builtin models: the wall time, the CPU this process spends a query (on PGlite its database's
 * too: it runs in a thread of this process) and the Postgres server's, and the lists' one
 * statement (the place part with it, as retrieve_graph sends it) under EXPLAIN ANALYZE: its
 * planning, its execution and each part's. EXPLAIN's clock adds to what it times: the parts are
 * for comparing with each other and with an earlier run, not for adding up to the wall time.
 */

interface PlanNode {
  "Subplan Name"?: string;
  "Actual Total Time"?: number;
  Plans?: PlanNode[];
}

interface Explained {
  planning: number;
  execution: number;
  parts: Map<string, number>;
}

async function explain(db: Db, statement: ReturnType<typeof sql>, prepared: boolean): Promise<Explained> {
  const plan = await explainAnalyzed<PlanNode>(db, statement, { prepared });
  const parts = new Map<string, number>();
  const walk = (n: PlanNode) => {
    const name = /^CTE part_(\w+)$/.exec(n["Subplan Name"] ?? "")?.[1];
    if (name) parts.set(name, n["Actual Total Time"] ?? 0);
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(plan.Plan);
  return { planning: plan["Planning Time"], execution: plan["Execution Time"], parts };
}

const median = (xs: number[]) => pct(xs, 50);
const f = (x: number) => x.toFixed(2);

/** Two tables: the time and CPU a query of each shape, and its lists' statement part by part. */
export async function benchQueryProfile(dbs: BenchDatabase[], size: number, queries: number): Promise<[string[][], string[][]]> {
  const cpu: string[][] = [["db", "facts", "question", "queries", "wall p50 ms", "process cpu ms/query", "postgres cpu ms/query"]];
  const parts: string[][] = [["db", "facts", "question", "part", "ms (median of 5)"]];
  for (const { name, database, url } of dbs) {
    const app = await createApp({ env: parseEnv({ GB_MODELS: "builtin" }), database, worker: false });
    const local = name === "postgres" && /@(127\.0\.0\.1|localhost)[:/]/.test(url ?? "");
    try {
      const { datasetName, datasetId, people } = await seedGraph(database.db, size);
      const asked = (i: number) => ask({ app, input: { dataset: datasetName, question: question(i, people), limit: 10 }, caller: LOCAL_CALLER });
      for (let i = 0; i < 30; i++) await asked(i); // warm-up
      for (const [shape, label] of QUESTION_SHAPES.entries()) {
        const walls: number[] = [];
        const cpu0 = { process: process.cpuUsage(), postgres: local ? postgresCpuMs() : null };
        for (let k = 0; k < queries; k++) {
          const t = performance.now();
          await asked(3 * k + shape);
          walls.push(performance.now() - t);
        }
        const used = process.cpuUsage(cpu0.process);
        const pg = local ? postgresCpuMs() : null;
        cpu.push([name, String(size), label, String(queries), f(median(walls)), f((used.user + used.system) / 1000 / queries), cpu0.postgres === null || pg === null ? "-" : f((pg - cpu0.postgres) / queries)]);

        // the lists' statement of one question of this shape, as retrieve_graph builds it
        const q = question(shape, people);
        const weights = await termWeights(database.db, datasetId, q);
        const lq = { db: database.db, listsDb: database.genericDb, datasetId, question: q, vector: null, asOf: null, pgvector: database.vector, dimensions: 0, period: namedPeriod(q, new Date()), weights };
        const statement = listsSql(lq, { place: placeNames(datasetId, q) ?? undefined });
        if (!statement) continue;
        // on the connections retrieve_graph sends it to, as it plans it there (a generic plan: planned once, as prepared)
        const db = listsDbFor(lq);
        const prepared = database.driver === "postgres" && db === database.genericDb;
        const runs: Explained[] = [];
        for (let k = 0; k < 5; k++) runs.push(await explain(db, statement, prepared));
        parts.push([name, String(size), label, "planning", f(median(runs.map((r) => r.planning)))]);
        parts.push([name, String(size), label, "execution", f(median(runs.map((r) => r.execution)))]);
        for (const part of runs[0]!.parts.keys()) parts.push([name, String(size), label, `execution: ${part}`, f(median(runs.map((r) => r.parts.get(part) ?? 0)))]);
      }
    } finally {
      await app.stop();
    }
  }
  return [cpu, parts];
}
