/**
 * The vocabulary of a pipeline. Plain values: a pipeline is a readonly list of steps that reads
 * top to bottom as the operation does, and the runner (run.ts) does everything around them.
 */

/** What the runner does when a stage throws: end the call (fatal) or note it and go on. */
export type Policy = "fatal" | "advisory";

/**
 * Returned by a stage to end the pipeline early without an error. A class instance rather than a
 * symbol: TypeScript widens a unique symbol returned from an async function to `symbol`.
 */
export class StopSignal {
  readonly kind = "stop";
}
export const Stop = new StopSignal();
export type Stop = StopSignal;

/**
 * Returned by a stage: what it produced for this item (its output, kept for the run page and
 * receipts), and whether the pipeline stops after it. The runner hands it to the observer with
 * the item's index and times; a stage never writes its own output.
 */
export class Output {
  readonly kind = "output";
  constructor(
    readonly value: unknown,
    readonly stop: boolean,
  ) {}
}

/** A stage's output; `then` = Stop to end the pipeline after it (as returning Stop does). */
export const output = (value: unknown, then?: Stop): Output => new Output(value, then !== undefined);

export type StageResult = void | Stop | Output;

export interface Stage<J> {
  readonly kind: "stage";
  /** exactly as the run log names it */
  readonly name: string;
  readonly run: (job: J) => StageResult | Promise<StageResult>;
  /** default "fatal" */
  readonly policy: Policy;
  /** does this call use the stage? A stage that is not enabled is skipped */
  readonly enabled?: (job: J) => boolean;
  /**
   * Stages this one does too: they start and end with it. A function decides per call; the
   * stages it names must then also be listed on their own (names() and skips see only a list).
   */
  readonly also: readonly string[] | ((job: J) => readonly string[]);
}

/** One item of an Each: the call's job, the item, and its place. */
export interface Item<J, I> {
  readonly job: J;
  readonly item: I;
  readonly index: number;
}

export interface Each<J> {
  readonly kind: "each";
  /** the per-item jobs; built by each() so that the item type is checked there */
  readonly items: (job: J) => readonly unknown[];
  /** an item's index in the run log (its outputs' item); built by each(), default the item's place */
  readonly itemIndex: (itemJob: unknown) => number;
  readonly steps: readonly Step<unknown>[];
}

export type Step<J> = Stage<J> | Each<J>;

/**
 * Told about every stage transition. Hooks may be async; the runner awaits them in order, and a
 * hook that throws is logged and never ends the run.
 */
export interface Observer {
  /** `at`: one time for a stage and its `also` stages, so that they share it */
  start(stage: string, at?: Date): void | Promise<void>;
  done(stage: string, error: Error | null, at?: Date): void | Promise<void>;
  skip(stage: string): void | Promise<void>;
  addInference(stage: string, inferenceId: string): void | Promise<void>;
  /**
   * What a stage returned as its Output, before its done: `itemIndex` is the Each item's index
   * (null for a stage that runs once), and the times are when the stage began and ended on it.
   */
  output(stage: string, itemIndex: number | null, value: unknown, startedAt: Date, finishedAt: Date): void | Promise<void>;
}

export interface RunOptions {
  /** where observer failures go; default console.error */
  log?: (message: string, error: unknown) => void;
  /**
   * Stops the run between stages: once aborted, the next stage does not start and run() rejects
   * with the signal's reason (a stage in progress ends when its own work sees the signal).
   */
  signal?: AbortSignal;
}

export interface RunResult {
  /** the stage that returned Stop, if one did */
  stoppedBy: string | null;
}
