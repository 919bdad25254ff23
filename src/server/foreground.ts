import http from "node:http";

/*
 * Requests first, background work in the gaps. The server is one thread (and on PGlite the
 * database runs on it too): while a long remember runs, every request waits for the remember's
 * work ahead of it. So the remember job, between its steps, lets the requests in flight finish
 * first (yieldToForeground), for at most a bounded time, so that it still progresses under a
 * steady stream of requests. Requests are counted on every http.Server of the process
 * (installForegroundCount, at start-up).
 */

const INSTALLED = Symbol.for("gligabao.foregroundCount");
// on globalThis: the built app bundles this module twice (instrumentation and routes)
const state = globalThis as unknown as { __gbForeground?: { inFlight: number; parked: number; idle: (() => void)[] } };
const fg = (state.__gbForeground ??= { inFlight: 0, parked: 0, idle: [] });

/** requests in flight that are doing work: not those waiting on the background (parked) */
const busy = () => fg.inFlight - fg.parked > 0;
const wakeIfIdle = () => {
  if (!busy()) for (const wake of fg.idle.splice(0)) wake();
};

/** How long background work waits for the requests in flight before it goes on anyway. */
export const FOREGROUND_WAIT_MS = 100;

/** Counts a request in flight until `end` is called (once; later calls do nothing). */
export function beginForeground(): () => void {
  fg.inFlight += 1;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    fg.inFlight -= 1;
    wakeIfIdle();
  };
}

/**
 * A request waiting on background work (a submit with `wait: true` waits for its own remember)
 * is not foreground while it waits: else the remember would give way to the request that waits
 * for it.
 */
export async function parkedWhile<T>(work: Promise<T>): Promise<T> {
  fg.parked += 1;
  wakeIfIdle();
  try {
    return await work;
  } finally {
    fg.parked -= 1;
  }
}

/** The requests in flight now, and how many of them wait on background work. */
export const foregroundInFlight = () => ({ inFlight: fg.inFlight, parked: fg.parked });

/**
 * Resolves once no request is in flight, or after `maxMs`; at once when none is. Always lets the
 * event loop turn first, so that requests that arrived meanwhile are counted.
 */
export async function yieldToForeground(maxMs = FOREGROUND_WAIT_MS): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (!busy()) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, maxMs);
    function done() {
      clearTimeout(timer);
      const i = fg.idle.indexOf(done);
      if (i >= 0) fg.idle.splice(i, 1);
      resolve();
    }
    fg.idle.push(done);
  });
}

/** Counts every request of every http.Server of this process, from arrival to its response's close. */
export function installForegroundCount(): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: true };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  const emit = proto.emit;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const end = beginForeground();
      (args[1] as http.ServerResponse).once("close", end);
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof proto.emit;
}
