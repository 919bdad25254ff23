import { expect, test } from "@playwright/test";
import { cleanUp, exitWithin, health, startServer, tempDir } from "./server";
import { ports } from "./ports";

/*
 * The built server (`next start`) stopped with SIGTERM and killed with SIGKILL while it
 * remembers, no browser: nothing accepted is lost, a client retrying with its idempotency keys
 * stores nothing twice, and SIGTERM ends in a clean exit that hands the runs in flight back.
 */

test.afterEach(cleanUp);

const PORT = ports.durability;
const base = `http://127.0.0.1:${PORT}`;
// small chunks, so every text is several and a kill lands between two of them; no grace: a
// SIGTERM hands back whatever is in flight
const ENV = { GB_CHUNK_TOKENS: "32", GB_CHUNK_OVERLAP_TOKENS: "0", GB_SHUTDOWN_GRACE_MS: "0" };

async function trpc<T>(method: "GET" | "POST", path: string, input: unknown): Promise<{ status: number; body: T }> {
  const json = encodeURIComponent(JSON.stringify({ json: input }));
  const res =
    method === "GET"
      ? await fetch(`${base}/api/trpc/${path}?input=${json}`)
      : await fetch(`${base}/api/trpc/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ json: input }) });
  return { status: res.status, body: (await res.json()) as T };
}
type Data<T> = { result: { data: { json: T } } };

const texts = Array.from(
  { length: 16 },
  (_, i) =>
    `Nadia Person${i} lives in Lyon. Nadia Person${i} works at the Blue Bakery and likes the early shifts. ` +
    `On weekends Nadia Person${i} visits friends in Nantes and plays chess at the old club. ` +
    `Nadia Person${i} has a sister who studies music in Nantes. Last spring Nadia Person${i} adopted a dog. ` +
    `The sister of Nadia Person${i} plays the cello in an orchestra in Nantes and teaches on Tuesdays. ` +
    `Nadia Person${i} bakes rye bread on Mondays and sells it at the market near the river. ` +
    `In the autumn Nadia Person${i} travelled to Porto with two colleagues from the Blue Bakery.`,
);

async function submitAll(): Promise<{ id: string; replayed: boolean }[]> {
  const out = [];
  for (const [i, text] of texts.entries()) {
    const r = await trpc<Data<{ rememberRunId: string; replayed: boolean }>>("POST", "remember.submit", { dataset: "default", text, idempotencyKey: `e2e-${i}` });
    expect(r.status).toBe(200);
    out.push({ id: r.body.result.data.json.rememberRunId, replayed: r.body.result.data.json.replayed });
  }
  return out;
}

async function succeeded(): Promise<number> {
  const r = await trpc<Data<{ succeeded: number }>>("GET", "runs.remember.counts", { dataset: "default" });
  return r.body.result.data.json.succeeded;
}

/**
 * Until a run is in flight with at least `left` chunks still to store, so that a SIGTERM or a
 * kill -9 right after finds it started (a kill timed after a run's end could land in the gap
 * before the next is claimed, or after the run's last chunk).
 */
async function runInFlight(ms: number, left = 1): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const list = await trpc<Data<{ items: { id: string }[] }>>("GET", "runs.remember.list", { dataset: "default", status: "started", limit: 5 });
    for (const { id } of list.body.result.data.json.items) {
      const run = await trpc<Data<{ status: string; progress: { chunksDone: number; chunksTotal: number | null } }>>("GET", "runs.remember.get", { id });
      const r = run.body.result.data.json;
      if (r.status === "started" && r.progress.chunksTotal !== null && r.progress.chunksTotal - r.progress.chunksDone >= left) return;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`no run in flight within ${ms} ms`);
}

async function untilSucceeded(n: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await succeeded()) < n) {
    if (Date.now() > deadline) throw new Error(`fewer than ${n} runs succeeded after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("SIGTERM hands the runs in flight back and exits 0; kill -9 loses nothing; resubmitted keys store nothing twice", async () => {
  test.setTimeout(240_000);
  const dir = tempDir("e2e-durability");

  const first = startServer(PORT, dir, ENV);
  await health(PORT, 90_000);
  const runs = await submitAll();
  expect(runs.every((r) => !r.replayed)).toBe(true);
  await untilSucceeded(2, 60_000);
  await runInFlight(30_000, 3);
  first.proc.kill("SIGTERM");
  expect(await exitWithin(first, 15_000)).toBe(0);
  const stopped = /stopped: (\d+) run\(s\) finished, (\d+) handed back to the queue; database closed/.exec(first.stdout());
  expect(stopped, first.stdout() + first.stderr()).not.toBeNull();
  expect(Number(stopped![2])).toBeGreaterThanOrEqual(1);

  const second = startServer(PORT, dir, ENV);
  await health(PORT, 90_000);
  const before = await succeeded();
  await untilSucceeded(before + 2, 60_000);
  await runInFlight(30_000, 3);
  second.proc.kill("SIGKILL");
  await second.exited;

  const third = startServer(PORT, dir, ENV);
  await health(PORT, 90_000);
  // the client, not knowing what became of its submits, sends them all again with their keys
  const again = await submitAll();
  expect(again).toEqual(runs.map((r) => ({ id: r.id, replayed: true })));
  await untilSucceeded(texts.length, 120_000);
  const counts = await trpc<Data<Record<string, number>>>("GET", "runs.remember.counts", { dataset: "default" });
  expect(counts.body.result.data.json).toMatchObject({ queued: 0, started: 0, succeeded: texts.length, failed: 0 });

  const kinds: string[] = [];
  for (const { id } of runs) {
    const run = await trpc<Data<{ status: string; attempts: { kind: string }[]; progress: { chunksDone: number; chunksTotal: number } }>>(
      "GET",
      "runs.remember.get",
      { id },
    );
    const r = run.body.result.data.json;
    expect(r.status).toBe("succeeded");
    expect(r.progress.chunksDone).toBe(r.progress.chunksTotal);
    kinds.push(...r.attempts.map((a) => a.kind));
  }
  // the SIGTERM handed runs back; the kill -9 left some to be taken back at the next start
  expect(kinds).toContain("handed_back");
  expect(kinds).toContain("abandoned");
  third.proc.kill("SIGTERM");
  expect(await exitWithin(third, 15_000)).toBe(0);
});

test("an idempotency key reused for another text is 409 CONFLICT from the built server", async () => {
  test.setTimeout(120_000);
  startServer(PORT, tempDir("e2e-idempotency"), ENV);
  await health(PORT, 90_000);
  const first = await trpc<Data<{ rememberRunId: string }>>("POST", "remember.submit", { dataset: "default", text: "Iris lives in Lyon.", idempotencyKey: "k1" });
  expect(first.status).toBe(200);
  const clash = await trpc<{ error: { json: { message: string; data: { code: string; httpStatus: number } } } }>("POST", "remember.submit", {
    dataset: "default",
    text: "Iris lives in Paris.",
    idempotencyKey: "k1",
  });
  expect(clash.status).toBe(409);
  expect(clash.body.error.json.data.code).toBe("CONFLICT");
  expect(clash.body.error.json.message).toContain(`idempotencyKey: already used in dataset default for another request (remember run ${first.body.result.data.json.rememberRunId})`);
});

test("SIGTERM with queries in flight: each is answered or refused with 503, never a 500; every answer has its run log", async () => {
  test.setTimeout(180_000);
  const dir = tempDir("e2e-stop-queries");
  const first = startServer(PORT, dir, ENV);
  await health(PORT, 90_000);
  const stored = await trpc<Data<{ status: string }>>("POST", "remember.submit", { dataset: "default", text: texts[0], wait: true });
  expect(stored.body.result.data.json.status).toBe("succeeded");

  // 16 clients ask again and again until the server is gone; SIGTERM lands in the middle
  const statuses: number[] = [];
  const waits = new Set<string | null>();
  let gone = false;
  const client = async (c: number) => {
    for (let i = 0; !gone; i++) {
      try {
        const res = await fetch(`${base}/api/trpc/query.ask`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ json: { dataset: "default", question: `Where does Nadia Person0 live? (${c}.${i})` } }),
        });
        statuses.push(res.status);
        if (res.status === 503) waits.add(res.headers.get("retry-after"));
        await res.arrayBuffer();
      } catch {
        gone = true; // refused or reset: the process has exited
      }
    }
  };
  const clients = Array.from({ length: 16 }, (_, c) => client(c));
  while (statuses.filter((s) => s === 200).length < 20) await new Promise((r) => setTimeout(r, 10));
  first.proc.kill("SIGTERM");
  expect(await exitWithin(first, 20_000)).toBe(0);
  gone = true;
  await Promise.all(clients);
  const answered = statuses.filter((s) => s === 200).length;
  expect(statuses.filter((s) => s !== 200 && s !== 503), `statuses: ${JSON.stringify(statuses)}`).toEqual([]);
  // a 503 says when to come back
  expect([...waits].filter((w) => w !== "1")).toEqual([]);
  expect(first.stdout()).toMatch(/database closed/);
  expect(first.stderr()).not.toMatch(/PGlite is closed|closed database/i);

  // after a restart: a run log for every answer, none left started or failed
  startServer(PORT, dir, ENV);
  await health(PORT, 90_000);
  const counts = await trpc<Data<Record<string, number>>>("GET", "runs.query.counts", { dataset: "default" });
  const c = counts.body.result.data.json;
  expect(c).toMatchObject({ started: 0, failed: 0 });
  expect(c.succeeded).toBeGreaterThanOrEqual(answered);
});
