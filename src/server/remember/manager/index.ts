export { createRememberManager } from "./manager";
export type { ClaimedRun, FinalStatus, RememberManager, RememberManagerOptions } from "./types";
