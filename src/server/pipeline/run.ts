import { withInferenceScope } from "./sink";
import { Output, StopSignal, type Observer, type RunOptions, type RunResult, type Stage, type Step } from "./types";

/*
 * The runner's control flow, for every step in order:
 *
 *   Each(items, steps):  for every item, run `steps` on it to the end before the next item;
 *                        then skip the group's stages that no item reached (no items, or Stop).
 *   Stage s:
 *     yield to the event loop (see below)
 *     if the run's signal is aborted → throw its reason (no stage is started after an abort)
 *     if an earlier stage returned Stop, or s.enabled(job) is false:
 *        skip(s) and its `also` stages — unless an earlier item already ran them — and go on
 *     start(s), start(also…)
 *     result = s.run(job) inside an inference scope named s (AsyncLocalStorage)
 *     result is an Output        → output(s, item index or null, value, start, end)
 *     done(s, err), done(also…, err)
 *     err and s.policy is fatal  → throw err: the stages after s stay not_started
 *     err and advisory           → go on (the error is on the stage only)
 *     result is Stop (or an Output with Stop) → every stage not yet reached is skipped; run resolves
 *
 * Every observer hook is awaited in order and wrapped: a hook that throws is logged and the run
 * goes on. addInference hooks run one after the other while the stage runs, and all of them have
 * ended before done(s). A null observer is allowed (nothing is told).
 *
 * Before each stage the runner lets the event loop turn (setImmediate). A pipeline whose awaits
 * all settle as microtasks (an in-process database such as PGlite, models without I/O) would
 * otherwise run from end to end, and a queue of them one after the other, without the process
 * ever reading a socket, a timer or a signal: no HTTP answer, no heartbeat, no SIGTERM until the
 * queue is empty.
 */

const noObserver: Observer = {
  start() {},
  done() {},
  skip() {},
  addInference() {},
  output() {},
};

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

class Runner {
  /** stages that have started or been skipped in this run */
  private readonly touched = new Set<string>();
  stoppedBy: string | null = null;
  /** the addInference hooks called so far, chained; hook() never rejects, so neither does this */
  private inferences: Promise<void> = Promise.resolve();

  constructor(
    private readonly observer: Observer,
    private readonly log: (message: string, error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
  ) {}

  private async hook(name: keyof Observer, call: () => void | Promise<void>): Promise<void> {
    try {
      await call();
    } catch (e) {
      this.log(`pipeline observer ${name} failed`, e);
    }
  }

  /** `itemIndex`: the run-log index of the Each item being run (the innermost), null outside any */
  async steps(list: readonly Step<unknown>[], job: unknown, itemIndex: number | null = null): Promise<void> {
    for (const step of list) {
      if (step.kind === "stage") {
        await this.stage(step, job, itemIndex);
        continue;
      }
      if (this.stoppedBy === null) {
        for (const itemJob of step.items(job)) {
          await this.steps(step.steps, itemJob, step.itemIndex(itemJob));
          if (this.stoppedBy !== null) break;
        }
      }
      await this.skipUntouched(step.steps);
    }
  }

  private async skipUntouched(list: readonly Step<unknown>[]): Promise<void> {
    for (const step of list) {
      if (step.kind === "each") {
        await this.skipUntouched(step.steps);
        continue;
      }
      for (const name of [step.name, ...(typeof step.also === "function" ? [] : step.also)]) {
        if (this.touched.has(name)) continue;
        this.touched.add(name);
        await this.hook("skip", () => this.observer.skip(name));
      }
    }
  }

  private async stage(s: Stage<unknown>, job: unknown, itemIndex: number | null): Promise<void> {
    await yieldToEventLoop();
    this.signal?.throwIfAborted();
    if (this.stoppedBy !== null || (s.enabled !== undefined && !s.enabled(job))) {
      await this.skipUntouched([s]);
      return;
    }
    const group = [s.name, ...(typeof s.also === "function" ? s.also(job) : s.also)];
    const startedAt = new Date();
    for (const name of group) {
      this.touched.add(name);
      await this.hook("start", () => this.observer.start(name, startedAt));
    }
    const scope = {
      stage: s.name,
      addInference: (id: string) => {
        // The sink is called synchronously from anywhere in the stage, so it cannot await the
        // hook; the hooks are chained instead (one at a time, in order) and awaited before done.
        this.inferences = this.inferences.then(() =>
          this.hook("addInference", () => this.observer.addInference(s.name, id)),
        );
      },
    };
    let error: Error | null = null;
    let result: unknown;
    try {
      result = await withInferenceScope(scope, () => s.run(job));
    } catch (e) {
      error = toError(e);
    }
    await this.inferences;
    const finishedAt = new Date();
    if (result instanceof Output) {
      const value = result.value;
      await this.hook("output", () => this.observer.output(s.name, itemIndex, value, startedAt, finishedAt));
    }
    for (const name of group) await this.hook("done", () => this.observer.done(name, error, finishedAt));
    if (error !== null && s.policy === "fatal") throw error;
    if (result instanceof StopSignal || (result instanceof Output && result.stop)) this.stoppedBy = s.name;
  }
}

/**
 * Runs a pipeline on one call's job. Resolves when every stage has run, been skipped or the
 * pipeline stopped; rejects with the error of the first fatal stage that failed.
 */
export async function run<J>(
  steps: readonly Step<J>[],
  job: J,
  observer: Observer | null,
  options: RunOptions = {},
): Promise<RunResult> {
  const log = options.log ?? ((message, error) => console.error(message, error));
  const runner = new Runner(observer ?? noObserver, log, options.signal);
  // Stages are contravariant in J; the runner hands each step back the job it was given.
  await runner.steps(steps as readonly Step<unknown>[], job);
  return { stoppedBy: runner.stoppedBy };
}
