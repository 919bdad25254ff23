import { describe, expect, it } from "vitest";
import { ERROR_BRAND } from "../../errors";
import { attemptEnding, LeaseLostError, outcomeOf, ShutdownError, TransientError } from "./outcome";

/* How an attempt ends: pure, from what was thrown and from what the run's row says. */

describe("outcomeOf", () => {
  it("reads our errors by their brand, from any copy of the class, and through causes", () => {
    expect(outcomeOf(new LeaseLostError("lost"))).toBe("lease_lost");
    expect(outcomeOf(new ShutdownError())).toBe("shutdown");
    // another bundle's copy: another class, the same brand
    expect(outcomeOf(Object.assign(new Error("x"), { [ERROR_BRAND]: "shutdown" }))).toBe("shutdown");
    expect(outcomeOf(new Error("wrapped", { cause: new LeaseLostError("lost") }))).toBe("lease_lost");
    // a brand wins over a transient cause
    expect(outcomeOf(Object.assign(new ShutdownError(), { cause: new TransientError("down") }))).toBe("shutdown");
  });

  it("an outage is transient: our TransientError, a model's `transient`, a database's SQLSTATE, a broken connection", () => {
    expect(outcomeOf(new TransientError("database busy"))).toBe("transient");
    expect(outcomeOf(Object.assign(new Error("HTTP 503"), { transient: true }))).toBe("transient");
    for (const code of ["08006", "53300", "57P01", "40001", "40P01", "55P03", "ECONNRESET", "CONNECTION_CLOSED"]) {
      expect(outcomeOf(new Error("Failed query: …", { cause: Object.assign(new Error("db"), { code }) })), code).toBe("transient");
    }
  });

  it("anything else is permanent, a message that merely says so included", () => {
    expect(outcomeOf(new Error("boom"))).toBe("permanent");
    expect(outcomeOf(Object.assign(new Error("syntax"), { code: "42601" }))).toBe("permanent");
    expect(outcomeOf(Object.assign(new Error("HTTP 400"), { transient: false }))).toBe("permanent");
    expect(outcomeOf(new Error("this process lost remember run x; shutting down; ECONNRESET"))).toBe("permanent");
    expect(outcomeOf("a string")).toBe("permanent");
    expect(outcomeOf(undefined)).toBe("permanent");
    // a cycle of causes ends
    const a: Error & { cause?: unknown } = new Error("a");
    a.cause = new Error("b", { cause: a });
    expect(outcomeOf(a)).toBe("permanent");
  });
});

describe("attemptEnding", () => {
  const held = { hold: "held" as const, stopping: false };

  it("a run the attempt no longer holds is left alone, whatever was thrown; one it finished is done", () => {
    for (const thrown of [new LeaseLostError("lost"), new Error("boom"), new TransientError("down"), new ShutdownError()]) {
      expect(attemptEnding({ threw: true, thrown, hold: "lost", stopping: false })).toBe("lost");
      expect(attemptEnding({ threw: true, thrown, hold: "lost", stopping: true })).toBe("lost");
    }
    expect(attemptEnding({ threw: false, hold: "lost", stopping: false })).toBe("lost");
    expect(attemptEnding({ threw: false, hold: "finished", stopping: false })).toBe("done");
    expect(attemptEnding({ threw: true, thrown: new Error("late"), hold: "finished", stopping: false })).toBe("done");
  });

  it("a run still held ends by what was thrown", () => {
    expect(attemptEnding({ ...held, threw: true, thrown: new Error("boom") })).toBe("permanent");
    expect(attemptEnding({ ...held, threw: true, thrown: new TransientError("down") })).toBe("transient");
    expect(attemptEnding({ ...held, threw: true, thrown: new ShutdownError() })).toBe("handed_back");
    // a pipeline that returned without finishing its run log
    expect(attemptEnding({ ...held, threw: false })).toBe("permanent");
  });

  it("a run this process aborted to stop is handed back, whatever its pipeline threw on the way out", () => {
    expect(attemptEnding({ hold: "held", stopping: true, threw: true, thrown: new Error("AbortError") })).toBe("handed_back");
    expect(attemptEnding({ hold: "held", stopping: true, threw: true, thrown: new TransientError("down") })).toBe("handed_back");
  });

  it("a lost lease thrown while the row says the run is held: the row wins, and the run is retried, not failed", () => {
    expect(attemptEnding({ ...held, threw: true, thrown: new LeaseLostError("fenced") })).toBe("transient");
  });
});
