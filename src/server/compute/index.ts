import { Worker } from "node:worker_threads";
import { ThreadClient } from "../threads/rpc";
import { fromSource, sourceWorker } from "../threads/source";
import type { ComputeTask, ComputeTasks } from "./tasks";

/*
 * The compute thread: CPU-heavy text work (chunking, the builtin models' reading of a text) runs
 * here, off the thread that serves requests, so that a megabyte of text neither stops the server
 * answering nor waits for it (the server's thread is left to requests and the database's
 * answers). One thread per process, started on first use; a task queues behind those sent
 * before it. If the thread dies, the tasks in flight fail and the next call starts a new one.
 */

function startThread(): Worker {
  // spelled out for the bundler, which makes the file a worker chunk (threads/source.ts)
  return fromSource() ? sourceWorker(new URL("./worker.ts", import.meta.url)) : new Worker(new URL("./worker.ts", import.meta.url));
}

// on globalThis: the built app bundles server modules twice, and one thread serves both copies
const holder = globalThis as unknown as { __gbCompute?: ThreadClient };

function thread(): ThreadClient {
  let t = holder.__gbCompute;
  if (!t || t.ended) t = holder.__gbCompute = new ThreadClient(startThread(), "the compute thread");
  return t;
}

/** Runs `task` on the compute thread. */
export function compute<K extends ComputeTask>(task: K, input: Parameters<ComputeTasks[K]>[0]): Promise<ReturnType<ComputeTasks[K]>> {
  return thread().call({ op: task, input });
}
