import { describe, expect, it } from "vitest";
import { broaderWords } from "./broader";

const set = (text: string) => new Set(broaderWords(text).split(" ").filter(Boolean));

describe("broaderWords (WordNet hypernyms of a text's nouns)", () => {
  it("gives the kinds of what a text names", () => {
    expect(set("Priya has played the cello since school.").has("instrument")).toBe(true);
    expect(set("We stopped in Lyon on the way south.").has("city")).toBe(true);
    expect(set("He coached volleyball all summer.").has("sport")).toBe(true);
    expect(set("Our beagle ate the sofa cushion.").has("dog")).toBe(true);
  });

  it("reads plurals as their noun", () => {
    expect(set("She collects violins.").has("instrument")).toBe(true);
    expect(set("Three puppies arrived.").has("dog")).toBe(true);
  });

  it("leaves out words that are mostly not nouns, the most general kinds, and what the text says itself", () => {
    // "cool" and "awesome" are adjectives first, "happened" a verb
    expect(broaderWords("That was cool and awesome, it happened fast.")).toBe("");
    const cello = set("A cello is a musical instrument.");
    expect(cello.has("instrument")).toBe(false);
    expect(cello.has("entity")).toBe(false);
    expect(cello.has("object")).toBe(false);
  });

  it("gives nothing for a text of no known nouns, and at most 64 words for a long one", () => {
    expect(broaderWords("")).toBe("");
    expect(broaderWords("qwzx plorf")).toBe("");
    const long = "cello violin lyon paris dog cat volleyball tennis bread cheese apple river mountain doctor lawyer car train ".repeat(20);
    expect(broaderWords(long).split(" ").length).toBeLessThanOrEqual(64);
  });
});
