import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { type Server, exitWithin, health, startServer } from "../e2e/server";
import { type Database, openDatabase } from "../src/server/db/client";
import { migrate } from "../src/server/db/migrate";
import { queryRows } from "../src/server/db/rows";
import { createScratchDatabase } from "../src/server/db/scratch";

/**
 * npm run probe:crash — the durability figures of issue #10, on the built app (`npm run build`
 * first), as a crashing machine and an unlucky client would see it:
 *
 *   PROBE_TEXTS texts (default 300) are submitted by 4 clients, each with its idempotency key,
 *   while the server is killed PROBE_KILLS times with SIGKILL (default 20) and stopped
 *   PROBE_TERMS times with SIGTERM (default 5), in a random order, each time started again.
 *   PROBE_LOSS of the answers (default 0.1) are lost on purpose: the client gives up on the
 *   request a few milliseconds after sending it, cannot know whether it was taken, and submits
 *   again later with the same key, as it does when the server was down.
 *
 * PGlite: one server at a time on its data dir. Postgres (BENCH_DATABASE_URL / TEST_DATABASE_URL):
 * two servers on one database, one of them stopped each time. Prints, per database: texts
 * accepted, lost (accepted and not succeeded), stored twice, and how long the dataset's queue
 * stood still after a kill -9 (from the kill to the killed process's run being started again).
 */

const TEXTS = Number(process.env.PROBE_TEXTS ?? 300);
const KILLS = Number(process.env.PROBE_KILLS ?? 20);
const TERMS = Number(process.env.PROBE_TERMS ?? 5);
const LOSS = Number(process.env.PROBE_LOSS ?? 0.1);
const DATASETS = ["probe-a", "probe-b", "probe-c"];
const ENV = { GB_CHUNK_TOKENS: "48", GB_CHUNK_OVERLAP_TOKENS: "0", GB_SHUTDOWN_GRACE_MS: "2000" };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (a: number, b: number) => a + Math.random() * (b - a);

/** About ten chunks at 48 tokens: the queue of 300 outlasts the kills, which land mid-run. */
const text = (i: number) =>
  [
    `Probe Person${i} lives in ${["Lyon", "Nantes", "Lille", "Dijon"][i % 4]}.`,
    `Probe Person${i} works at the ${["Blue Bakery", "Green Grocer", "Harbor Books"][i % 3]} and likes the early shifts there.`,
    `On weekends Probe Person${i} visits friends in Rennes and plays chess at the old club near the river.`,
    `Probe Person${i} has a sister who studies music in Tours and a brother who repairs bicycles.`,
    `Last spring Probe Person${i} adopted a dog called Pixel and walks it every evening.`,
    `In ${2000 + (i % 20)} Probe Person${i} ran a marathon in Bordeaux with a cousin from Metz.`,
    `Probe Person${i} collects old maps of Brittany and keeps them in a cabinet in the hall.`,
    `The neighbours of Probe Person${i} say that the garden there has the best tomatoes in town.`,
    `Probe Person${i} plans a trip to Lisbon next summer with two colleagues from the shop.`,
    `Every Friday Probe Person${i} cooks dinner for the family and bakes a plum tart.`,
  ].join(" ");

interface Target {
  name: "pglite" | "postgres";
  ports: number[];
  env: (port: number) => Record<string, string>;
  /** the database, opened by the probe: at once (Postgres) or once the servers are gone (PGlite) */
  open(): Promise<Database>;
  close(): Promise<void>;
}

const note = (m: string) => console.error(`[probe ${new Date().toISOString().slice(11, 23)}] ${m}`);

/** A tRPC call over HTTP: a mutation is a POST, a query (runs.*) a GET. */
async function trpc<T>(port: number, path: string, input: unknown, signal?: AbortSignal): Promise<T> {
  // no call may hang the probe: a server that stopped answering is a failed call (one controller
  // and a timer, rather than AbortSignal.any, whose combined signal Node 20 may collect early)
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error(`${path}: no answer in 30 s`)), 30_000);
  signal?.addEventListener("abort", () => ac.abort(signal.reason));
  try {
    const url = `http://127.0.0.1:${port}/api/trpc/${path}`;
    const res = path.startsWith("runs.")
      ? await fetch(`${url}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, { signal: ac.signal })
      : await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ json: input }), signal: ac.signal });
    const body = (await res.json()) as { result?: { data: { json: T } }; error?: { json: { message: string } } };
    if (!res.ok || !body.result) throw new Error(`${path}: HTTP ${res.status} ${body.error?.json.message ?? ""}`);
    return body.result.data.json;
  } finally {
    clearTimeout(timer);
  }
}

async function probe(target: Target) {
  const servers = new Map<number, Server>();
  const up = new Set<number>();
  const start = async (port: number) => {
    servers.set(port, startServer(port, "", target.env(port)));
    await health(port, 120_000);
    up.add(port);
  };
  for (const port of target.ports) await start(port);
  for (const name of DATASETS) await trpc(target.ports[0]!, "datasets.create", { name });

  // the clients: every text until accepted (a run id came back), answers lost on purpose
  const ids = new Map<number, Set<string>>();
  let next = 0;
  let lostAnswers = 0;
  let refused = 0;
  const pending: number[] = [];
  let submitting = 0;
  async function submit(i: number): Promise<boolean> {
    submitting++;
    try {
      return await submitOnce(i);
    } finally {
      submitting--;
    }
  }
  async function submitOnce(i: number): Promise<boolean> {
    const live = [...up];
    if (live.length === 0) return false;
    const port = live[Math.floor(Math.random() * live.length)]!;
    const lose = Math.random() < LOSS;
    const ac = new AbortController();
    if (lose) setTimeout(() => ac.abort(), rand(2, 30));
    try {
      const r = await trpc<{ rememberRunId: string }>(port, "remember.submit", { dataset: DATASETS[i % DATASETS.length], text: text(i), idempotencyKey: `probe-${i}` }, ac.signal);
      const set = ids.get(i) ?? new Set();
      set.add(r.rememberRunId);
      ids.set(i, set);
      return true;
    } catch {
      if (lose) lostAnswers++;
      else refused++;
      return false;
    }
  }
  const clients = Array.from({ length: 4 }, async () => {
    for (;;) {
      const i = next < TEXTS ? next++ : pending.shift();
      if (i === undefined) {
        if (next >= TEXTS && pending.length === 0) return;
        await sleep(50);
        continue;
      }
      if (!(await submit(i))) {
        pending.push(i);
        await sleep(100);
      } else if (Math.random() < 0.05) {
        // now and then a client retries a submit that did answer: it must be a no-op
        await submit(i);
      }
    }
  });

  // the killer: SIGKILL and SIGTERM in a random order, a server started again after each
  const db = target.name === "postgres" ? await target.open() : null;
  const signals: NodeJS.Signals[] = [...Array<NodeJS.Signals>(KILLS).fill("SIGKILL"), ...Array<NodeJS.Signals>(TERMS).fill("SIGTERM")].sort(() => Math.random() - 0.5);
  const stillFor: number[] = [];
  const takenBack: number[] = [];
  const termExit: number[] = [];
  let inFlightAtKill = 0;
  let k = 0;
  for (const signal of signals) {
    await sleep(rand(300, 1500));
    const port = target.ports[k++ % target.ports.length]!;
    const server = servers.get(port)!;
    // what the process holds now, and when it moves again
    const held = await inFlight(db, port, server);
    if (held.length > 0) inFlightAtKill++;
    up.delete(port);
    const t0 = performance.now();
    server.proc.kill(signal);
    const code = await exitWithin(server, 60_000);
    note(`${signal} ${k}/${signals.length} on :${port} (${held.length} run(s) in flight); submitted ${ids.size}/${TEXTS}`);
    if (signal === "SIGTERM") {
      termExit.push(performance.now() - t0);
      if (code !== 0) throw new Error(`SIGTERM: exit code ${code}; ${server.stderr().slice(-2000)}`);
    }
    // measured while the server starts again: on Postgres the other one takes the runs back
    const restart = start(port);
    if (signal === "SIGKILL" && held.length > 0) {
      const viaPort = db ? port : restart.then(() => port);
      const moved = await movedAgain(db, await viaPort, held, t0);
      stillFor.push(moved.started);
      takenBack.push(moved.takenBack);
    }
    await restart;
  }
  note("kills done; waiting for the clients");
  const watch = setInterval(() => note(`clients: ${ids.size}/${TEXTS} accepted, ${pending.length} to resend, ${submitting} submit(s) in flight`), 10_000);
  await Promise.all(clients);
  clearInterval(watch);
  note("every text accepted; waiting for the queue to run dry");
  // the queue runs dry
  const dry = performance.now() + 600_000;
  for (;;) {
    const counts = await Promise.all(DATASETS.map((dataset) => trpc<Record<string, number>>(target.ports[0]!, "runs.remember.counts", { dataset })));
    if (counts.every((c) => c.queued === 0 && c.started === 0)) break;
    if (performance.now() > dry) throw new Error(`the queue did not run dry in 10 minutes: ${JSON.stringify(counts)}`);
    await sleep(500);
  }
  for (const port of target.ports) {
    const s = servers.get(port)!;
    s.proc.kill("SIGTERM");
    await exitWithin(s, 60_000);
  }

  const database = db ?? (await target.open());
  try {
    const runs = await queryRows<{ status: string; n: number }>(
      database.db,
      sql`SELECT r.status, count(*)::int AS n FROM gb_remember_runs r JOIN datasets d ON d.id = r.dataset_id WHERE d.name IN ${sql.raw(`('${DATASETS.join("','")}')`)} GROUP BY r.status`,
    );
    const twice = await queryRows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM (SELECT content FROM gb_texts t JOIN datasets d ON d.id = t.dataset_id
            WHERE d.name IN ${sql.raw(`('${DATASETS.join("','")}')`)} GROUP BY content HAVING count(*) > 1) x`,
    );
    const chunksTwice = await queryRows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM (SELECT text_id, idx FROM gb_chunks GROUP BY dataset_id, text_id, idx HAVING count(*) > 1) x`,
    );
    const retried = await queryRows<{ kind: string; n: number }>(
      database.db,
      sql`SELECT e ->> 'kind' AS kind, count(*)::int AS n FROM gb_remember_runs, jsonb_array_elements(attempt_errors) e GROUP BY 1`,
    );
    const succeeded = await queryRows<{ id: string }>(database.db, sql`SELECT id FROM gb_remember_runs WHERE status = 'succeeded'`);
    const ok = new Set(succeeded.map((r) => r.id));
    const accepted = [...ids.values()];
    const lost = accepted.filter((set) => ![...set].some((id) => ok.has(id))).length;
    const of = (s: string) => runs.find((r) => r.status === s)?.n ?? 0;
    const pct = (xs: number[]) => {
      const v = [...xs].sort((a, b) => a - b);
      return v.length ? `${ms(v[Math.floor(v.length / 2)]!)} / ${ms(v[v.length - 1]!)}` : "n/a";
    };
    return {
      database: target.name,
      texts: TEXTS,
      "kill -9": KILLS,
      SIGTERM: TERMS,
      accepted: accepted.length,
      "one run per key": accepted.every((set) => set.size === 1) ? "yes" : "NO",
      runs: of("succeeded") + of("failed") + of("queued") + of("started"),
      succeeded: of("succeeded"),
      failed: of("failed"),
      lost,
      "texts stored twice": twice[0]?.n ?? 0,
      "chunks stored twice": chunksTwice[0]?.n ?? 0,
      "answers lost, resent": lostAnswers,
      "refused (server down), resent": refused,
      "attempts taken back": retried.map((r) => `${r.kind} ${r.n}`).join(", ") || "none",
      "kills with a run in flight": `${inFlightAtKill} of ${KILLS + TERMS}`,
      "kill -9 → run taken back, p50 / max": pct(takenBack),
      "kill -9 → run started again, p50 / max": pct(stillFor),
      "SIGTERM to exit, max": termExit.length ? ms(Math.max(...termExit)) : "n/a",
    };
  } finally {
    await database.close();
  }
}

const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);

/** The runs the process on `port` is running now (their id and attempt). */
async function inFlight(db: Database | null, port: number, server: Server): Promise<{ id: string; attempts: number }[]> {
  if (db) {
    return queryRows<{ id: string; attempts: number }>(
      db.db,
      sql`SELECT id, attempts FROM gb_remember_runs WHERE status = 'started' AND lease_owner LIKE ${`%:${server.proc.pid}:%`}`,
    );
  }
  const out: { id: string; attempts: number }[] = [];
  for (const dataset of DATASETS) {
    const list = await trpc<{ items: { id: string }[] }>(port, "runs.remember.list", { dataset, status: "started" }).catch(() => ({ items: [] }));
    for (const r of list.items) {
      const run = await trpc<{ attempt: number }>(port, "runs.remember.get", { id: r.id }).catch(() => null);
      if (run) out.push({ id: r.id, attempts: run.attempt });
    }
  }
  return out;
}

/**
 * Milliseconds from t0 until every run in `held` was taken back from the dead process (it left
 * `started` for this attempt) and until it started again (or ended).
 */
async function movedAgain(db: Database | null, port: number, held: { id: string; attempts: number }[], t0: number): Promise<{ takenBack: number; started: number }> {
  const deadline = performance.now() + 120_000;
  let takenBack: number | null = null;
  const state = async (h: { id: string; attempts: number }) => {
    if (db) {
      const [r] = await queryRows<{ status: string; attempts: number }>(db.db, sql`SELECT status, attempts FROM gb_remember_runs WHERE id = ${h.id}`);
      return r ? { status: r.status, attempt: Number(r.attempts) } : null;
    }
    return trpc<{ status: string; attempt: number }>(port, "runs.remember.get", { id: h.id }).catch(() => null);
  };
  for (;;) {
    const now = await Promise.all(held.map(async (h) => ({ h, r: await state(h) })));
    const back = now.every(({ h, r }) => r && (r.status !== "started" || r.attempt > h.attempts));
    if (back) takenBack ??= performance.now() - t0;
    if (now.every(({ h, r }) => r && (r.status === "succeeded" || r.attempt > h.attempts))) return { takenBack: takenBack ?? performance.now() - t0, started: performance.now() - t0 };
    if (performance.now() > deadline) throw new Error(`runs ${held.map((h) => h.id).join(", ")} did not start again within 120 s`);
    await sleep(25);
  }
}

function pgliteTarget(): Target {
  const root = mkdtempSync(path.join(tmpdir(), "gb-crash-probe-"));
  return {
    name: "pglite",
    ports: [3401],
    env: () => ({ ...ENV, GB_DATA_DIR: root }),
    open: async () => openDatabase({ driver: "pglite", dataDir: path.join(root, "pglite") }),
    close: async () => rmSync(root, { recursive: true, force: true }),
  };
}

async function postgresTarget(url: string): Promise<Target> {
  const scratch = await createScratchDatabase(url, "gb_crash_probe");
  await (await migrate(await openDatabase({ driver: "postgres", url: scratch.url, max: 2 }))).close();
  return {
    name: "postgres",
    ports: [3402, 3403],
    env: () => ({ ...ENV, DATABASE_URL: scratch.url, GB_DATA_DIR: "" }),
    open: () => openDatabase({ driver: "postgres", url: scratch.url, max: 2 }),
    close: () => scratch.drop(),
  };
}

const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const only = process.env.PROBE_DB;
const results: Record<string, string | number>[] = [];
if (only !== "postgres") {
  const t = pgliteTarget();
  try {
    results.push(await probe(t));
  } finally {
    await t.close();
  }
}
if (only !== "pglite") {
  if (!serverUrl) console.log("(no BENCH_DATABASE_URL / TEST_DATABASE_URL: the Postgres server is left out)");
  else {
    const t = await postgresTarget(serverUrl);
    try {
      results.push(await probe(t));
    } finally {
      await t.close();
    }
  }
}
const keys = Object.keys(results[0] ?? {});
const width = Math.max(...keys.map((k) => k.length));
for (const k of keys) console.log(`${k.padEnd(width)}  ${results.map((r) => String(r[k]).padEnd(24)).join("  ")}`);
process.exit(0);
