import cluster, { type Worker } from "node:cluster";
import { RateLimiterClusterMaster } from "rate-limiter-flexible";
import { memoryCache } from "../stm/cache";
import { CHANNEL, type Reply, type Request } from "./ipc";
import type { LimitVerdict } from "./shared";

/*
 * `npm start`'s primary process when it runs several app processes (GB_WORKERS with
 * DATABASE_URL; bin/start.mjs): it forks the workers, each a `next start` on the same port
 * (Node's cluster shares the listening socket, connections are dealt round-robin), holds what
 * they share without Redis (short-term memory's messages, the sign-in limit's windows; the rate
 * limits are rate-limiter-flexible's cluster master), starts a worker again when one dies, and on
 * SIGTERM or SIGINT passes the signal to each and exits when they have (each hands its remember
 * runs in flight back to the queue, src/server/shutdown.ts). The remember queue needs nothing
 * here: every process claims runs under a lock in the database.
 */

/** What the workers keep in the primary: their IPC calls by name. */
export function primaryStores(stmCacheBytes: number, now: () => number = Date.now) {
  const stm = memoryCache(stmCacheBytes);
  /** the sign-in limit's fixed windows, by client and path */
  const windows = new Map<string, { n: number; resetAt: number }>();
  const sweep = setInterval(() => {
    const t = now();
    for (const [k, w] of windows) if (w.resetAt <= t) windows.delete(k);
  }, 60_000);
  sweep.unref();
  const ops: Record<string, (...args: never[]) => Promise<unknown>> = {
    "stm.append": (entries: Parameters<typeof stm.append>[0], messages: Parameters<typeof stm.append>[1], max: number) => stm.append(entries, messages, max),
    "stm.read": (entries: Parameters<typeof stm.read>[0]) => stm.read(entries),
    "stm.evict": (keys: string[]) => stm.evict(keys),
    "stm.evictUser": (datasetId: string, userId: string, userKeys: string[]) => stm.evictUser(datasetId, userId, userKeys),
    "auth.consume": async (key: string, rule: { window: number; max: number }): Promise<LimitVerdict> => {
      const t = now();
      let w = windows.get(key);
      if (!w || w.resetAt <= t) windows.set(key, (w = { n: 0, resetAt: t + rule.window * 1000 }));
      w.n++;
      return w.n <= rule.max ? { allowed: true, retryAfter: null } : { allowed: false, retryAfter: Math.max(1, Math.ceil((w.resetAt - t) / 1000)) };
    },
  };
  return {
    async handle(request: Request): Promise<Reply> {
      const op = Object.hasOwn(ops, request.op) ? ops[request.op] : undefined;
      if (!op) return { channel: CHANNEL, id: request.id, ok: false, error: `no such call: ${request.op}` };
      try {
        const value = await (op as (...a: unknown[]) => Promise<unknown>)(...request.args);
        return { channel: CHANNEL, id: request.id, ok: true, value };
      } catch (e) {
        return { channel: CHANNEL, id: request.id, ok: false, error: e instanceof Error ? e.message : String(e) };
      }
    },
    close: () => clearInterval(sweep),
  };
}

export interface PrimaryOptions {
  workers: number;
  /** node_modules/next/dist/bin/next */
  nextBin: string;
  /** the arguments after `npm start --` (next start's: -p, -H …) */
  args: string[];
  stmCacheBytes: number;
  /** how long the workers may take to stop on SIGTERM (their GB_SHUTDOWN_GRACE_MS) before they are killed */
  graceMs: number;
}

/** a worker that dies this often within RESTART_WINDOW_MS is not started again: the primary exits */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

/** Runs the workers until a signal stops them; resolves with the exit code. */
export function runPrimary(o: PrimaryOptions): Promise<number> {
  const log = (m: string) => console.log(`gligabao: ${m}`);
  new RateLimiterClusterMaster();
  const stores = primaryStores(o.stmCacheBytes);
  cluster.setupPrimary({ exec: o.nextBin, args: ["start", ...o.args] });
  const listening = new Set<number>();
  const alive = new Set<number>();
  const restarts: number[] = [];
  let stopping = false;
  let code = 0;
  let done: (code: number) => void = () => {};
  const finished = new Promise<number>((r) => (done = r));

  const fork = (): Worker => {
    const w = cluster.fork({ GB_CLUSTER_WORKER: "1" });
    alive.add(w.id);
    w.on("listening", () => {
      listening.add(w.id);
      if (listening.size === o.workers && !stopping) log(`${o.workers} app processes (GB_WORKERS) answer on one port; primary pid ${process.pid}`);
    });
    return w;
  };

  cluster.on("message", (worker: Worker, m: unknown) => {
    if (!m || typeof m !== "object" || (m as Request).channel !== CHANNEL) return;
    void stores.handle(m as Request).then((reply) => {
      if (worker.isConnected()) worker.send(reply);
    });
  });

  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping ${alive.size} app processes`);
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
    // a worker that outlives its grace (and a margin) is killed
    setTimeout(() => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGKILL");
    }, o.graceMs + 10_000).unref();
  };

  cluster.on("exit", (w: Worker, exitCode: number | null, signal: string | null) => {
    const started = listening.delete(w.id);
    alive.delete(w.id);
    if (stopping) {
      if (exitCode) code = code || exitCode;
    } else if (!started) {
      // it never listened: a failed start (it said why on stderr); the others would fail alike
      log(`an app process exited at start (${exitCode ?? signal}); stopping`);
      code = exitCode || 1;
      stopAll("SIGTERM");
    } else {
      const t = Date.now();
      restarts.push(t);
      while (restarts.length && restarts[0]! < t - RESTART_WINDOW_MS) restarts.shift();
      if (restarts.length > MAX_RESTARTS) {
        log(`app processes died ${restarts.length} times in a minute; stopping`);
        code = 1;
        stopAll("SIGTERM");
      } else {
        log(`app process ${w.process.pid} died (${exitCode ?? signal}); starting another`);
        fork();
      }
    }
    if (stopping && alive.size === 0) {
      stores.close();
      done(code);
    }
  });

  for (const s of ["SIGTERM", "SIGINT"] as const) process.on(s, () => stopAll(s));
  for (let i = 0; i < o.workers; i++) fork();
  return finished;
}
