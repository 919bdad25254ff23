export { Output, output, Stop, StopSignal } from "./types";
export type { Each, Item, Observer, Policy, RunOptions, RunResult, Stage, StageResult, Step } from "./types";
export { each, names, stage, type StageSpec } from "./define";
export { run } from "./run";
export { currentInferenceScope, withInferenceScope, type InferenceScope } from "./sink";
