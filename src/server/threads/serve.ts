import { parentPort } from "node:worker_threads";
import { toPlainError } from "./rpc";

/**
 * The worker side of rpc.ts: answers each request with `handle(request)`, one at a time and in
 * the order sent (a request is awaited before the next begins), with transferable results
 * (ArrayBuffers) moved rather than copied.
 */
export function serve(handle: (msg: { id: number; op: string } & Record<string, unknown>) => Promise<unknown>): void {
  const port = parentPort;
  if (!port) throw new Error("this module runs as a worker thread");
  let queue = Promise.resolve();
  port.on("message", (msg: { id: number; op: string } & Record<string, unknown>) => {
    queue = queue.then(async () => {
      try {
        const value = await handle(msg);
        port.postMessage({ id: msg.id, ok: true, value }, value instanceof ArrayBuffer ? [value] : []);
      } catch (e) {
        port.postMessage({ id: msg.id, ok: false, error: toPlainError(e) });
      }
    });
  });
}
