import { sql } from "drizzle-orm";
import { parseEnv } from "../../src/env";
import { createApp } from "../../src/server/app";
import { LOCAL_CALLER } from "../../src/server/auth/caller";
import { createDataset } from "../../src/server/datasets/datasets";
import { queryRows } from "../../src/server/db/rows";
import { EMBEDDING_DIMENSIONS } from "../../src/server/models/builtin/embed";
import { ask } from "../../src/server/query/ask";
import { submitRemember } from "../../src/server/remember/submit";
import { startBuiltinModelServer } from "./builtin-model-server";
import type { BenchDatabase } from "./databases";
import { mentionsPlace, movesWorkload, type Person } from "./moves-workload";

/*
 * The changed-fact workload (issue #10): remember the texts of moves-workload.ts in one dataset,
 * in order, then ask for every person who moved town "Where does <name> live now?" and for every
 * person who changed shop "Where does <name> work now?". Counted: answers that name a place the
 * person has left (target 0) and answers that name the current one; beside them, from the graph
 * itself, the people with an outdated place still current ("stale") and the people who have no
 * entity of their own (merged into someone else's).
 * Providers: builtin, and openai against a loopback server answering with the builtin algorithms.
 */

export type MovesProvider = "builtin" | "openai";

interface Question {
  question: string;
  current: string;
  outdated: string[];
}

function questions(people: Person[]): Question[] {
  const out: Question[] = [];
  const asked = (places: string[]) => ({ current: places.at(-1)!, outdated: [...new Set(places.slice(0, -1))].filter((p) => p !== places.at(-1)) });
  for (const p of people) {
    if (p.towns.length > 1) out.push({ question: `Where does ${p.name} live now?`, ...asked(p.towns) });
    if (p.shops.length > 1) out.push({ question: `Where does ${p.name} work now?`, ...asked(p.shops) });
  }
  return out;
}

/** From the graph: people with a place they left still current, and people without an entity of their own. */
async function graphCheck(bench: BenchDatabase, datasetId: string, people: Person[]) {
  const rows = await queryRows<{ subject: string; predicate: string; object: string }>(
    bench.database.db,
    sql`SELECT s.name AS subject, f.predicate, coalesce(o.name, f.object_value) AS object
        FROM gb_facts f
        JOIN gb_entities s ON s.dataset_id = f.dataset_id AND s.id = f.subject_id
        LEFT JOIN gb_entities o ON o.dataset_id = f.dataset_id AND o.id = f.object_id
        WHERE f.dataset_id = ${datasetId} AND f.expired_at IS NULL AND (f.invalid_at IS NULL OR f.invalid_at > now())
          AND f.predicate IN ('lives_in', 'works_at')`,
  );
  const current = new Map<string, Set<string>>();
  for (const r of rows) {
    const key = `${r.subject}\u0000${r.predicate}`;
    current.set(key, (current.get(key) ?? new Set()).add(r.object));
  }
  const stale = people.filter((p) =>
    (["lives_in", "works_at"] as const).some((predicate) => {
      const places = predicate === "lives_in" ? p.towns : p.shops;
      const now = current.get(`${p.name}\u0000${predicate}`) ?? new Set();
      return places.slice(0, -1).some((old) => old !== places.at(-1) && now.has(old));
    }),
  ).length;
  const entities = await queryRows<{ name: string }>(
    bench.database.db,
    sql`SELECT name FROM gb_entities WHERE dataset_id = ${datasetId} AND type = 'person'`,
  );
  const named = new Set(entities.map((e) => e.name));
  return { stale, merged: people.filter((p) => !named.has(p.name)).length };
}

/** Every k-th question, so that at most `max` are asked, spread over the whole stream. */
const spread = <T>(xs: T[], max: number): T[] => (xs.length <= max ? xs : xs.filter((_, i) => i % Math.ceil(xs.length / max) === 0));

/** a long run says how far it is, now and then */
const progress = (label: string, done: number, total: number) => {
  if (done % 1000 === 0 || done === total) console.error(`${label}: ${done}/${total}`);
};

async function runMoves(bench: BenchDatabase, provider: MovesProvider, modelUrl: string, size: number, maxQuestions: number): Promise<string[]> {
  const env =
    provider === "builtin"
      ? parseEnv({ GB_MODELS: "builtin" })
      : parseEnv({ GB_MODELS: "openai", OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: modelUrl, GB_EMBEDDING_DIMENSIONS: String(EMBEDDING_DIMENSIONS) });
  const app = await createApp({ env, database: bench.database, pollMs: 20 });
  try {
    const ds = await createDataset({ db: bench.database.db, caller: LOCAL_CALLER, input: { name: `bench-moves-${provider}-${size}-${Date.now().toString(36)}` } });
    const w = movesWorkload(size);
    const start = performance.now();
    const label = `moves ${provider} ${bench.name} ${size}`;
    const ids: string[] = [];
    for (const t of w.texts) {
      ids.push((await submitRemember({ app, input: { dataset: ds.name, text: t.text, occurredAt: t.occurredAt }, caller: LOCAL_CALLER })).rememberRunId);
    }
    for (let i = 999; i < ids.length; i += 1000) {
      await app.remember.waitFor(ids[i]!, 12 * 3600_000);
      progress(`${label}, remembered`, i + 1, ids.length);
    }
    await app.remember.waitFor(ids.at(-1)!, 12 * 3600_000);
    const rememberS = (performance.now() - start) / 1000;
    const [runs] = await queryRows<{ ok: number; all: number }>(
      bench.database.db,
      sql`SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS ok, count(*)::int AS all FROM gb_remember_runs WHERE dataset_id = ${ds.id}`,
    );
    // a run that failed (a lost lease under load, say) is counted, not hidden: its text is missing
    const failed = runs!.all - runs!.ok;

    const qs = spread(questions(w.people), maxQuestions);
    let outdated = 0;
    let current = 0;
    const askStart = performance.now();
    for (const [i, q] of qs.entries()) {
      const r = await ask({ app, input: { dataset: ds.name, question: q.question, limit: 10 }, caller: LOCAL_CALLER });
      if (q.outdated.some((p) => mentionsPlace(r.answer, p))) outdated++;
      if (mentionsPlace(r.answer, q.current)) current++;
      progress(`${label}, asked`, i + 1, qs.length);
    }
    const askS = (performance.now() - askStart) / 1000;
    const moved = w.people.filter((p) => p.towns.length > 1 || p.shops.length > 1);
    const graph = await graphCheck(bench, ds.id, w.people);
    return [
      provider,
      bench.name,
      String(size),
      String(moved.length),
      String(qs.length),
      String(outdated),
      String(current),
      String(graph.stale),
      String(graph.merged),
      String(failed),
      rememberS.toFixed(0),
      (size / rememberS).toFixed(1),
      ((askS * 1000) / qs.length).toFixed(0),
    ];
  } finally {
    await app.stop();
  }
}

/** `maxQuestions` caps the questions of one run (a query's vector scans grow with the dataset). */
export async function benchMoves(dbs: BenchDatabase[], sizes: number[], providers: MovesProvider[], maxQuestions = Infinity): Promise<string[][]> {
  const header = ["provider", "db", "texts", "moved people", "questions", "outdated answers", "current answers", "stale in graph", "people merged", "failed runs", "remember s", "texts/s", "ask ms"];
  const rows = [header];
  const server = await startBuiltinModelServer();
  try {
    for (const provider of providers) {
      for (const bench of dbs) {
        for (const size of sizes) {
          const row = await runMoves(bench, provider, server.url, size, maxQuestions);
          // a 10,000-text run takes a while: show each result as it comes
          console.error(row.map((c, i) => `${header[i]}=${c}`).join(" "));
          rows.push(row);
        }
      }
    }
  } finally {
    await server.close();
  }
  return rows;
}
