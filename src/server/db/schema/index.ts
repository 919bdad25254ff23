export * from "./datasets";
export * from "./inferences";
export { queryRuns, rememberRuns } from "./run-logs";
