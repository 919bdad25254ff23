import type { App } from "./app";

/*
 * Graceful shutdown on SIGTERM and SIGINT: the remember worker stops claiming, the runs in flight
 * get GB_SHUTDOWN_GRACE_MS to finish, the rest are aborted and handed back to the queue (another
 * process, or this one's next start, resumes them from what they stored). API calls are served
 * meanwhile (a remember.submit is queued durably whoever runs it); then new ones are refused with
 * 503 and Retry-After, those in flight get up to 5 s to finish (App.close, requests.ts), the
 * database is closed, and the process exits 0. A second signal exits at once: the runs still in
 * flight are then taken back like those of a crashed process.
 */

export interface ShutdownOptions {
  /** the app, once it has started (null if it never did) */
  app: () => Promise<App | null>;
  graceMs: number;
  log?: (message: string) => void;
  exit?: (code: number) => never | void;
}

/** How long closing may take beyond the grace period before the process exits anyway. */
const CLOSE_MARGIN_MS = 10_000;

export function installShutdown(opts: ShutdownOptions): void {
  const log = opts.log ?? ((m: string) => console.log(m));
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`gligabao: ${signal} again: exiting now (runs in flight are resumed at the next start)`);
      exit(signal === "SIGINT" ? 130 : 143);
      return;
    }
    stopping = true;
    const deadline = setTimeout(() => {
      log(`gligabao: shutdown took longer than ${opts.graceMs + CLOSE_MARGIN_MS} ms: exiting`);
      exit(1);
    }, opts.graceMs + CLOSE_MARGIN_MS);
    deadline.unref();
    void (async () => {
      let code = 0;
      try {
        const app = await opts.app();
        if (app) {
          log(`gligabao: ${signal}: stopping (remember runs in flight get up to ${opts.graceMs} ms to finish)`);
          const report = await app.close({ graceMs: opts.graceMs });
          log(`gligabao: stopped: ${report.finished} run(s) finished, ${report.handedBack} handed back to the queue; database closed`);
        }
      } catch (e) {
        code = 1;
        log(`gligabao: shutdown failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      clearTimeout(deadline);
      exit(code);
    })();
  };
  // Next.js installs its own handlers, which exit as soon as the HTTP server has closed, without
  // the app: ours replace them (NEXT_MANUAL_SIG_HANDLE, which `npm start` sets, keeps Next from
  // installing them in the first place).
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.removeAllListeners(signal);
    process.on(signal, onSignal);
  }
}
