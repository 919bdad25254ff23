import { Worker } from "node:worker_threads";

/*
 * Our worker threads are TypeScript. In the built app the bundler compiles each one: it sees
 * `new Worker(new URL("./x.ts", import.meta.url))` and makes the file a worker chunk, so every
 * place that starts a thread spells that expression out. Run from source (vitest, tsx scripts),
 * there is no bundler, and Node cannot load TypeScript in a thread: the thread is started with
 * tsx registered first (from the project directory, where tests and scripts run).
 */

/**
 * This code runs from its TypeScript source, not from the built app. (Not import.meta.url: the
 * bundler keeps the source's URL there. Next sets NEXT_RUNTIME in the server it runs.)
 */
export const fromSource = (): boolean => !process.env.NEXT_RUNTIME;

// evaluated code, not a file: a bootstrap file the bundler would try to compile, tsx and all
const TSX_BOOT = `const { workerData } = require("node:worker_threads");
import("tsx/esm/api").then((tsx) => { tsx.register(); return import(workerData.entry); });`;

/** Starts the TypeScript worker `entry` with tsx. */
export function sourceWorker(entry: URL): Worker {
  return new Worker(TSX_BOOT, { eval: true, workerData: { entry: entry.href } });
}
