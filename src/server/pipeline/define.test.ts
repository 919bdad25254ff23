import { describe, expect, it } from "vitest";
import { each, names, stage } from "./define";
import type { Item, Step } from "./types";

interface Job {
  chunks: string[];
}

const noop = () => {};
const s = <J = Job>(name: string, also?: string[]) => stage<J>({ name, run: noop, also });

describe("stage()", () => {
  it("defaults policy to fatal and also to []", () => {
    const run = () => {};
    const defined = stage<Job>({ name: "a", run });
    expect(defined).toEqual({ kind: "stage", name: "a", run, policy: "fatal", enabled: undefined, also: [] });
    expect(defined.run).toBe(run);
  });

  it("keeps what it is given", () => {
    const enabled = (job: Job) => job.chunks.length > 0;
    const defined = stage<Job>({ name: "geo", run: noop, policy: "advisory", enabled, also: ["geo_more"] });
    expect(defined.policy).toBe("advisory");
    expect(defined.enabled).toBe(enabled);
    expect(defined.also).toEqual(["geo_more"]);
  });
});

describe("each()", () => {
  it("builds one Item per element with the job, the item and its index", () => {
    const job: Job = { chunks: ["x", "y"] };
    const group = each<Job, string>((j) => j.chunks, [s<Item<Job, string>>("inner")]);
    expect(group.kind).toBe("each");
    const items = group.items(job) as Item<Job, string>[];
    expect(items).toEqual([
      { job, item: "x", index: 0 },
      { job, item: "y", index: 1 },
    ]);
    expect(items[0]!.job).toBe(job);
    expect(group.steps.map((step) => step.kind === "stage" && step.name)).toEqual(["inner"]);
  });

  it("builds no Item for no elements", () => {
    const group = each<Job, string>((j) => j.chunks, []);
    expect(group.items({ chunks: [] })).toEqual([]);
  });
});

describe("names()", () => {
  it("lists the stages in order", () => {
    expect(names([s("a"), s("b"), s("c")])).toEqual(["a", "b", "c"]);
  });

  it("flattens Each groups at their place, nested ones too", () => {
    const inner = each<Item<Job, string>, number>(() => [1], [s<Item<Item<Job, string>, number>>("deep")]);
    const steps: Step<Job>[] = [
      s("first"),
      each<Job, string>((j) => j.chunks, [s<Item<Job, string>>("x"), inner, s<Item<Job, string>>("y")]),
      s("last"),
    ];
    expect(names(steps)).toEqual(["first", "x", "deep", "y", "last"]);
  });

  it("puts the also stages right after their stage", () => {
    expect(names([s("a"), s("store", ["store_series", "store_more"]), s("z")])).toEqual([
      "a",
      "store",
      "store_series",
      "store_more",
      "z",
    ]);
  });

  it("names a stage used twice once, at its first place", () => {
    const reconcile = [s<Item<Job, string>>("load"), s<Item<Job, string>>("store", ["store_series"])];
    const steps: Step<Job>[] = [
      s("a"),
      each<Job, string>((j) => j.chunks, reconcile),
      s("web", ["store_series"]),
      each<Job, string>((j) => j.chunks, reconcile),
      s("a"),
    ];
    expect(names(steps)).toEqual(["a", "load", "store", "store_series", "web"]);
  });

  it("is empty for no steps", () => {
    expect(names([])).toEqual([]);
  });
});
