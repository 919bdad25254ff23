import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { withCallSignal } from "./structured";

describe("withCallSignal", () => {
  it("gives the call a signal that follows the run's, and lets go of the run's when the call ends", async () => {
    const run = new AbortController();
    const seen: AbortSignal[] = [];
    for (let i = 0; i < 50; i++) await withCallSignal(run.signal, async (o) => seen.push(o!.signal));
    // fifty calls ended: none still listens to the run (the SDK's own listener sits on the call's signal)
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
    expect(seen.every((s) => s !== run.signal && !s.aborted)).toBe(true);
  });

  it("aborts a call in flight when the run is stopped, with the run's reason", async () => {
    const run = new AbortController();
    let inner: AbortSignal | undefined;
    const call = withCallSignal(run.signal, (o) => {
      inner = o!.signal;
      return new Promise((_, reject) => o!.signal.addEventListener("abort", () => reject(o!.signal.reason)));
    });
    expect(getEventListeners(run.signal, "abort")).toHaveLength(1);
    run.abort(new Error("shutting down"));
    await expect(call).rejects.toThrow("shutting down");
    expect(inner?.aborted).toBe(true);
  });

  it("a run already stopped gives a call that is aborted from its start; no run, no signal", async () => {
    const run = new AbortController();
    run.abort(new Error("lease lost"));
    expect(await withCallSignal(run.signal, async (o) => [o!.signal.aborted, (o!.signal.reason as Error).message])).toEqual([true, "lease lost"]);
    expect(await withCallSignal(undefined, async (o) => o)).toBeUndefined();
  });
});
