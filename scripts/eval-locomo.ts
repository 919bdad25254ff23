import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { parseEnv } from "../src/env";
import { createApp } from "../src/server/app";
import { openDatabase } from "../src/server/db/client";
import { queryRows } from "../src/server/db/rows";
import { createDataset, allDatasets } from "../src/server/datasets/datasets";
import { LOCAL_CALLER } from "../src/server/auth/caller";
import { ask } from "../src/server/query/ask";
import { submitRemember } from "../src/server/remember/submit";
import { LIST_NAMES, type ListName } from "../src/server/query/lists/registry";
import { Sample, sessions } from "./eval/locomo-format";
import { scoreRanking } from "./eval/scoring";
import { ablationTable, categoryTable, conversationTable, render, type Scored } from "./eval/tables";

/*
 * npm run eval:locomo -- --file <path> [--k 10] [--samples conv-26,conv-30] [--data-dir DIR] [--verbose]
 *                         [--ablate LIST[,LIST…] | --ablate all]
 *
 * --data-dir keeps the remembered conversations in a PGlite data dir and reuses them on the next
 * run (to measure a change to retrieval without remembering again); --verbose prints the misses.
 * Remembers every turn of each conversation as one text (source id = dia_id, speaker, occurredAt
 * = the session's date) into a fresh dataset, asks every question of categories 1–4, and prints
 * recall@5, recall@k and MRR of the evidence dia_ids among the sources, per category and per
 * conversation (with each category's recall@k). --ablate asks every question again without each
 * list named (retrieve_graph's lists, src/server/query/lists/registry.ts; `all` for each in turn)
 * and prints the ablation table: overall and per-conversation change from the run with all lists.
 * Runs on an in-memory PGlite (or DATABASE_URL) with the configured models (builtin by default).
 */

const { values } = parseArgs({
  options: {
    file: { type: "string" },
    k: { type: "string", default: "10" },
    samples: { type: "string" },
    "data-dir": { type: "string" },
    verbose: { type: "boolean", default: false },
    ablate: { type: "string" },
  },
});
if (!values.file) {
  console.error("usage: npm run eval:locomo -- --file <locomo.json> [--k 10] [--samples conv-26,conv-30] [--ablate LIST,…|all]");
  process.exit(2);
}
const k = z.coerce.number().int().min(1).max(50).parse(values.k);
const ks = [...new Set([5, k])].sort((a, b) => a - b);
const wanted = values.samples?.split(",").map((s) => s.trim());
const samples = z
  .array(Sample)
  .parse(JSON.parse(readFileSync(values.file, "utf8")))
  .filter((s) => !wanted || wanted.includes(s.sample_id));
if (samples.length === 0) throw new Error(`no sample of ${values.file} matches --samples ${values.samples}`);
const ablate: ListName[] =
  values.ablate === undefined ? [] : values.ablate === "all" ? LIST_NAMES : z.array(z.enum(LIST_NAMES as [ListName, ...ListName[]])).parse(values.ablate.split(",").map((x) => x.trim()));
/** the runs of questions: with every list, then without each ablated one */
const runs: { name: string; skip: ListName[]; scores: Scored[] }[] = [
  { name: "all lists", skip: [], scores: [] },
  ...ablate.map((list) => ({ name: `without ${list}`, skip: [list], scores: [] as Scored[] })),
];

const env = parseEnv({ ...process.env, GB_MODELS: process.env.GB_MODELS ?? "builtin" });
const dataDir = values["data-dir"];
const database = env.DATABASE_URL ? undefined : await openDatabase({ driver: "pglite", dataDir });
const app = await createApp({ env, database, pollMs: 10 });

const started = performance.now();
// progress: one line rewritten in a terminal, a line now and then elsewhere (CI, pipes)
let lastLine = 0;
const line = (text: string) => {
  if (process.stdout.isTTY) process.stdout.write(`\r${text.padEnd(100)}`);
  else if (text && performance.now() - lastLine > 5000) {
    lastLine = performance.now();
    console.log(text);
  }
};

for (const sample of samples) {
  const turns = sessions(sample).flatMap((s) => s.turns.map((t) => ({ ...t, date: s.date, session: s.index })));
  const name = dataDir ? `locomo-${sample.sample_id.toLowerCase()}` : `locomo-${sample.sample_id.toLowerCase()}-${Date.now().toString(36)}`;
  const existing = dataDir ? (await allDatasets({ db: app.database.db, scope: LOCAL_CALLER })).find((d) => d.name === name) : undefined;
  const ds = existing ?? (await createDataset({ db: app.database.db, caller: LOCAL_CALLER, input: { name } }));
  let last = "";
  if (existing) console.log(`${sample.sample_id}: reusing the remembered dataset ${name} in ${dataDir}`);
  for (const [i, t] of existing ? [] : turns.entries()) {
    const r = await submitRemember({
      app,
      input: {
        dataset: ds.name,
        text: t.text,
        source: { kind: "locomo-turn", id: t.dia_id, speaker: t.speaker },
        // a chat session is a series: its turns in order
        series: `${sample.sample_id}/session_${t.session}`,
        occurredAt: t.date ?? undefined,
      },
      caller: LOCAL_CALLER,
    });
    last = r.rememberRunId;
    if (i % 25 === 0) line(`${sample.sample_id}: queued ${i + 1}/${turns.length} turns`);
  }
  // one dataset runs in submission order: when the last is done, all are
  for (; last; ) {
    const done = await app.remember.waitFor(last, 2000).catch(() => null);
    if (done) break;
    // progress: how many of this dataset's runs have ended
    const rows = await queryRows<{ n: number }>(
      app.database.db,
      sql`SELECT count(*) FILTER (WHERE status IN ('succeeded','failed'))::int AS n FROM gb_remember_runs WHERE dataset_id = ${ds.id}`,
    );
    line(`${sample.sample_id}: remembered ${rows[0]?.n ?? "?"}/${turns.length} turns`);
  }
  const questions = sample.qa.filter((q) => q.category >= 1 && q.category <= 4);
  for (const run of runs) {
    for (const [i, q] of questions.entries()) {
      const r = await ask({ app, input: { dataset: ds.name, question: q.question, limit: Math.max(...ks) }, caller: LOCAL_CALLER, skipLists: run.skip });
      const ids = r.sources.map((s) => s.source.id ?? "");
      const s = scoreRanking(ids, q.evidence, ks);
      run.scores.push({ sample: sample.sample_id, category: q.category, recall: s.recall, rr: s.reciprocalRank });
      if (values.verbose && run.skip.length === 0 && s.recall[k] === 0) console.log(`\nmiss [${q.category}] ${q.question} evidence=${q.evidence.join(",")} got=${ids.join(",")}`);
      if (i % 10 === 0) line(`${sample.sample_id}: ${run.name}: asked ${i + 1}/${questions.length} questions`);
    }
  }
}
if (process.stdout.isTTY) process.stdout.write(`\r${"".padEnd(100)}\r`);

const full = runs[0]!.scores;
console.log(`LoCoMo retrieval, ${samples.map((s) => s.sample_id).join(", ")}, ${app.provider.name} models, ${((performance.now() - started) / 1000).toFixed(0)} s`);
console.log(render(categoryTable(full, ks)));
console.log(`\nper conversation\n${render(conversationTable(full, ks, k))}`);
if (runs.length > 1) console.log(`\nablation: each run without one list\n${render(ablationTable(runs, k))}`);
await app.close();
