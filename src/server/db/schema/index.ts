export * from "./access";
export * from "./datasets";
export * from "./graph";
export * from "./inferences";
export { queryRuns, rememberRuns } from "./run-logs";
export * from "./stage-outputs";
export * from "./stm";
