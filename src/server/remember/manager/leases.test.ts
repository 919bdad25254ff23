import { expect, it } from "vitest";
import { holdOf } from "./leases";

/* Whether an attempt still holds its run is read from the run's row alone: pure. */

const row = (status: string, attempts: number, leaseOwner: string | null = "me") => ({ status, attempts, leaseOwner });

it("held: started, at this attempt, under our lease", () => {
  expect(holdOf(row("started", 2), { attempt: 2 }, "me")).toBe("held");
});

it("finished: this attempt ended the run", () => {
  expect(holdOf(row("succeeded", 2), { attempt: 2 }, "me")).toBe("finished");
  expect(holdOf(row("failed", 2), { attempt: 2 }, "me")).toBe("finished");
});

it("lost: taken back, claimed again by anyone, another's lease, or no row", () => {
  // taken back (queued again) or failed by a sweep after another attempt
  expect(holdOf(row("queued", 2), { attempt: 2 }, "me")).toBe("lost");
  expect(holdOf(row("failed", 3), { attempt: 2 }, "me")).toBe("lost");
  // claimed again, by another process or by this one
  expect(holdOf(row("started", 3, "other"), { attempt: 2 }, "me")).toBe("lost");
  expect(holdOf(row("started", 3, "me"), { attempt: 2 }, "me")).toBe("lost");
  expect(holdOf(row("succeeded", 3), { attempt: 2 }, "me")).toBe("lost");
  // our attempt number, but another's lease
  expect(holdOf(row("started", 2, "other"), { attempt: 2 }, "me")).toBe("lost");
  expect(holdOf(row("started", 2, null), { attempt: 2 }, "me")).toBe("lost");
  expect(holdOf(null, { attempt: 2 }, "me")).toBe("lost");
});
