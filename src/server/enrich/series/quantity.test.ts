import { describe, expect, it } from "vitest";
import { parseQuantity } from "./quantity";

describe("parseQuantity", () => {
  it.each([
    ["3.1 M", 3_100_000, null],
    ["3.1 M EUR", 3_100_000, "EUR"],
    ["$3.9 million", 3_900_000, "USD"],
    ["3.9 million euros", 3_900_000, "EUR"],
    ["€1,200", 1_200, "EUR"],
    ["1.200 €", 1.2, "EUR"],
    ["42 kg", 42, "kg"],
    ["42 m", 42, "m"],
    ["12%", 12, "%"],
    ["7 percent", 7, "%"],
    ["3.5k users", 3_500, "users"],
    ["1.2bn EUR", 1_200_000_000, "EUR"],
    ["-4 °C", -4, "°C"],
    ["−4 °C", -4, "°C"],
    ["3,5 kg", 3.5, "kg"],
    ["120 people", 120, "people"],
    ["0.5", 0.5, null],
    ["12 km/h", 12, "km/h"],
  ])("%s → %d %s", (literal, value, unit) => {
    expect(parseQuantity(literal)).toEqual({ value, unit });
  });

  it.each(["Acme", "Q1", "2026-01-15", "10:30", "3/4", "1.2.3", "2010", "3 cats and a dog in a basket", "", "two apples", "M 3"])(
    "%j is no quantity",
    (literal) => {
      expect(parseQuantity(literal)).toBeNull();
    },
  );
});
