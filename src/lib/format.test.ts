import { describe, expect, it } from "vitest";
import { compactJson, formatWhen, keyHint } from "./format";

describe("admin formatting", () => {
  it("says never for a key that was not used", () => {
    expect(formatWhen(null)).toBe("never");
    expect(formatWhen(undefined, "—")).toBe("—");
  });

  it("shows the year only for another year", () => {
    const now = new Date();
    expect(formatWhen(now)).not.toContain(String(now.getFullYear()));
    expect(formatWhen(new Date("2001-02-03T04:05:00Z"))).toContain("2001");
  });

  it("keeps empty audit details quiet and the rest on one line", () => {
    expect(compactJson({})).toBe("");
    expect(compactJson(null)).toBe("");
    expect(compactJson({ role: "member", datasets: null })).toBe('{"role":"member","datasets":null}');
  });

  it("shows a key by its prefix", () => {
    expect(keyHint("gb_abcdefgh")).toBe("gb_abcdefgh…");
  });
});
