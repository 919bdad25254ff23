import { describe, expect, it } from "vitest";
import { createBuiltinProvider } from "./models/builtin";
import { chunking, chunkText } from "./remember/chunk";
import { classifying } from "./models/builtin/classify";
import { finish, inSlices, type Sliced } from "./slices";

/** Counts the turns of the event loop while `p` runs: a setImmediate that re-arms itself. */
async function turnsDuring<T>(p: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let on = true;
  const tick = () => {
    turns += 1;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  const value = await p();
  on = false;
  return { value, turns };
}

function* steps(n: number): Sliced<number> {
  let sum = 0;
  for (let i = 0; i < n; i += 1) {
    sum += i;
    yield;
  }
  return sum;
}

const prose = (size: number) => {
  const out: string[] = [];
  for (let i = 0, n = 0; n < size; i += 1) {
    const s = `Person${i % 97} lives in Town${i % 13} and works at Shop${i % 7}.${i % 6 === 5 ? "\n\n" : " "}`;
    out.push(s);
    n += s.length;
  }
  return out.join("");
};

describe("slices", () => {
  it("finish and inSlices give the same result; inSlices turns the loop between slices", async () => {
    expect(finish(steps(1000))).toBe(499500);
    // a slice of 0 ms: a turn after every step
    const { value, turns } = await turnsDuring(() => inSlices(steps(50), 0));
    expect(value).toBe(1225);
    expect(turns).toBeGreaterThanOrEqual(50);
  });

  // Without slices, each of these ran start to end in one go: not one turn of the loop.
  it("chunking a long text lets the loop turn, and gives what chunkText gives", async () => {
    const text = prose(300_000);
    const { value, turns } = await turnsDuring(() => inSlices(chunking(text, { maxTokens: 512, overlapTokens: 64 })));
    expect(value.chunks).toEqual(chunkText(text, { maxTokens: 512, overlapTokens: 64 }));
    expect(turns).toBeGreaterThan(1);
  });

  // The provider runs its classifier in slices; whether a slice of 8 ms ends within one text
  // depends on the machine's speed, so the text is large enough (8 MiB, ~80 ms of work on a fast
  // machine) that the loop must turn several times, and is made before the count starts.
  it("the builtin classifier on a long text lets the loop turn", async () => {
    const provider = createBuiltinProvider();
    const text = prose(8 << 20);
    const { value, turns } = await turnsDuring(() => provider.classifyComplexity({ text }, {}));
    expect(value.value.complexity).toBe("complex");
    expect(turns).toBeGreaterThan(2);
  });

  it("the classifier's work on a megabyte is many bounded steps", () => {
    let steps = 0;
    const work = classifying(prose(1 << 20));
    while (!work.next().done) steps += 1;
    expect(steps).toBeGreaterThan(50);
  });
});
