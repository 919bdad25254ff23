import { describe, expect, it } from "vitest";
import { formatWhen } from "./format";
import { formatSpan, spanParts } from "./time-span";

describe("time spans of facts", () => {
  const a = new Date("2024-01-01T10:00:00Z");
  const b = new Date("2024-06-01T10:00:00Z");

  it("says both ends, or the open one", () => {
    expect(formatSpan(a, b)).toBe(`${formatWhen(a)} – ${formatWhen(b)}`);
    expect(formatSpan(a, null)).toBe(`since ${formatWhen(a)}`);
    expect(formatSpan(null, b)).toBe(`until ${formatWhen(b)}`);
  });

  it("comes in parts a line may break between", () => {
    expect(spanParts(a, b)).toEqual([`${formatWhen(a)} –`, formatWhen(b)]);
    expect(spanParts(null, null, "—")).toEqual(["—"]);
  });

  it("says when neither end is known", () => {
    expect(formatSpan(null, null)).toBe("not stated");
    expect(formatSpan(null, undefined, "—")).toBe("—");
  });
});
