import { describe, expect, it } from "vitest";
import { broaderWords, loadWordNet } from "./broader";

const set = async (text: string) => new Set((await broaderWords(text)).split(" ").filter(Boolean));

describe("broaderWords (WordNet hypernyms of a text's nouns)", () => {
  // the loader itself: broaderWords may have loaded WordNet already in this process (another file, same worker)
  it("loads WordNet without holding the thread: timers fire while it loads", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      const wn = await loadWordNet();
      expect(wn.nouns.has("cello")).toBe(true);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(2);
  });

  it("gives the kinds of what a text names", async () => {
    expect((await set("Priya has played the cello since school.")).has("instrument")).toBe(true);
    expect((await set("We stopped in Lyon on the way south.")).has("city")).toBe(true);
    expect((await set("He coached volleyball all summer.")).has("sport")).toBe(true);
    expect((await set("Our beagle ate the sofa cushion.")).has("dog")).toBe(true);
  });

  it("reads plurals as their noun", async () => {
    expect((await set("She collects violins.")).has("instrument")).toBe(true);
    expect((await set("Three puppies arrived.")).has("dog")).toBe(true);
  });

  it("leaves out words that are mostly not nouns, the most general kinds, and what the text says itself", async () => {
    // "cool" and "awesome" are adjectives first, "happened" a verb
    expect(await broaderWords("That was cool and awesome, it happened fast.")).toBe("");
    const cello = await set("A cello is a musical instrument.");
    expect(cello.has("instrument")).toBe(false);
    expect(cello.has("entity")).toBe(false);
    expect(cello.has("object")).toBe(false);
  });

  it("gives nothing for a text of no known nouns, and at most 64 words for a long one", async () => {
    expect(await broaderWords("")).toBe("");
    expect(await broaderWords("qwzx plorf")).toBe("");
    const long = "cello violin lyon paris dog cat volleyball tennis bread cheese apple river mountain doctor lawyer car train ".repeat(20);
    expect((await broaderWords(long)).split(" ").length).toBeLessThanOrEqual(64);
  });
});
