import { describe, expect, it } from "vitest";
import { POLL_MS, runEnded, runPollInterval } from "./run-poll";

describe("following a run", () => {
  it("polls while the run is queued or started, or not loaded yet", () => {
    expect(runPollInterval("queued")).toBe(POLL_MS);
    expect(runPollInterval("started")).toBe(POLL_MS);
    expect(runPollInterval(undefined)).toBe(POLL_MS);
  });

  it("stops when it has ended", () => {
    expect(runPollInterval("succeeded")).toBe(false);
    expect(runPollInterval("failed")).toBe(false);
    expect(runEnded("failed")).toBe(true);
  });
});
