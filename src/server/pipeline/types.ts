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

export type StageResult = void | Stop;

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
