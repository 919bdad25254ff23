import type { RunStatus } from "./stages";

export const POLL_MS = 1000;

/** A run being followed live is asked again every second until it has ended. */
export const runEnded = (status: RunStatus | undefined) => status === "succeeded" || status === "failed";

/** TanStack Query's refetchInterval for a run: poll while it is queued or started (or not yet loaded). */
export const runPollInterval = (status: RunStatus | undefined): number | false => (runEnded(status) ? false : POLL_MS);
