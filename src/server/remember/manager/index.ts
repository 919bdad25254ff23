export { createRememberManager } from "./manager";
export { LeaseLostError, ShutdownError, TransientError, outcomeOf } from "./outcome";
export { heldRun, holdsRun } from "./queue";
export type { AttemptKind, ClaimedRun, FinalStatus, RememberManager, RememberManagerOptions, RetryPolicy, StopReport } from "./types";
export { DEFAULT_RETRY } from "./types";
