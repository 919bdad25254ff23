import { describe, expect, it } from "vitest";
import type { ObserveSeriesInput } from "../types";
import { extractGraph } from "./extract";
import { measureOf, observeSeries } from "./observe";

type Member = ObserveSeriesInput["members"][number];
type Fact = Member["facts"][number];

const f = (subject: string, predicate: string, object: string, value: number | null = null, unit: string | null = null): Fact => ({
  subject, predicate, object, sentence: `${subject} ${predicate.replace(/_/g, " ")} ${object}.`, value, unit, validAt: null,
});
const member = (n: number, date: string, facts: Fact[]): Member => ({ textId: `t${n}`, occurredAt: `${date}T00:00:00.000Z`, createdAt: "2026-09-01T00:00:00.000Z", content: "", facts });
const window = (...members: Member[]): ObserveSeriesInput => ({ seriesKey: "s", members });

describe("builtin observeSeries", () => {
  it("reads the measure from the extractor's predicate shapes", () => {
    expect(measureOf("has_revenue")).toBe("revenue");
    expect(measureOf("revenue_rose_to")).toBe("revenue");
    expect(measureOf("revenue_rose_from")).toBeNull();
    expect(measureOf("was")).toBe("");
    expect(measureOf("has")).toBe("has");
  });

  it("a value that changed: the last two members", () => {
    const r = observeSeries(window(
      member(1, "2026-01-15", [f("Kestrel Foods", "has_revenue", "3.1 M EUR", 3.1e6, "EUR")]),
      member(2, "2026-04-15", [f("Kestrel Foods", "has_revenue", "2.7 M EUR", 2.7e6, "EUR")]),
      member(3, "2026-07-15", [f("Kestrel Foods", "has_revenue", "3.4 M EUR", 3.4e6, "EUR")]),
    ));
    expect(r.observations).toEqual([
      { content: "Kestrel Foods's revenue rose from 2.7 M EUR to 3.4 M EUR between 2026-04-15 and 2026-07-15.", textIds: ["t2", "t3"] },
    ]);
  });

  it("a trend over three values, with every member; merges has_x and x_rose_to", () => {
    const r = observeSeries(window(
      member(1, "2026-01-15", [f("Kestrel", "has_revenue", "3.1 M EUR", 3.1e6, "EUR")]),
      member(2, "2026-04-15", [f("Kestrel", "revenue_rose_to", "3.5 M EUR", 3.5e6, "EUR"), f("Kestrel", "revenue_rose_from", "3.1 M EUR", 3.1e6, "EUR")]),
      member(3, "2026-07-15", [f("Kestrel", "has_revenue", "3.9 M EUR", 3.9e6, "EUR")]),
    ));
    expect(r.observations).toEqual([
      { content: "Kestrel's revenue rose from 3.1 M EUR to 3.9 M EUR between 2026-01-15 and 2026-07-15. It rose 2 times in a row.", textIds: ["t1", "t2", "t3"] },
    ]);
  });

  it("fell and stayed; units and subjects are not mixed; the latest member must hold the value", () => {
    const r = observeSeries(window(
      member(1, "2026-01-01", [f("the lake", "was", "4 °C", 4, "°C"), f("Ferry Co", "has", "12 boats", 12, "boats"), f("Ferry Co", "has", "40 staff", 40, "staff")]),
      member(2, "2026-02-01", [f("the lake", "was", "-2 °C", -2, "°C"), f("Ferry Co", "has", "12 boats", 12, "boats"), f("Ferry Co", "has", "9 %", 9, "%")]),
    ));
    expect(r.observations.map((o) => o.content)).toEqual([
      "The lake fell from 4 °C to -2 °C between 2026-01-01 and 2026-02-01.",
      "Ferry Co's boats stayed at 12 boats between 2026-01-01 and 2026-02-01.",
    ]);
    const older = observeSeries(window(member(1, "2026-01-01", [f("Ferry Co", "has", "12 boats", 12, "boats")]), member(2, "2026-01-02", [f("Ferry Co", "has", "13 boats", 13, "boats")]), member(3, "2026-01-03", [])));
    expect(older.observations).toEqual([]);
  });

  it("started and stopped need a regular series", () => {
    const uses = (tool: string) => f("the ops team", "uses", tool);
    const started = observeSeries(window(member(1, "2026-01-05", [uses("Jira")]), member(2, "2026-01-12", [uses("Jira")]), member(3, "2026-01-19", [uses("Jira"), uses("Linear")])));
    expect(started.observations).toEqual([{ content: "the ops team uses Linear. This is new in the series since 2026-01-19.", textIds: ["t3"] }]);
    const stopped = observeSeries(window(
      member(1, "2026-01-05", [uses("Jira")]), member(2, "2026-01-12", [uses("Jira")]),
      member(3, "2026-01-19", [uses("Linear")]), member(4, "2026-01-26", [uses("Linear")]),
    ));
    expect(stopped.observations.map((o) => o.content)).toEqual(["Until 2026-01-12: the ops team uses Jira. It is not said in the 2 entries since."]);
  });

  it("a conversation gives nothing", () => {
    const turns = [
      "I went hiking with my sister Noor last weekend.",
      "That sounds lovely! I adopted a cat named Biscuit in March.",
      "Noor is training for a marathon in Lisbon.",
      "I have 2 kids and a garden full of tomatoes.",
      "My brother moved to Porto and works at a bakery.",
      "We have 3 dogs now, can you believe it?",
    ];
    const members = turns.map((t, i) => {
      const g = extractGraph({ text: t, speaker: i % 2 === 0 ? "Amira" : "Jonas", occurredAt: `2026-03-0${i + 1}` });
      return member(i + 1, `2026-03-0${i + 1}`, g.facts.map((x) => ({ ...x, value: null, unit: null, validAt: x.validAt })));
    });
    for (let k = 2; k <= members.length; k += 1) expect(observeSeries(window(...members.slice(0, k))).observations).toEqual([]);
  });
});
