import cluster from "node:cluster";
import { randomUUID } from "node:crypto";
import { UnavailableError } from "../errors";

/*
 * The app processes `npm start` runs behind one port (GB_WORKERS, bin/start.mjs) share what
 * would otherwise live in each process's memory through their primary, over Node's IPC channel:
 * short-term memory's messages and the sign-in limit's counters (src/server/cluster/primary.ts;
 * the rate limits go through rate-limiter-flexible's own cluster limiter). With GB_REDIS_URL they
 * live in Redis instead, and none of this is used.
 */

/** the message channel of these calls (rate-limiter-flexible's messages share the IPC channel) */
export const CHANNEL = "gligabao";
/** how long a call waits for the primary before it fails (SERVICE_UNAVAILABLE) */
const TIMEOUT_MS = 5_000;
const WHAT = "the app's primary process (npm start's workers share short-term memory and limits through it)";

export interface Request {
  channel: typeof CHANNEL;
  id: string;
  op: string;
  args: unknown[];
}

export interface Reply {
  channel: typeof CHANNEL;
  id: string;
  ok: boolean;
  value?: unknown;
  error?: string;
}

/** Whether this process is one of `npm start`'s workers (bin/start.mjs sets GB_CLUSTER_WORKER). */
export function inCluster(): boolean {
  return cluster.isWorker && process.env.GB_CLUSTER_WORKER === "1" && typeof process.send === "function";
}

const waiting = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  process.on("message", (m: unknown) => {
    if (!m || typeof m !== "object" || (m as Reply).channel !== CHANNEL) return;
    const reply = m as Reply;
    const w = waiting.get(reply.id);
    if (!w) return;
    waiting.delete(reply.id);
    clearTimeout(w.timer);
    if (reply.ok) w.resolve(reply.value);
    else w.reject(new UnavailableError(WHAT, reply.error ?? "it refused the call"));
  });
}

/** Calls `op` in the primary process; fails with UnavailableError when it does not answer. */
export function callPrimary<T>(op: string, ...args: unknown[]): Promise<T> {
  listen();
  const id = randomUUID();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new UnavailableError(WHAT, `it did not answer ${op} in ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    // a worker's call waits on no timer of its own: the process may exit while one is pending
    timer.unref();
    waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
    const request: Request = { channel: CHANNEL, id, op, args };
    process.send!(request, undefined, undefined, (e: Error | null) => {
      if (!e) return;
      waiting.delete(id);
      clearTimeout(timer);
      reject(new UnavailableError(WHAT, e.message, { cause: e }));
    });
  });
}
