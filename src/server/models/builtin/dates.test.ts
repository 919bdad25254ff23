import { describe, expect, it } from "vitest";
import { findDates } from "./dates";
import { rewriteSentence } from "./rewrite";

const REF = new Date("2023-05-08T13:56:00Z"); // a Monday

const isos = (text: string, ref: Date | null = REF) => findDates(text, ref).map((d) => [d.iso, d.role]);

describe("findDates", () => {
  it("reads absolute dates in several forms", () => {
    expect(isos("On 2021-03-04 it rained.")).toEqual([["2021-03-04", "valid"]]);
    expect(isos("It was March 5, 2021.")).toEqual([["2021-03-05", "valid"]]);
    expect(isos("It was 5 March 2021.")).toEqual([["2021-03-05", "valid"]]);
    expect(isos("Since June 2020 she runs.")).toEqual([["2020-06-01", "valid"]]);
    expect(isos("Born in 1990 in Ohio.")).toEqual([["1990-01-01", "valid"]]);
  });

  it("ignores impossible calendar dates", () => {
    expect(isos("On 2021-13-45 it rained.")).toEqual([]);
    expect(isos("It was February 30, 2021.")).toEqual([]);
  });

  it("does not take any four-digit number for a year", () => {
    expect(isos("I have 2000 followers.")).toEqual([]);
  });

  it("marks end dates", () => {
    expect(isos("She worked there from 2019 to 2021.")).toEqual([["2019-01-01", "valid"], ["2021-01-01", "invalid"]]);
    expect(isos("He stayed until 2020.")).toEqual([["2020-01-01", "invalid"]]);
  });

  it("resolves relative dates against the reference, and only with one", () => {
    expect(isos("I went yesterday.")).toEqual([["2023-05-07", "valid"]]);
    expect(isos("I went yesterday.", null)).toEqual([]);
    expect(isos("We met two weeks ago.")).toEqual([["2023-04-24", "valid"]]);
    expect(isos("We moved last year.")).toEqual([["2022-01-01", "valid"]]);
    expect(isos("We hiked last weekend.")).toEqual([["2023-05-06", "valid"]]);
    expect(isos("I called her last Friday.")).toEqual([["2023-05-05", "valid"]]);
    expect(isos("I start next month.")).toEqual([["2023-06-01", "valid"]]);
    expect(isos("It was in December.")).toEqual([["2023-12-01", "valid"]]);
    expect(isos("It was last December.")).toEqual([["2022-12-01", "valid"]]);
  });
});

describe("rewriteSentence", () => {
  it("puts the speaker for I/my and the resolved date after a relative one", () => {
    const text = "I'm sure my sister called me last Friday.";
    expect(rewriteSentence(text, findDates(text, REF), "Marta")).toBe(
      "Marta is sure Marta's sister called Marta last Friday (Friday 5 May 2023).",
    );
  });

  it("leaves the text alone without a speaker or relative dates", () => {
    const text = "I moved to Berlin in 2024.";
    expect(rewriteSentence(text, findDates(text, REF), null)).toBe(text);
  });

  it("does not expand $ patterns in the speaker's name", () => {
    expect(rewriteSentence("I won.", [], "$& Co")).toBe("$& Co won.");
  });
});
