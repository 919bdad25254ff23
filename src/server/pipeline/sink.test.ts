import { describe, expect, it } from "vitest";
import { each, stage } from "./define";
import { RecordingObserver } from "./recording-observer.test-util";
import { run } from "./run";
import { currentInferenceScope, withInferenceScope, type InferenceScope } from "./sink";
import type { Item, Step } from "./types";

interface Job {
  chunks: string[];
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a model client does: file the inference under whatever stage is running, if any. */
function recordInference(id: string): void {
  currentInferenceScope()?.addInference(id);
}

/** A model call somewhere deep under a stage: it waits, then records its inference. */
async function modelCall(id: string, ms = 1): Promise<void> {
  await delay(ms);
  recordInference(id);
}

describe("withInferenceScope / currentInferenceScope", () => {
  it("has no scope outside a stage", () => {
    expect(currentInferenceScope()).toBeUndefined();
  });

  it("gives fn the scope, returns its value and leaves no scope behind", async () => {
    const scope: InferenceScope = { stage: "s", addInference: () => {} };
    const value = withInferenceScope(scope, () => currentInferenceScope());
    expect(value).toBe(scope);
    expect(currentInferenceScope()).toBeUndefined();
    const later = await withInferenceScope(scope, async () => {
      await delay(1);
      return currentInferenceScope();
    });
    expect(later).toBe(scope);
    expect(currentInferenceScope()).toBeUndefined();
  });

  it("nests: the inner scope wins inside, the outer one comes back after", () => {
    const outer: InferenceScope = { stage: "outer", addInference: () => {} };
    const inner: InferenceScope = { stage: "inner", addInference: () => {} };
    const seen = withInferenceScope(outer, () => [
      currentInferenceScope()?.stage,
      withInferenceScope(inner, () => currentInferenceScope()?.stage),
      currentInferenceScope()?.stage,
    ]);
    expect(seen).toEqual(["outer", "inner", "outer"]);
  });
});

describe("the runner's inference sink", () => {
  const ways: { how: string; body: () => Promise<void> | void }[] = [
    { how: "directly", body: () => recordInference("id") },
    {
      how: "inside a setTimeout",
      body: () => new Promise<void>((resolve) => setTimeout(() => (recordInference("id"), resolve()), 1)),
    },
    {
      how: "inside a Promise.all of nested async functions",
      body: async () => {
        const nested = async () => {
          await delay(1);
          return modelCall("id");
        };
        await Promise.all([nested(), delay(2)]);
      },
    },
    {
      how: "inside a promise started early and awaited later",
      body: async () => {
        const started = modelCall("id", 5);
        await delay(1);
        await started;
      },
    },
  ];

  it.each(ways)("files an inference made $how under the stage", async ({ body }) => {
    const rec = new RecordingObserver();
    const steps = [
      stage<Job>({ name: "before", run: () => {} }),
      stage<Job>({ name: "model_stage", run: body }),
      stage<Job>({ name: "after", run: () => {} }),
    ];
    await run(steps, { chunks: [] }, rec);
    expect(rec.calls).toEqual([
      ["start", "before"],
      ["done", "before", null],
      ["start", "model_stage"],
      ["inference", "model_stage", "id"],
      ["done", "model_stage", null],
      ["start", "after"],
      ["done", "after", null],
    ]);
  });

  it("names the scope after the stage", async () => {
    const seen: (string | undefined)[] = [];
    const steps = [
      stage<Job>({ name: "a", run: () => void seen.push(currentInferenceScope()?.stage) }),
      stage<Job>({ name: "b", run: () => void seen.push(currentInferenceScope()?.stage) }),
    ];
    await run(steps, { chunks: [] }, null);
    expect(seen).toEqual(["a", "b"]);
    expect(currentInferenceScope()).toBeUndefined();
  });

  it("files every inference of a stage, in the order they were made", async () => {
    const rec = new RecordingObserver();
    const steps = [
      stage<Job>({
        name: "many",
        run: async () => {
          recordInference("first");
          await Promise.all([modelCall("slow", 5), modelCall("fast", 1)]);
        },
      }),
    ];
    await run(steps, { chunks: [] }, rec);
    expect(rec.inferences()).toEqual([
      ["many", "first"],
      ["many", "fast"],
      ["many", "slow"],
    ]);
    expect(rec.stages(["many"]).many?.inferenceIds).toEqual(["first", "fast", "slow"]);
  });

  it("files an inference of a stage that fails under it", async () => {
    const rec = new RecordingObserver();
    const steps = [
      stage<Job>({
        name: "a",
        policy: "advisory",
        run: async () => {
          await modelCall("id");
          throw new Error("after the call");
        },
      }),
    ];
    await run(steps, { chunks: [] }, rec);
    expect(rec.calls).toEqual([
      ["start", "a"],
      ["inference", "a", "id"],
      ["done", "a", "after the call"],
    ]);
  });

  it("files an inference made in an also-owning stage under the owning stage", async () => {
    const rec = new RecordingObserver();
    const steps = [stage<Job>({ name: "store", also: ["store_series"], run: () => modelCall("emb-1") })];
    await run(steps, { chunks: [] }, rec);
    expect(rec.inferences()).toEqual([["store", "emb-1"]]);
    const records = rec.stages(["store", "store_series"]);
    expect(records.store?.inferenceIds).toEqual(["emb-1"]);
    expect(records.store_series?.inferenceIds).toEqual([]);
  });

  it("files the inferences of every item under the stage of the Each", async () => {
    const rec = new RecordingObserver();
    const steps: Step<Job>[] = [
      each<Job, string>(
        (job) => job.chunks,
        [stage<Item<Job, string>>({ name: "extract", run: (it) => modelCall(`extract-${it.item}`) })],
      ),
    ];
    await run(steps, { chunks: ["c0", "c1"] }, rec);
    expect(rec.inferences()).toEqual([
      ["extract", "extract-c0"],
      ["extract", "extract-c1"],
    ]);
  });

  it("keeps two concurrent pipelines' inferences apart", async () => {
    const pipeline = (prefix: string, ms: number): Step<Job>[] => [
      stage<Job>({ name: "one", run: () => modelCall(`${prefix}-1`, ms) }),
      stage<Job>({
        name: "two",
        run: async () => {
          await Promise.all([modelCall(`${prefix}-2a`, ms), modelCall(`${prefix}-2b`, 2 * ms)]);
        },
      }),
    ];
    const left = new RecordingObserver();
    const right = new RecordingObserver();
    // Different delays, so the two runs interleave on the event loop.
    await Promise.all([run(pipeline("L", 3), { chunks: [] }, left), run(pipeline("R", 2), { chunks: [] }, right)]);
    expect(left.inferences()).toEqual([
      ["one", "L-1"],
      ["two", "L-2a"],
      ["two", "L-2b"],
    ]);
    expect(right.inferences()).toEqual([
      ["one", "R-1"],
      ["two", "R-2a"],
      ["two", "R-2b"],
    ]);
  });

  it("files under the innermost stage when a stage runs a pipeline of its own", async () => {
    const outer = new RecordingObserver();
    const inner = new RecordingObserver();
    const innerSteps = [stage<Job>({ name: "inner_stage", run: () => modelCall("inner-id") })];
    const steps = [
      stage<Job>({
        name: "enrich",
        run: async (job) => {
          await modelCall("before");
          await run(innerSteps, job, inner);
          await modelCall("after");
        },
      }),
    ];
    await run(steps, { chunks: [] }, outer);
    expect(outer.inferences()).toEqual([
      ["enrich", "before"],
      ["enrich", "after"],
    ]);
    expect(inner.inferences()).toEqual([["inner_stage", "inner-id"]]);
  });

  it("has no scope in the code around a run, before or after it", async () => {
    const rec = new RecordingObserver();
    expect(currentInferenceScope()).toBeUndefined();
    await run([stage<Job>({ name: "a", run: () => modelCall("id") })], { chunks: [] }, rec);
    expect(currentInferenceScope()).toBeUndefined();
    recordInference("outside");
    expect(rec.inferences()).toEqual([["a", "id"]]);
  });
});
