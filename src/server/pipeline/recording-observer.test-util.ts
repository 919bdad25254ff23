// A test helper may reach outside the pipeline core (the lint boundary is for product code): it
// rebuilds a run log's stage groups by the run log's own rules.
import { endGroup, newGroup, skipGroup, type StageGroup, startGroup } from "../db/schema/stage-group";
import type { Observer } from "./types";

/**
 * A test observer that records every hook call in order, and can rebuild what a run log would
 * hold for each stage from those calls. Stages under test may add ["run", name] notes to the same
 * sequence, so that "start before run, done after" is one exact comparison. Times are positions
 * in `calls`, so "first start" and "finished after" can be checked exactly without clocks.
 */

export type HookCall =
  | readonly ["start", string]
  | readonly ["done", string, string | null]
  | readonly ["skip", string]
  | readonly ["inference", string, string]
  | readonly ["output", string, number | null, unknown]
  /** not a hook: written by a test's stage when it runs, to place the run among the hooks */
  | readonly ["run", string];

export type StageStatus = StageGroup["status"];

/** A run log's stage group with times as positions in `calls`: startedAt the FIRST start, finishedAt the last done. */
export type StageRecord = StageGroup<number>;

/** Makes one hook fail after it has recorded its call, by a sync throw or an async rejection. */
export interface FailingHook {
  hook: keyof Observer;
  mode: "throw" | "reject";
}

export class RecordingObserver implements Observer {
  readonly calls: HookCall[] = [];
  /** the error objects passed to done, in order, to check identity */
  readonly doneErrors: (Error | null)[] = [];

  constructor(private readonly failing?: FailingHook) {}

  start(stage: string): void | Promise<void> {
    this.calls.push(["start", stage]);
    return this.maybeFail("start");
  }

  done(stage: string, error: Error | null): void | Promise<void> {
    this.calls.push(["done", stage, error === null ? null : error.message]);
    this.doneErrors.push(error);
    return this.maybeFail("done");
  }

  skip(stage: string): void | Promise<void> {
    this.calls.push(["skip", stage]);
    return this.maybeFail("skip");
  }

  addInference(stage: string, inferenceId: string): void | Promise<void> {
    this.calls.push(["inference", stage, inferenceId]);
    return this.maybeFail("addInference");
  }

  output(stage: string, itemIndex: number | null, value: unknown): void | Promise<void> {
    this.calls.push(["output", stage, itemIndex, value]);
    return this.maybeFail("output");
  }

  /** The outputs told, as [stage, item index, value], in order. */
  outputs(): [string, number | null, unknown][] {
    return this.calls.flatMap((call) => (call[0] === "output" ? [[call[1], call[2], call[3]] as [string, number | null, unknown]] : []));
  }

  /** Notes in the sequence that the stage `stage` is running now. */
  ran(stage: string): void {
    this.calls.push(["run", stage]);
  }

  /** The hook calls made for one stage, in order. */
  callsFor(stage: string): HookCall[] {
    return this.calls.filter((call) => call[1] === stage);
  }

  /** The inferences filed, as [stage, id], in order. */
  inferences(): [string, string][] {
    return this.calls.flatMap((call) => (call[0] === "inference" ? [[call[1], call[2]] as [string, string]] : []));
  }

  /** What a run log would hold for every named stage after these calls. */
  stages(names: readonly string[]): Record<string, StageRecord> {
    const out: Record<string, StageRecord> = {};
    for (const name of names) out[name] = newGroup<number>();
    this.calls.forEach((call, at) => {
      const record = out[call[1]];
      if (record === undefined) throw new Error(`hook call for unknown stage ${call[1]}`);
      switch (call[0]) {
        case "start":
          startGroup(record, at);
          break;
        case "done":
          endGroup(record, call[2], at);
          break;
        case "skip":
          skipGroup(record);
          break;
        case "inference":
          record.inferenceIds.push(call[2]);
          break;
        case "output":
        case "run":
          break;
      }
    });
    return out;
  }

  /** Just the status of every named stage. */
  statuses(names: readonly string[]): Record<string, StageStatus> {
    const records = this.stages(names);
    return Object.fromEntries(names.map((name) => [name, records[name]!.status]));
  }

  private maybeFail(hook: keyof Observer): void | Promise<void> {
    if (this.failing?.hook !== hook) return;
    const error = new Error(`observer ${hook} is broken`);
    if (this.failing.mode === "throw") throw error;
    // Reject a little later, so the runner has to really await the hook to see it.
    return new Promise((_, reject) => setTimeout(() => reject(error), 1));
  }
}
