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
import { CATEGORIES, Sample, sessions } from "./eval/locomo-format";
import { scoreRanking } from "./eval/scoring";

/*
 * npm run eval:locomo -- --file <path> [--k 10] [--samples conv-26,conv-30] [--data-dir DIR] [--verbose]
 *
 * --data-dir keeps the remembered conversations in a PGlite data dir and reuses them on the next
 * run (to measure a change to retrieval without remembering again); --verbose prints the misses.
 * Remembers every turn of each conversation as one text (source id = dia_id, speaker, occurredAt
 * = the session's date) into a fresh dataset, asks every question of categories 1–4, and prints
 * recall@5, recall@k and MRR of the evidence dia_ids among the sources, overall and per category.
 * Runs on an in-memory PGlite (or DATABASE_URL) with the configured models (builtin by default).
 */

const { values } = parseArgs({
  options: {
    file: { type: "string" },
    k: { type: "string", default: "10" },
    samples: { type: "string" },
    "data-dir": { type: "string" },
    verbose: { type: "boolean", default: false },
  },
});
if (!values.file) {
  console.error("usage: npm run eval:locomo -- --file <locomo.json> [--k 10] [--samples conv-26,conv-30]");
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

const env = parseEnv({ ...process.env, GB_MODELS: process.env.GB_MODELS ?? "builtin" });
const dataDir = values["data-dir"];
const database = env.DATABASE_URL ? undefined : await openDatabase({ driver: "pglite", dataDir });
const app = await createApp({ env, database, pollMs: 10 });

type Score = { recall: Record<number, number>; rr: number };
const byCategory = new Map<number, Score[]>();
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
  for (const [i, q] of questions.entries()) {
    const r = await ask({ app, input: { dataset: ds.name, question: q.question, limit: Math.max(...ks) }, caller: LOCAL_CALLER });
    const ids = r.sources.map((s) => s.source.id ?? "");
    const s = scoreRanking(ids, q.evidence, ks);
    const list = byCategory.get(q.category) ?? [];
    list.push({ recall: s.recall, rr: s.reciprocalRank });
    byCategory.set(q.category, list);
    if (values.verbose && s.recall[k] === 0) console.log(`\nmiss [${q.category}] ${q.question} evidence=${q.evidence.join(",")} got=${ids.join(",")}`);
    if (i % 10 === 0) line(`${sample.sample_id}: asked ${i + 1}/${questions.length} questions`);
  }
}
if (process.stdout.isTTY) process.stdout.write(`\r${"".padEnd(100)}\r`);

const mean = (xs: number[]) => (xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length) * 100 : 0);
const rows: string[][] = [["category", "questions", ...ks.map((x) => `recall@${x}`), "MRR"]];
const all: Score[] = [];
for (const [cat, scores] of [...byCategory.entries()].sort((a, b) => a[0] - b[0])) {
  all.push(...scores);
  rows.push([`${cat} ${CATEGORIES[cat] ?? ""}`, String(scores.length), ...ks.map((x) => mean(scores.map((s) => s.recall[x]!)).toFixed(1)), mean(scores.map((s) => s.rr)).toFixed(1)]);
}
rows.push(["overall", String(all.length), ...ks.map((x) => mean(all.map((s) => s.recall[x]!)).toFixed(1)), mean(all.map((s) => s.rr)).toFixed(1)]);
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
console.log(`LoCoMo retrieval, ${samples.map((s) => s.sample_id).join(", ")}, ${app.provider.name} models, ${((performance.now() - started) / 1000).toFixed(0)} s`);
for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join("  "));
await app.close();
