import { describe, expect, it } from "vitest";
import { createBuiltinProvider } from "../models/builtin";
import { chunkText } from "../remember/chunk";
import { extractGraph } from "../models/builtin/extract";
import { finish, type Sliced } from "../slices";
import { compute } from ".";
import { turnsDuring } from "../../test/event-loop";

/*
 * The compute thread: text work runs there, and gives what it gives on this thread, while this
 * thread's event loop goes on turning (a megabyte of text used to hold every request, timer and
 * signal of the process until it was read).
 */

const prose = (size: number) => {
  const out: string[] = [];
  for (let i = 0, n = 0; n < size; i += 1) {
    const s = `Person${i % 97} lives in Town${i % 13} and works at Shop${i % 7}.${i % 6 === 5 ? "\n\n" : " "}`;
    out.push(s);
    n += s.length;
  }
  return out.join("");
};

function* steps(n: number): Sliced<number> {
  let sum = 0;
  for (let i = 0; i < n; i += 1) {
    sum += i;
    yield;
  }
  return sum;
}

describe("compute thread", () => {
  it("finish runs stepped work to its end", () => {
    expect(finish(steps(1000))).toBe(499500);
  });

  it("chunks a long text as chunkText does here, while this thread's loop turns", async () => {
    const text = prose(300_000);
    await compute("summarize", "Warm up."); // the thread's start is not the work's
    const { value, turns } = await turnsDuring(() => compute("chunk", { text, maxTokens: 512, overlapTokens: 64 }));
    expect(value.chunks).toEqual(chunkText(text, { maxTokens: 512, overlapTokens: 64 }));
    expect(turns).toBeGreaterThan(10);
  });

  it("the builtin models read there: the same graph, and the loop turns through a classification of 8 MiB", async () => {
    const sample = "Alice Moreau moved to Lyon in 2019. She works at Acme as a nurse.";
    expect(await compute("extract", { text: sample })).toEqual(extractGraph({ text: sample }));
    const provider = createBuiltinProvider();
    const text = prose(8 << 20);
    const { value, turns } = await turnsDuring(() => provider.classifyComplexity({ text }, {}));
    expect(value.value.complexity).toBe("complex");
    expect(turns).toBeGreaterThan(10);
  });

  it("an error in a task comes back as the call's error, and the thread goes on", async () => {
    const bad = compute("chunk", { text: null as unknown as string, maxTokens: 512, overlapTokens: 64 });
    await expect(bad).rejects.toMatchObject({ name: "TypeError" });
    expect(await compute("summarize", "One sentence.")).toBe("One sentence.");
  });
});
