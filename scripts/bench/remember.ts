import { randomUUID } from "node:crypto";
import { count, eq, sql } from "drizzle-orm";
import { parseEnv } from "../../src/env";
import { createApp } from "../../src/server/app";
import { queryRows } from "../../src/server/db/rows";
import { chunks, inferences } from "../../src/server/db/schema";
import { createDataset } from "../../src/server/datasets/datasets";
import { LOCAL_CALLER } from "../../src/server/auth/caller";
import { submitRemember } from "../../src/server/remember/submit";
import { type ChatRequestBody, startFakeOpenAI } from "../../src/test/fake-openai";
import type { BenchDatabase } from "./databases";

/*
 * remember's figures (PRODUCT.md §10a):
 * - texts per second for N short texts, builtin models, in one dataset (so one after another)
 *   and dealt to four (which the queue runs side by side);
 * - a 20-chunk text with a loopback model server answering in 100 ms: wall time with extraction
 *   concurrency 4 against 1 (target ≤ 0.35), the share of wall time not spent waiting for a
 *   model (target ≤ 10%), and model calls per chunk (target ≤ 3 LLM + 1 embedding batch).
 */

const PEOPLE = ["Alice", "Bob", "Carol", "Dmitri", "Esther", "Farid", "Grace", "Hiro", "Ines", "Jonas"];
const PLACES = ["Paris", "Berlin", "Lyon", "Oslo", "Lima", "Quito", "Kyoto", "Accra", "Porto", "Tunis"];
const ORGS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli"];
const THINGS = ["hiking", "painting", "chess", "jazz", "pottery", "running"];

function shortText(i: number): string {
  const p = PEOPLE[i % PEOPLE.length]!;
  const q = PEOPLE[(i * 7 + 3) % PEOPLE.length]!;
  switch (i % 5) {
    case 0:
      return `${p} lives in ${PLACES[(i / 5) % PLACES.length | 0]}.`;
    case 1:
      return `${p} works at ${ORGS[i % ORGS.length]}.`;
    case 2:
      return `${p} likes ${THINGS[i % THINGS.length]} and met ${q} last week.`;
    case 3:
      return `${p} went to ${PLACES[(i * 3) % PLACES.length]} with ${q} to see a concert.`;
    default:
      return `${p}'s sister is ${q}. They talked about ${THINGS[(i * 5) % THINGS.length]} for hours.`;
  }
}

/** How the short texts are remembered: enrichment off, the defaults, the defaults with every text in one series. */
const ENRICHMENT = [
  { name: "off", series: false, options: { enrich: { geo: false, observeSeries: false } } },
  { name: "default (geo)", series: false, options: undefined },
  { name: "default, in a series (geo, series)", series: true, options: undefined },
  // the texts dealt in turn to four datasets, which the queue runs side by side (GB_REMEMBER_CONCURRENCY)
  { name: "default (geo), 4 datasets", series: false, options: undefined, datasets: 4 },
] as const;

export async function benchShortTexts(dbs: BenchDatabase[], n: number): Promise<string[][]> {
  const rows: string[][] = [["db", "enrichment", "texts", "wall s", "texts/s", "ms/text", "vs off"]];
  for (const { name, database } of dbs) {
    let off = 0;
    // warm-up, not counted: the first texts pay for module loads, the tokenizer and the gazetteer
    {
      const app = await createApp({ env: parseEnv({ GB_MODELS: "builtin" }), database, pollMs: 20 });
      const ds = await createDataset({ db: database.db, caller: LOCAL_CALLER, input: { name: `bench-warm-${Date.now().toString(36)}` } });
      for (let i = 0; i < 20; i++) await submitRemember({ app, input: { dataset: ds.name, text: shortText(i), series: "warm", wait: true }, caller: LOCAL_CALLER });
      await app.stop();
    }
    for (const mode of ENRICHMENT) {
      const app = await createApp({ env: parseEnv({ GB_MODELS: "builtin" }), database, pollMs: 20 });
      const sets: string[] = [];
      for (let d = 0; d < ("datasets" in mode ? mode.datasets : 1); d++) {
        sets.push((await createDataset({ db: database.db, caller: LOCAL_CALLER, input: { name: `bench-short-${Date.now().toString(36)}-${d}` } })).name);
      }
      const start = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const input = { dataset: sets[i % sets.length]!, text: shortText(i), ...(mode.series ? { series: "bench-series" } : {}), ...(mode.options ? { options: mode.options } : {}) };
        ids.push((await submitRemember({ app, input, caller: LOCAL_CALLER })).rememberRunId);
      }
      // each dataset's runs go in order: its last one ends after the rest of it
      const lasts = await Promise.all(ids.slice(-sets.length).map((id) => app.remember.waitFor(id, 30 * 60_000)));
      const s = (performance.now() - start) / 1000;
      await app.stop();
      const failed = lasts.find((r) => r.status !== "succeeded");
      if (failed) throw new Error(`bench run failed: ${failed.error}`);
      const rate = n / s;
      if (mode.name === "off") off = rate;
      rows.push([name, mode.name, String(n), s.toFixed(1), rate.toFixed(1), ((s * 1000) / n).toFixed(1), off ? (rate / off).toFixed(2) : "-"]);
    }
  }
  return rows;
}

/** A text of about `chunks` chunks of GB_CHUNK_TOKENS (512) tokens. */
function longText(chunkCount: number): string {
  const sentences: string[] = [];
  for (let i = 0; sentences.join(" ").length < chunkCount * 1650; i++) sentences.push(shortText(i));
  return sentences.join(" ");
}

/** Length of the union of [start, end] intervals. */
function unionMs(intervals: [number, number][]): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let cur: [number, number] | null = null;
  for (const [s, e] of sorted) {
    if (!cur || s > cur[1]) {
      if (cur) total += cur[1] - cur[0];
      cur = [s, e];
    } else cur[1] = Math.max(cur[1], e);
  }
  return total + (cur ? cur[1] - cur[0] : 0);
}

export async function benchLongText(dbs: BenchDatabase[], delayMs: number): Promise<string[][]> {
  const graph = {
    entities: [
      { name: "Alice", type: "person", aliases: [] },
      { name: "Paris", type: "place", aliases: [] },
    ],
    facts: [{ subject: "Alice", predicate: "lives_in", object: "Paris", objectIsEntity: true, sentence: "Alice lives in Paris.", validAt: null, invalidAt: null }],
  };
  const answers: Record<string, unknown> = {
    complexity: { complexity: "complex", chunk: true, reason: "long" },
    graph,
    summary: { summary: "People, places and what they like." },
    resolution: { entities: [], facts: [] },
  };
  const fake = await startFakeOpenAI({
    embeddingDelayMs: delayMs,
    chat: (body: ChatRequestBody) => {
      const task = (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ?? "";
      return { delayMs, content: answers[task] ?? {} };
    },
  });
  const text = longText(20);
  const rows: string[][] = [["db", "concurrency", "chunks", "wall ms", "ratio to 1", "not waiting on models", "LLM calls/chunk", "embedding calls/chunk"]];
  try {
    for (const { name, database } of dbs) {
      let serialMs = 0;
      for (const concurrency of [1, 4]) {
        const env = parseEnv({
          GB_MODELS: "openai",
          OPENAI_API_KEY: "sk-bench",
          OPENAI_BASE_URL: fake.url,
          GB_EXTRACT_CONCURRENCY: String(concurrency),
        });
        const app = await createApp({ env, database, pollMs: 10 });
        const ds = await createDataset({ db: database.db, caller: LOCAL_CALLER, input: { name: `bench-long-${randomUUID().slice(0, 8)}` } });
        const r = await submitRemember({ app, input: { dataset: ds.name, text, wait: true }, caller: LOCAL_CALLER });
        await app.stop();
        if (r.status !== "succeeded") throw new Error(`bench run failed: ${r.error}`);
        const [times] = await queryRows<{ started_at: string | Date; finished_at: string | Date }>(
          database.db,
          sql`SELECT started_at, finished_at FROM gb_remember_runs WHERE id = ${r.rememberRunId}`,
        );
        const wall = new Date(times!.finished_at).getTime() - new Date(times!.started_at).getTime();
        const calls = await database.db.select().from(inferences).where(eq(inferences.runId, r.rememberRunId));
        const waiting = unionMs(calls.map((c) => [c.createdAt.getTime() - c.latencyMs, c.createdAt.getTime()]));
        const [{ n: chunkCount }] = (await database.db.select({ n: count() }).from(chunks).where(eq(chunks.datasetId, ds.id))) as [{ n: number }];
        const llm = calls.filter((c) => c.task !== "embed").length;
        const embeds = calls.length - llm;
        if (concurrency === 1) serialMs = wall;
        rows.push([
          name,
          String(concurrency),
          String(chunkCount),
          String(wall),
          concurrency === 1 ? "1" : (wall / serialMs).toFixed(2),
          `${(((wall - waiting) / wall) * 100).toFixed(1)}%`,
          (llm / chunkCount).toFixed(2),
          (embeds / chunkCount).toFixed(2),
        ]);
      }
    }
  } finally {
    await fake.close();
  }
  return rows;
}
