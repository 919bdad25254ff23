import { afterEach, describe, expect, it, vi } from "vitest";
import { each, names, stage } from "./define";
import { RecordingObserver, type FailingHook, type HookCall } from "./recording-observer.test-util";
import { run } from "./run";
import { currentInferenceScope } from "./sink";
import { output, Stop, type Item, type Observer, type Policy, type StageResult, type Step } from "./types";

interface Job {
  chunks: string[];
}
type ChunkItem = Item<Job, string>;

interface Options<J> {
  /** the stage's own work, after it has noted that it runs */
  does?: (job: J) => StageResult | Promise<StageResult>;
  policy?: Policy;
  enabled?: (job: J) => boolean;
  also?: string[] | ((job: J) => readonly string[]);
}

/** A stage that notes ["run", name] in the recorder's sequence, then does its work. */
function stageOf<J = Job>(rec: RecordingObserver, name: string, options: Options<J> = {}) {
  const { does, ...rest } = options;
  return stage<J>({
    name,
    ...rest,
    run: (job) => {
      rec.ran(name);
      return does?.(job);
    },
  });
}

const job = (...chunks: string[]): Job => ({ chunks });
const chunks = (j: Job) => j.chunks;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const fail = (message: string) => () => {
  throw new Error(message);
};
/** The calls of a stage (without also stages) that ran and succeeded, or failed with `error`. */
const ranOk = (name: string): HookCall[] => [["start", name], ["run", name], ["done", name, null]];
const ranFailed = (name: string, error: string): HookCall[] => [["start", name], ["run", name], ["done", name, error]];

afterEach(() => {
  vi.restoreAllMocks();
});

describe("run: stages in order", () => {
  it("starts, runs and ends every stage, one after the other", async () => {
    const rec = new RecordingObserver();
    const steps = [stageOf(rec, "a"), stageOf(rec, "b"), stageOf(rec, "c")];
    await expect(run(steps, job(), rec)).resolves.toEqual({ stoppedBy: null });
    expect(rec.calls).toEqual([...ranOk("a"), ...ranOk("b"), ...ranOk("c")]);
    expect(rec.statuses(names(steps))).toEqual({ a: "succeeded", b: "succeeded", c: "succeeded" });
  });

  it("awaits an async stage before the next one", async () => {
    const rec = new RecordingObserver();
    const steps = [stageOf(rec, "slow", { does: () => delay(10) }), stageOf(rec, "next")];
    await run(steps, job(), rec);
    expect(rec.calls).toEqual([...ranOk("slow"), ...ranOk("next")]);
  });

  it("hands every stage the same job, so a stage sees what earlier ones left", async () => {
    const rec = new RecordingObserver();
    const theJob = job();
    const seen: Job[] = [];
    const steps = [
      stageOf(rec, "a", { does: (j) => void j.chunks.push("from a") }),
      stageOf(rec, "b", { does: (j) => void seen.push(j) }),
    ];
    await run(steps, theJob, rec);
    expect(seen).toEqual([theJob]);
    expect(seen[0]).toBe(theJob);
    expect(theJob.chunks).toEqual(["from a"]);
  });

  it("skips a stage that is not enabled, without running it, and goes on", async () => {
    const rec = new RecordingObserver();
    const theJob = job();
    const enabled = vi.fn((_: Job) => false);
    const steps = [stageOf(rec, "a"), stageOf(rec, "b", { enabled }), stageOf(rec, "c", { enabled: () => true })];
    await expect(run(steps, theJob, rec)).resolves.toEqual({ stoppedBy: null });
    expect(rec.calls).toEqual([...ranOk("a"), ["skip", "b"], ...ranOk("c")]);
    expect(enabled).toHaveBeenCalledExactlyOnceWith(theJob);
    expect(rec.statuses(names(steps))).toEqual({ a: "succeeded", b: "skipped", c: "succeeded" });
  });

  it("resolves with nothing told for an empty pipeline", async () => {
    const rec = new RecordingObserver();
    await expect(run([], job(), rec)).resolves.toEqual({ stoppedBy: null });
    expect(rec.calls).toEqual([]);
  });
});

describe("run: errors and policies", () => {
  it("ends the pipeline on a fatal error: rejects with that very error, later stages stay not_started", async () => {
    const rec = new RecordingObserver();
    const boom = new Error("boom");
    const steps = [
      stageOf(rec, "a"),
      stageOf(rec, "b", {
        does: () => {
          throw boom;
        },
      }),
      stageOf(rec, "c"),
      stageOf(rec, "d", { enabled: () => false }),
      each<Job, string>(chunks, [stageOf<ChunkItem>(rec, "x")]),
    ];
    const error = await run(steps, job("1"), rec).catch((e: unknown) => e);
    expect(error).toBe(boom);
    expect(rec.calls).toEqual([...ranOk("a"), ...ranFailed("b", "boom")]);
    expect(rec.doneErrors).toEqual([null, boom]);
    expect(rec.doneErrors[1]).toBe(boom);
    expect(rec.statuses(names(steps))).toEqual({
      a: "succeeded",
      b: "failed",
      c: "not_started",
      d: "not_started",
      x: "not_started",
    });
  });

  it("treats an async rejection like a throw", async () => {
    const rec = new RecordingObserver();
    const boom = new Error("later");
    const steps = [
      stageOf(rec, "a", {
        does: async () => {
          await delay(1);
          throw boom;
        },
      }),
      stageOf(rec, "b"),
    ];
    await expect(run(steps, job(), rec)).rejects.toBe(boom);
    expect(rec.calls).toEqual(ranFailed("a", "later"));
  });

  it("wraps a thrown non-Error in an Error", async () => {
    const rec = new RecordingObserver();
    const steps = [
      stageOf(rec, "a", {
        does: () => {
          throw "just a string";
        },
      }),
    ];
    const error = await run(steps, job(), rec).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("just a string");
    expect(rec.doneErrors[0]).toBe(error);
  });

  it("records an advisory error on the stage and goes on; the run resolves", async () => {
    const rec = new RecordingObserver();
    const steps = [
      stageOf(rec, "a"),
      stageOf(rec, "geo", { policy: "advisory", does: fail("no geo") }),
      stageOf(rec, "c"),
    ];
    await expect(run(steps, job(), rec)).resolves.toEqual({ stoppedBy: null });
    expect(rec.calls).toEqual([...ranOk("a"), ...ranFailed("geo", "no geo"), ...ranOk("c")]);
    expect(rec.statuses(names(steps))).toEqual({ a: "succeeded", geo: "failed", c: "succeeded" });
    expect(rec.stages(names(steps)).geo).toMatchObject({ status: "failed", error: "no geo" });
  });

  it("runs a stage whose policy is fatal explicitly like the default", async () => {
    const rec = new RecordingObserver();
    const steps = [stageOf(rec, "a", { policy: "fatal", does: fail("x") }), stageOf(rec, "b")];
    await expect(run(steps, job(), rec)).rejects.toThrow("x");
    expect(rec.calls).toEqual(ranFailed("a", "x"));
  });
});

describe("run: Stop", () => {
  it("ends the stage as succeeded and skips every later stage exactly once", async () => {
    const rec = new RecordingObserver();
    const steps: Step<Job>[] = [
      stageOf(rec, "a"),
      stageOf(rec, "stopper", { does: () => Stop }),
      stageOf(rec, "c", { also: ["c_too"] }),
      stageOf(rec, "d", { enabled: () => true }),
      each<Job, string>(chunks, [stageOf<ChunkItem>(rec, "x", { also: ["x_too"] }), stageOf<ChunkItem>(rec, "y")]),
      stageOf(rec, "e"),
    ];
    await expect(run(steps, job("1", "2"), rec)).resolves.toEqual({ stoppedBy: "stopper" });
    expect(rec.calls).toEqual([
      ...ranOk("a"),
      ...ranOk("stopper"),
      ["skip", "c"],
      ["skip", "c_too"],
      ["skip", "d"],
      ["skip", "x"],
      ["skip", "x_too"],
      ["skip", "y"],
      ["skip", "e"],
    ]);
    expect(rec.statuses(names(steps))).toEqual({
      a: "succeeded",
      stopper: "succeeded",
      c: "skipped",
      c_too: "skipped",
      d: "skipped",
      x: "skipped",
      x_too: "skipped",
      y: "skipped",
      e: "skipped",
    });
  });

  it("does not ask whether a later stage is enabled, nor a later Each for its items", async () => {
    const rec = new RecordingObserver();
    const enabled = vi.fn(() => true);
    const items = vi.fn(chunks);
    const steps: Step<Job>[] = [
      stageOf(rec, "stopper", { does: () => Stop }),
      stageOf(rec, "b", { enabled }),
      each<Job, string>(items, [stageOf<ChunkItem>(rec, "x")]),
    ];
    await run(steps, job("1"), rec);
    expect(enabled).not.toHaveBeenCalled();
    expect(items).not.toHaveBeenCalled();
  });

  it("works from an async stage", async () => {
    const rec = new RecordingObserver();
    const steps = [
      stageOf(rec, "a", {
        does: async () => {
          await delay(1);
          return Stop;
        },
      }),
      stageOf(rec, "b"),
    ];
    await expect(run(steps, job(), rec)).resolves.toEqual({ stoppedBy: "a" });
    expect(rec.calls).toEqual([...ranOk("a"), ["skip", "b"]]);
  });

  it("skips nothing when the last stage stops", async () => {
    const rec = new RecordingObserver();
    const steps = [stageOf(rec, "a"), stageOf(rec, "last", { does: () => Stop })];
    await expect(run(steps, job(), rec)).resolves.toEqual({ stoppedBy: "last" });
    expect(rec.calls).toEqual([...ranOk("a"), ...ranOk("last")]);
  });

  it("does not skip again a stage that was already skipped, nor run one that already ran", async () => {
    const rec = new RecordingObserver();
    const shared = stageOf(rec, "shared");
    const off = stageOf(rec, "off", { enabled: () => false });
    const steps = [shared, off, stageOf(rec, "stopper", { does: () => Stop }), off, shared, stageOf(rec, "z")];
    await run(steps, job(), rec);
    expect(rec.calls).toEqual([...ranOk("shared"), ["skip", "off"], ...ranOk("stopper"), ["skip", "z"]]);
  });

  it("stops from an advisory stage too", async () => {
    const rec = new RecordingObserver();
    const steps = [stageOf(rec, "a", { policy: "advisory", does: () => Stop }), stageOf(rec, "b")];
    await expect(run(steps, job(), rec)).resolves.toEqual({ stoppedBy: "a" });
    expect(rec.calls).toEqual([...ranOk("a"), ["skip", "b"]]);
  });
});

describe("run: Each", () => {
  const group = (rec: RecordingObserver, options: { [name: string]: Options<ChunkItem> } = {}) =>
    each<Job, string>(chunks, [stageOf<ChunkItem>(rec, "x", options.x), stageOf<ChunkItem>(rec, "y", options.y)]);

  it("runs every item to the end before the next one", async () => {
    const rec = new RecordingObserver();
    const steps = [stageOf(rec, "pre"), group(rec), stageOf(rec, "post")];
    await expect(run(steps, job("c0", "c1"), rec)).resolves.toEqual({ stoppedBy: null });
    expect(rec.calls).toEqual([
      ...ranOk("pre"),
      ...ranOk("x"),
      ...ranOk("y"),
      ...ranOk("x"),
      ...ranOk("y"),
      ...ranOk("post"),
    ]);
  });

  it("awaits an async stage of item 0 before item 1 starts", async () => {
    const rec = new RecordingObserver();
    const steps = [group(rec, { y: { does: async (it) => delay(it.index === 0 ? 10 : 0) } })];
    await run(steps, job("c0", "c1"), rec);
    expect(rec.calls).toEqual([...ranOk("x"), ...ranOk("y"), ...ranOk("x"), ...ranOk("y")]);
  });

  it("hands the stages an Item with the job, the item and its index", async () => {
    const rec = new RecordingObserver();
    const seen: ChunkItem[] = [];
    const theJob = job("c0", "c1");
    await run([group(rec, { x: { does: (it) => void seen.push(it) } })], theJob, rec);
    expect(seen).toEqual([
      { job: theJob, item: "c0", index: 0 },
      { job: theJob, item: "c1", index: 1 },
    ]);
    expect(seen.every((it) => it.job === theJob)).toBe(true);
  });

  it("keeps a stage's first start, so it spans all the items", async () => {
    const rec = new RecordingObserver();
    const steps = [group(rec)];
    await run(steps, job("c0", "c1", "c2"), rec);
    const starts = rec.calls.flatMap((call, at) => (call[0] === "start" && call[1] === "x" ? [at] : []));
    const dones = rec.calls.flatMap((call, at) => (call[0] === "done" && call[1] === "x" ? [at] : []));
    expect(starts).toHaveLength(3);
    expect(rec.stages(["x", "y"]).x).toEqual({
      status: "succeeded",
      error: null,
      startedAt: starts[0],
      finishedAt: dones[2],
      inferenceIds: [],
    });
    expect(starts[0]).toBe(0);
  });

  it("skips the group's stages, also ones included, when there are no items", async () => {
    const rec = new RecordingObserver();
    const steps = [stageOf(rec, "pre"), group(rec, { y: { also: ["y_too"] } }), stageOf(rec, "post")];
    await expect(run(steps, job(), rec)).resolves.toEqual({ stoppedBy: null });
    expect(rec.calls).toEqual([...ranOk("pre"), ["skip", "x"], ["skip", "y"], ["skip", "y_too"], ...ranOk("post")]);
  });

  it("on Stop in item 0, skips the item's stages that never ran, and all later items and steps", async () => {
    const rec = new RecordingObserver();
    const steps = [group(rec, { x: { does: () => Stop } }), stageOf(rec, "post")];
    await expect(run(steps, job("c0", "c1", "c2"), rec)).resolves.toEqual({ stoppedBy: "x" });
    expect(rec.calls).toEqual([...ranOk("x"), ["skip", "y"], ["skip", "post"]]);
  });

  it("on Stop in item 1, does not skip a stage that ran for item 0", async () => {
    const rec = new RecordingObserver();
    const steps = [
      group(rec, { x: { does: (it) => (it.index === 1 ? Stop : undefined) } }),
      stageOf(rec, "post"),
      group(rec),
    ];
    await expect(run(steps, job("c0", "c1", "c2"), rec)).resolves.toEqual({ stoppedBy: "x" });
    expect(rec.calls).toEqual([...ranOk("x"), ...ranOk("y"), ...ranOk("x"), ["skip", "post"]]);
    expect(rec.statuses(["x", "y", "post"])).toEqual({ x: "succeeded", y: "succeeded", post: "skipped" });
  });

  it("on Stop in a later item, skips a stage of the group that no item reached", async () => {
    const rec = new RecordingObserver();
    const group3 = each<Job, string>(chunks, [
      stageOf<ChunkItem>(rec, "x", { does: (it) => (it.index === 1 ? Stop : undefined) }),
      stageOf<ChunkItem>(rec, "late", { enabled: (it) => it.index >= 1 }),
    ]);
    await run([group3], job("c0", "c1", "c2"), rec);
    // late is skipped once, when item 0 does not use it; Stop does not skip it again
    expect(rec.calls).toEqual([...ranOk("x"), ["skip", "late"], ...ranOk("x")]);
  });

  it("does not skip a stage disabled for item 1 that ran for item 0", async () => {
    const rec = new RecordingObserver();
    const steps = [group(rec, { y: { enabled: (it) => it.index === 0 } })];
    await run(steps, job("c0", "c1"), rec);
    expect(rec.calls).toEqual([...ranOk("x"), ...ranOk("y"), ...ranOk("x")]);
    expect(rec.statuses(["x", "y"])).toEqual({ x: "succeeded", y: "succeeded" });
  });

  it("skips a stage disabled for item 0 at once, and starts it for item 1 that uses it", async () => {
    // The skip is sent when item 0 does not use the stage; a later item may still run it, and a
    // run log then ends with the stage succeeded, started at item 1.
    const rec = new RecordingObserver();
    const steps = [group(rec, { y: { enabled: (it) => it.index === 1 } })];
    await run(steps, job("c0", "c1"), rec);
    expect(rec.calls).toEqual([...ranOk("x"), ["skip", "y"], ...ranOk("x"), ...ranOk("y")]);
    expect(rec.stages(["x", "y"]).y).toMatchObject({ status: "succeeded", startedAt: 7 });
  });

  it("skips once a stage disabled for every item", async () => {
    const rec = new RecordingObserver();
    const steps = [group(rec, { y: { enabled: () => false } })];
    await run(steps, job("c0", "c1"), rec);
    expect(rec.calls).toEqual([...ranOk("x"), ["skip", "y"], ...ranOk("x")]);
  });

  it("on a fatal error in item 1, rejects with it and tells later stages nothing", async () => {
    const rec = new RecordingObserver();
    const boom = new Error("item 1 broke");
    const steps = [
      group(rec, {
        x: {
          does: (it) => {
            if (it.index === 1) throw boom;
          },
        },
      }),
      stageOf(rec, "post"),
    ];
    await expect(run(steps, job("c0", "c1", "c2"), rec)).rejects.toBe(boom);
    expect(rec.calls).toEqual([...ranOk("x"), ...ranOk("y"), ...ranFailed("x", "item 1 broke")]);
    expect(rec.statuses(["x", "y", "post"])).toEqual({ x: "failed", y: "succeeded", post: "not_started" });
  });

  it("on a fatal error in item 0, leaves the stages no item reached not_started", async () => {
    const rec = new RecordingObserver();
    const steps = [group(rec, { x: { does: fail("first") } }), stageOf(rec, "post")];
    await expect(run(steps, job("c0", "c1"), rec)).rejects.toThrow("first");
    expect(rec.calls).toEqual(ranFailed("x", "first"));
    expect(rec.statuses(["x", "y", "post"])).toEqual({ x: "failed", y: "not_started", post: "not_started" });
  });

  it("goes on to item 1 after an advisory error in item 0", async () => {
    const rec = new RecordingObserver();
    const steps = [
      group(rec, {
        x: {
          policy: "advisory",
          does: (it) => {
            if (it.index === 0) throw new Error("item 0 only");
          },
        },
      }),
    ];
    await expect(run(steps, job("c0", "c1"), rec)).resolves.toEqual({ stoppedBy: null });
    expect(rec.calls).toEqual([...ranFailed("x", "item 0 only"), ...ranOk("y"), ...ranOk("x"), ...ranOk("y")]);
  });

  it("runs a nested Each for every outer item, and Stop inside it ends everything", async () => {
    const rec = new RecordingObserver();
    type Inner = Item<ChunkItem, number>;
    const steps: Step<Job>[] = [
      each<Job, string>(chunks, [
        stageOf<ChunkItem>(rec, "outer"),
        each<ChunkItem, number>(
          () => [0, 1],
          [stageOf<Inner>(rec, "inner", { does: (it) => (it.job.index === 1 && it.index === 1 ? Stop : undefined) })],
        ),
        stageOf<ChunkItem>(rec, "after_inner"),
      ]),
      stageOf(rec, "post"),
    ];
    await expect(run(steps, job("c0", "c1", "c2"), rec)).resolves.toEqual({ stoppedBy: "inner" });
    expect(rec.calls).toEqual([
      ...ranOk("outer"),
      ...ranOk("inner"),
      ...ranOk("inner"),
      ...ranOk("after_inner"),
      ...ranOk("outer"),
      ...ranOk("inner"),
      ...ranOk("inner"),
      ["skip", "post"],
    ]);
  });
});

describe("run: also", () => {
  it("starts the also stages right after their stage, and ends them right after it", async () => {
    const rec = new RecordingObserver();
    const steps = [stageOf(rec, "store", { also: ["store_series", "store_more"] }), stageOf(rec, "next")];
    await run(steps, job(), rec);
    expect(rec.calls).toEqual([
      ["start", "store"],
      ["start", "store_series"],
      ["start", "store_more"],
      ["run", "store"],
      ["done", "store", null],
      ["done", "store_series", null],
      ["done", "store_more", null],
      ...ranOk("next"),
    ]);
  });

  it("ends the also stages with the same error object", async () => {
    const rec = new RecordingObserver();
    const boom = new Error("store failed");
    const steps = [
      stageOf(rec, "store", {
        also: ["store_series"],
        policy: "advisory",
        does: () => {
          throw boom;
        },
      }),
    ];
    await run(steps, job(), rec);
    expect(rec.calls).toEqual([
      ["start", "store"],
      ["start", "store_series"],
      ["run", "store"],
      ["done", "store", "store failed"],
      ["done", "store_series", "store failed"],
    ]);
    expect(rec.doneErrors).toEqual([boom, boom]);
    expect(rec.doneErrors[1]).toBe(boom);
  });

  it("skips the also stages with their stage", async () => {
    const rec = new RecordingObserver();
    const steps = [stageOf(rec, "store", { also: ["store_series"], enabled: () => false }), stageOf(rec, "next")];
    await run(steps, job(), rec);
    expect(rec.calls).toEqual([["skip", "store"], ["skip", "store_series"], ...ranOk("next")]);
    expect(rec.statuses(names(steps))).toEqual({ store: "skipped", store_series: "skipped", next: "succeeded" });
  });

  it("starts the also stages again with their stage for every item", async () => {
    const rec = new RecordingObserver();
    const steps = [each<Job, string>(chunks, [stageOf<ChunkItem>(rec, "store", { also: ["store_series"] })])];
    await run(steps, job("c0", "c1"), rec);
    const once: HookCall[] = [
      ["start", "store"],
      ["start", "store_series"],
      ["run", "store"],
      ["done", "store", null],
      ["done", "store_series", null],
    ];
    expect(rec.calls).toEqual([...once, ...once]);
    expect(rec.stages(["store", "store_series"]).store_series?.startedAt).toBe(1);
  });
});

describe("run: also decided per call", () => {
  // store does store_series too for a one-chunk text; a longer text has its own store_series stage
  const pipeline = (rec: RecordingObserver) => [
    each<Job, string>(chunks, [
      stageOf<ChunkItem>(rec, "store", { also: ({ job: j }) => (j.chunks.length === 1 ? ["store_series"] : []) }),
    ]),
    stageOf(rec, "store_series", { enabled: (j) => j.chunks.length > 1 }),
  ];

  it("starts and ends the named stage with its owner, and the stage of its own is not skipped over it", async () => {
    const rec = new RecordingObserver();
    await run(pipeline(rec), job("c0"), rec);
    expect(rec.calls).toEqual([
      ["start", "store"],
      ["start", "store_series"],
      ["run", "store"],
      ["done", "store", null],
      ["done", "store_series", null],
    ]);
  });

  it("names nothing for another call, which runs the stage on its own", async () => {
    const rec = new RecordingObserver();
    await run(pipeline(rec), job("c0", "c1"), rec);
    expect(rec.calls).toEqual([...ranOk("store"), ...ranOk("store"), ...ranOk("store_series")]);
    expect(names(pipeline(rec))).toEqual(["store", "store_series"]);
  });
});

describe("run: outputs", () => {
  it("tells a stage's Output to the observer after its run and before its done, with the item's times", async () => {
    const times: [Date, Date][] = [];
    const rec = new RecordingObserver();
    const observer: Observer = {
      start: (stage) => rec.start(stage),
      done: (stage, error) => rec.done(stage, error),
      skip: (stage) => rec.skip(stage),
      addInference: (stage, id) => rec.addInference(stage, id),
      output: (stage, index, value, startedAt, finishedAt) => {
        times.push([startedAt, finishedAt]);
        return rec.output(stage, index, value);
      },
    };
    const before = Date.now();
    const steps = [stageOf(rec, "once", { does: async () => (await delay(5), output({ n: 1 })) }), stageOf(rec, "none")];
    await run(steps, job(), observer);
    expect(rec.calls).toEqual([["start", "once"], ["run", "once"], ["output", "once", null, { n: 1 }], ["done", "once", null], ...ranOk("none")]);
    const [startedAt, finishedAt] = times[0]!;
    expect(startedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(finishedAt.getTime() - startedAt.getTime()).toBeGreaterThanOrEqual(4);
  });

  it("gives an Each item's output the item's index, or the index each() was told", async () => {
    const rec = new RecordingObserver();
    const x = stageOf<ChunkItem>(rec, "x", { does: (it) => output(it.item) });
    await run([each<Job, string>(chunks, [x])], job("a", "b"), rec);
    await run([each<Job, string>(chunks, [x], (item) => (item === "a" ? 7 : 9))], job("a", "b"), rec);
    expect(rec.outputs()).toEqual([
      ["x", 0, "a"],
      ["x", 1, "b"],
      ["x", 7, "a"],
      ["x", 9, "b"],
    ]);
  });

  it("stops after an Output with Stop, as after Stop", async () => {
    const rec = new RecordingObserver();
    const steps = [stageOf(rec, "a", { does: () => output("last", Stop) }), stageOf(rec, "b")];
    await expect(run(steps, job(), rec)).resolves.toEqual({ stoppedBy: "a" });
    expect(rec.outputs()).toEqual([["a", null, "last"]]);
    expect(rec.statuses(["a", "b"])).toEqual({ a: "succeeded", b: "skipped" });
  });

  it("goes on when the output hook fails (logged)", async () => {
    const log = vi.fn();
    const rec = new RecordingObserver({ hook: "output", mode: "reject" });
    const steps = [stageOf(rec, "a", { does: () => output(1) }), stageOf(rec, "b")];
    await expect(run(steps, job(), rec, { log })).resolves.toEqual({ stoppedBy: null });
    expect(log).toHaveBeenCalledOnce();
    expect(rec.statuses(["a", "b"])).toEqual({ a: "succeeded", b: "succeeded" });
  });
});

describe("run: the observer", () => {
  it("may be null", async () => {
    const plain = (name: string, does: () => StageResult = () => {}) => stage<Job>({ name, run: does });
    await expect(run([plain("a"), plain("b", () => Stop), plain("c")], job(), null)).resolves.toEqual({
      stoppedBy: "b",
    });
    const boom = new Error("boom");
    const failing = plain("a", () => {
      currentInferenceScope()?.addInference("id");
      throw boom;
    });
    await expect(run([failing, plain("b")], job(), null)).rejects.toBe(boom);
  });

  /** A pipeline that calls every hook: start, done (ok and failed), skip and addInference. */
  const everyHook = (rec: RecordingObserver): Step<Job>[] => [
    stageOf(rec, "infers", { does: () => currentInferenceScope()?.addInference("inf-1") }),
    stageOf(rec, "advisory", { policy: "advisory", does: fail("meh") }),
    stageOf(rec, "off", { enabled: () => false }),
    each<Job, string>(chunks, [stageOf<ChunkItem>(rec, "x")]),
    stageOf(rec, "stopper", { does: () => Stop }),
    stageOf(rec, "after"),
  ];

  const failures: FailingHook[] = (["start", "done", "skip", "addInference"] as const).flatMap((hook) =>
    (["throw", "reject"] as const).map((mode) => ({ hook, mode })),
  );

  const failed = "logs a failing $hook hook ($mode) with its name and goes on as if nothing failed";
  it.each(failures)(failed, async (failing) => {
    const reference = new RecordingObserver();
    const expected = await run(everyHook(reference), job("c0", "c1"), reference);

    const rec = new RecordingObserver(failing);
    const log = vi.fn();
    await expect(run(everyHook(rec), job("c0", "c1"), rec, { log })).resolves.toEqual(expected);
    expect(rec.calls).toEqual(reference.calls);

    const kind = failing.hook === "addInference" ? "inference" : failing.hook;
    const times = reference.calls.filter((call) => call[0] === kind);
    expect(times.length).toBeGreaterThan(0);
    expect(log).toHaveBeenCalledTimes(times.length);
    for (const [message, error] of log.mock.calls) {
      expect(message).toContain(failing.hook);
      expect(error).toEqual(new Error(`observer ${failing.hook} is broken`));
    }
  });

  it.each(failures)("still rejects with the stage's error when a $hook hook fails ($mode)", async (failing) => {
    const boom = new Error("boom");
    const steps = (rec: RecordingObserver) => [
      stageOf(rec, "off", { enabled: () => false }),
      stageOf(rec, "a", {
        does: () => {
          currentInferenceScope()?.addInference("inf-1");
          throw boom;
        },
      }),
      stageOf(rec, "b"),
    ];
    const rec = new RecordingObserver(failing);
    const log = vi.fn();
    await expect(run(steps(rec), job(), rec, { log })).rejects.toBe(boom);
    expect(rec.calls).toEqual([
      ["skip", "off"],
      ["start", "a"],
      ["run", "a"],
      ["inference", "a", "inf-1"],
      ["done", "a", "boom"],
    ]);
    expect(log).toHaveBeenCalledOnce();
    expect(log.mock.calls[0]?.[0]).toContain(failing.hook);
  });

  it("logs to console.error when no log is given", async () => {
    const consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
    const rec = new RecordingObserver({ hook: "start", mode: "throw" });
    await expect(run([stageOf(rec, "a")], job(), rec)).resolves.toEqual({ stoppedBy: null });
    expect(consoleError).toHaveBeenCalledOnce();
    expect(consoleError.mock.calls[0]?.[0]).toContain("start");
    expect(rec.calls).toEqual(ranOk("a"));
  });

  it("awaits every hook, addInference included, before calling the next or running a stage", async () => {
    // Every hook takes a while; none may begin (and no stage may run) while another is pending.
    let pending = 0;
    const overlaps: string[] = [];
    const slow =
      (what: string) =>
      async (..._: unknown[]): Promise<void> => {
        if (pending > 0) overlaps.push(what);
        pending++;
        await delay(2);
        pending--;
      };
    const observer: Observer = {
      start: slow("start"),
      done: slow("done"),
      skip: slow("skip"),
      addInference: slow("addInference"),
      output: slow("output"),
    };
    const body = (name: string) => () => {
      if (pending > 0) overlaps.push(`run ${name}`);
      currentInferenceScope()?.addInference(`${name}-1`);
      return output(name);
    };
    const steps = [
      stage<Job>({ name: "a", also: ["a_too"], run: body("a") }),
      stage<Job>({ name: "b", enabled: () => false, run: body("b") }),
      stage<Job>({ name: "c", run: body("c") }),
    ];
    await run(steps, job(), observer);
    expect(pending).toBe(0);
    expect(overlaps).toEqual([]);
  });

  it("has logged a failing async addInference before run resolves", async () => {
    const log = vi.fn();
    const observer: Observer = {
      start() {},
      done() {},
      skip() {},
      async addInference() {
        await delay(5);
        throw new Error("late");
      },
      output() {},
    };
    const steps = [stage<Job>({ name: "a", run: () => currentInferenceScope()?.addInference("id") })];
    await run(steps, job(), observer, { log });
    expect(log).toHaveBeenCalledOnce();
    expect(log.mock.calls[0]?.[0]).toContain("addInference");
  });
});
