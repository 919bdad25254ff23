import type { Worker } from "node:worker_threads";

/*
 * Calls into a worker thread: each request carries an id, the worker answers it (worker.ts's
 * `serve`), and its error comes back with its fields (a database error's code, severity and
 * detail are what callers read of it). The thread keeps the process alive only while a call is
 * in flight: an app that forgets to close it still exits.
 */

/** An error as plain data, to cross threads (a class does not: structured clone keeps fields only). */
export interface PlainError {
  name: string;
  message: string;
  stack?: string;
  fields: Record<string, unknown>;
  cause?: PlainError;
}

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: PlainError };

export function toPlainError(e: unknown): PlainError {
  if (!(e instanceof Error)) return { name: "Error", message: String(e), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (v === null || ["string", "number", "boolean", "undefined"].includes(typeof v)) fields[k] = v;
  }
  return { name: e.name, message: e.message, stack: e.stack, fields, cause: e.cause === undefined ? undefined : toPlainError(e.cause) };
}

export function fromPlainError(p: PlainError): Error {
  const e = new Error(p.message, p.cause ? { cause: fromPlainError(p.cause) } : undefined);
  e.name = p.name;
  Object.assign(e, p.fields);
  if (p.stack) e.stack = p.stack;
  return e;
}

export class ThreadClient {
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private gone: Error | null = null;

  constructor(
    private readonly worker: Worker,
    /** what the thread is, for messages ("the PGlite thread") */
    private readonly name: string,
  ) {
    worker.unref();
    worker.on("message", (reply: Reply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) p.resolve(reply.value);
      else p.reject(fromPlainError(reply.error));
    });
    worker.on("error", (e) => this.end(new Error(`${name} failed: ${e.message}`, { cause: e })));
    worker.on("exit", (code) => this.end(new Error(`${name} has stopped (exit code ${code})`)));
  }

  /** Why the thread is gone, or null while it runs. */
  get ended(): Error | null {
    return this.gone;
  }

  private end(reason: Error): void {
    this.gone ??= reason;
    for (const p of this.pending.values()) p.reject(this.gone);
    this.pending.clear();
  }

  /** Sends a request; resolves with the worker's answer, or rejects with its error. */
  call<T>(msg: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ id, ...msg }, transfer);
    });
  }

  /** Ends the thread; calls in flight reject with `reason`. */
  async terminate(reason = new Error(`${this.name} was closed`)): Promise<void> {
    this.end(reason);
    await this.worker.terminate();
  }
}
