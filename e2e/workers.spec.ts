import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { createScratchDatabase } from "../src/server/db/scratch";
import { ports } from "./ports";

/*
 * `npm start` (bin/start.mjs) with a Postgres server and GB_WORKERS=2: two app processes behind
 * one port, no Redis. Connections are dealt to both (each call here opens one of its own), and
 * what they share holds across them: the rate limit counts every call once, short-term memory
 * captured through one is read through the other, the remember queue runs each text once, and a
 * key revoked through one is refused by both.
 * A worker killed with -9 is replaced; SIGTERM stops them all. Needs TEST_DATABASE_URL.
 */
const serverUrl = process.env.TEST_DATABASE_URL;
const port = ports.workers;
const KEY = "gb_workers_e2e_bootstrap_key_000000000";
const QUERY_LIMIT = 6;

/** One call on a connection of its own (so that the cluster deals it to the next process). */
function call(method: "GET" | "POST", path: string, body?: unknown, key = KEY): Promise<{ status: number; json: unknown; pid: string | undefined }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify({ json: body });
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        agent: false,
        headers: { authorization: `Bearer ${key}`, ...(data ? { "content-type": "application/json", "content-length": Buffer.byteLength(data) } : {}) },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as unknown) : null, pid: res.headers["x-gligabao-process"] as string | undefined }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

const data = (r: { json: unknown }) => (r.json as { result: { data: { json: unknown } } }).result.data.json;

async function healthy(ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await call("GET", "/api/health")).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no answer on port ${port} in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The app processes that answer health, over `n` connections. */
async function answering(n: number): Promise<Set<string>> {
  const pids = new Set<string>();
  for (let i = 0; i < n; i++) pids.add((await call("GET", "/api/health")).pid ?? "?");
  return pids;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

if (!serverUrl) {
  console.log("e2e of npm start's workers: not run, TEST_DATABASE_URL is unset");
} else {
  test.describe.configure({ mode: "serial", timeout: 180_000 });
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let primary: ChildProcess;
  let out = "";
  let exited: Promise<number | null>;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    scratch = await createScratchDatabase(serverUrl, "gb_e2e_workers");
    primary = spawn(process.execPath, ["bin/start.mjs", "-H", "127.0.0.1", "-p", String(port)], {
      env: {
        ...process.env,
        DATABASE_URL: scratch.url,
        GB_WORKERS: "2",
        GB_REDIS_URL: "",
        GB_MODELS: "builtin",
        OPENAI_API_KEY: "",
        GB_AUTH: "on",
        GB_BOOTSTRAP_API_KEY: KEY,
        GB_RATE_LIMIT_QUERY: String(QUERY_LIMIT),
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    primary.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    primary.stderr?.on("data", (d: Buffer) => (out += d.toString()));
    exited = new Promise((r) => primary.on("exit", (code) => r(code)));
    await healthy(120_000);
    await expect.poll(() => out, { timeout: 60_000 }).toMatch(/2 app processes \(GB_WORKERS\) answer on one port/);
  });

  test.afterAll(async () => {
    if (primary && primary.exitCode === null && primary.signalCode === null) primary.kill("SIGKILL");
    await scratch?.drop();
  });

  test("connections are dealt to two app processes, neither of them the primary", async () => {
    const pids = await answering(10);
    expect(pids.size, out).toBe(2);
    expect(pids.has(String(primary.pid))).toBe(false);
  });

  test("the rate limit counts the calls of both processes together", async () => {
    const created = await call("POST", "/api/trpc/datasets.create", { name: "limits" });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const statuses: number[] = [];
    const pids = new Set<string>();
    for (let i = 0; i < 2 * QUERY_LIMIT; i++) {
      const r = await call("POST", "/api/trpc/query.ask", { dataset: "limits", question: `who is number ${i}?` });
      statuses.push(r.status);
    }
    for (const pid of await answering(4)) pids.add(pid);
    // alone, each process would let QUERY_LIMIT through: 2 × QUERY_LIMIT in all
    expect(statuses.filter((s) => s === 200)).toHaveLength(QUERY_LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(QUERY_LIMIT);
    expect(pids.size).toBe(2);
  });

  test("short-term memory captured through one process is read through the other", async () => {
    expect((await call("POST", "/api/trpc/datasets.create", { name: "chat" })).status).toBe(200);
    const scope = { userId: "ana", channelId: "general" };
    for (let i = 1; i <= 4; i++) {
      const r = await call("POST", "/api/trpc/stm.capture", { dataset: "chat", scope, messages: [{ role: "user", content: `message ${i}`, authorId: "ana" }] });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
    }
    for (let i = 0; i < 4; i++) {
      const input = encodeURIComponent(JSON.stringify({ json: { dataset: "chat", scope, mode: "mixed" } }));
      const r = await call("GET", `/api/trpc/stm.context?input=${input}`);
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const text = (data(r) as { text: string }).text;
      for (let m = 1; m <= 4; m++) expect(text).toContain(`message ${m}`);
    }
  });

  test("the remember queue runs each text once, whichever process took it", async () => {
    for (const name of ["notes", "notes-b"]) expect((await call("POST", "/api/trpc/datasets.create", { name })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const r = await call("POST", "/api/trpc/remember.submit", { dataset: i % 2 ? "notes" : "notes-b", text: `Person${i} lives in Town${i % 5} and likes tea number ${i}.` });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      ids.push((data(r) as { rememberRunId: string }).rememberRunId);
    }
    const db = postgres(scratch.url, { max: 1, onnotice: () => {} });
    try {
      await expect
        .poll(async () => (await db`SELECT count(*)::int AS n FROM gb_remember_runs WHERE id = ANY(${ids}) AND status IN ('succeeded', 'failed')`)[0]?.n, { timeout: 120_000 })
        .toBe(ids.length);
      const rows = await db<{ status: string; attempts: number }[]>`SELECT status, attempts FROM gb_remember_runs WHERE id = ANY(${ids})`;
      expect(rows.map((r) => r.status)).toEqual(ids.map(() => "succeeded"));
      expect(rows.map((r) => r.attempts)).toEqual(ids.map(() => 1));
      // one fact set per text: nothing stored twice
      const [texts] = await db`SELECT count(*)::int AS n FROM gb_texts t JOIN datasets d ON d.id = t.dataset_id WHERE d.name IN ('notes', 'notes-b')`;
      expect(texts?.n).toBe(ids.length);
    } finally {
      await db.end();
    }
  });

  test("a key revoked through one process is refused by both within 5 s (each had it cached)", async () => {
    const made = await call("POST", "/api/trpc/keys.create", { name: "revoked across", role: "member" });
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    const { secret, key } = data(made) as { secret: string; key: { id: string } };
    const list = `/api/trpc/datasets.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`;
    /** ten calls, each on a connection of its own: dealt round-robin to both processes (the first test) */
    const tenCalls = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await call("GET", list, undefined, secret)).status);
      return statuses;
    };
    expect(await tenCalls()).toEqual(Array(10).fill(200));
    const revoked = await call("POST", "/api/trpc/keys.revoke", { id: key.id });
    expect(revoked.status).toBe(200);
    const at = Date.now();
    // every process refuses it: ten calls in a row, all 401
    await expect
      .poll(async () => (await tenCalls()).every((s) => s === 401), { timeout: 5_000, intervals: [50] })
      .toBe(true);
    console.log(`a revoked key was refused by both processes ${Date.now() - at} ms after keys.revoke answered`);
  });

  test("a worker killed with -9 is replaced; SIGTERM stops the primary and every worker", async () => {
    const before = await answering(10);
    expect(before.size).toBe(2);
    const victim = Number([...before][0]);
    process.kill(victim, "SIGKILL");
    await expect.poll(() => out, { timeout: 30_000 }).toMatch(new RegExp(`app process ${victim} died \\(SIGKILL\\); starting another`));
    // the new process answers once it has started (a few seconds), beside the one that lived
    let after = new Set<string>();
    await expect
      .poll(async () => ((after = await answering(10)), after.size === 2 && !after.has(String(victim))), { timeout: 90_000, intervals: [500] })
      .toBe(true);

    // clients keep calling while it stops: a connection dealt to a worker that was stopping stayed
    // open in the primary until its client gave up, and kept the primary running after its
    // workers had gone (a client without a timeout: for ever; seen by hand with curl). The hung
    // calls are counted after 10 s here; the primary must have exited by then regardless
    let stopped = false;
    const statuses: Record<string, number> = {};
    const clients = Array.from({ length: 8 }, async () => {
      while (!stopped) {
        const status = await Promise.race([
          call("GET", "/api/health").then((r) => String(r.status), () => "refused"),
          new Promise<string>((r) => setTimeout(() => r("no answer in 10 s"), 10_000)),
        ]);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === "refused") await new Promise((r) => setTimeout(r, 50));
      }
    });
    await new Promise((r) => setTimeout(r, 500));
    primary.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r("still running"), 60_000))]);
    await new Promise((r) => setTimeout(r, 500));
    stopped = true;
    await Promise.all(clients);
    expect(code, out).toBe(0);
    for (const pid of after) expect(alive(Number(pid)), `worker ${pid} outlived the primary`).toBe(false);
    // answered, refused while stopping (503), or refused once the port closed; none left hanging
    expect(statuses["200"], JSON.stringify(statuses)).toBeGreaterThan(0);
    expect(Object.keys(statuses).filter((k) => !["200", "503", "refused"].includes(k)), JSON.stringify(statuses)).toEqual([]);
  });
}
