import { describe, expect, it, vi } from "vitest";
import { countTokens, tokenizer } from "../remember/chunk";
import { boostNamedSpeakers, boostNamedTime, candidateTokens, cut, fuse, namedPeriod, type Ranked, SPEAKER_BOOST, TIME_BOOST } from "./fusion";
import type { Candidate } from "./lists/candidate";

const fact = (id: string, chunkId = `chunk-${id}`, text = `Fact ${id}.`): Candidate => ({
  key: `fact:${id}`,
  kind: "fact",
  id,
  text,
  validAt: null,
  invalidAt: null,
  entityIds: [],
  source: { textId: `text-${chunkId}`, chunkId },
  at: new Date("2025-01-01T00:00:00Z"),
});
const summary = (chunkId: string, text = `Summary of ${chunkId}.`): Candidate => ({
  ...fact(chunkId, chunkId, text),
  key: `summary:${chunkId}`,
  kind: "summary",
});
const rrf = (...ranks: number[]) => ranks.reduce((s, r) => s + 1 / (60 + r), 0);

describe("candidateTokens", () => {
  it("counts as countTokens does, and a short text it has counted is not handed to the tokenizer again", () => {
    const text = `Caroline went to the ${Math.random()} support group on 7 May 2023.`;
    const spy = vi.spyOn(tokenizer, "count");
    try {
      const first = candidateTokens(text);
      const calls = spy.mock.calls.length;
      expect(calls).toBeGreaterThan(0);
      expect(candidateTokens(text)).toBe(first);
      expect(spy.mock.calls.length).toBe(calls);
      expect(first).toBe(countTokens(text));
      // a long text is counted each time (the cache holds the short texts that recur)
      const long = "word ".repeat(1_000) + Math.random();
      const before = spy.mock.calls.length;
      expect(candidateTokens(long)).toBe(countTokens(long));
      const once = spy.mock.calls.length - before;
      candidateTokens(long);
      expect(spy.mock.calls.length - before).toBeGreaterThan(once);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("fuse (reciprocal rank fusion)", () => {
  it("scores each list's rank as 1 / (60 + rank) and sorts best first", () => {
    const out = fuse({ facts_text: [fact("a"), fact("b"), fact("c")] });
    expect(out.map((c) => [c.key, c.ranks, c.score])).toEqual([
      ["fact:a", { facts_text: 1 }, rrf(1)],
      ["fact:b", { facts_text: 2 }, rrf(2)],
      ["fact:c", { facts_text: 3 }, rrf(3)],
    ]);
  });

  it("makes one candidate of one found by several lists, with each list's rank and the sum of their scores", () => {
    const out = fuse({ facts_text: [fact("a"), fact("b")], entities: [fact("b")], facts_vector: [fact("c"), fact("b")] });
    expect(out.map((c) => c.key)).toEqual(["fact:b", "fact:a", "fact:c"]);
    expect(out[0]).toMatchObject({ ranks: { facts_text: 2, entities: 1, facts_vector: 2 }, score: rrf(2, 1, 2) });
    expect(out.filter((c) => c.key === "fact:b")).toHaveLength(1);
  });

  it("orders equal scores by key, whichever list found them", () => {
    const out = fuse({ facts_text: [fact("z")], chunks_text: [summary("m")], entities: [fact("a")] });
    expect(out.map((c) => c.score)).toEqual([rrf(1), rrf(1), rrf(1)]);
    expect(out.map((c) => c.key)).toEqual(["fact:a", "fact:z", "summary:m"]);
  });

  it("ignores an empty list, and fuses no lists to nothing", () => {
    expect(fuse({ facts_text: [], chunks_text: [summary("x")] }).map((c) => [c.key, c.ranks])).toEqual([["summary:x", { chunks_text: 1 }]]);
    expect(fuse({ facts_text: [], chunks_text: [] })).toEqual([]);
    expect(fuse({})).toEqual([]);
  });

  it("keeps the candidate as found, and leaves the lists' candidates as they were", () => {
    const a = fact("a");
    const [out] = fuse({ facts_text: [a], entities: [a] });
    expect(out).toEqual({ ...a, ranks: { facts_text: 1, entities: 1 }, score: rrf(1, 1) });
    expect(a).not.toHaveProperty("ranks");
  });
});

const ranked = (...cs: Candidate[]): Ranked[] => fuse({ facts_text: cs });

describe("cut (to the limit and the token budget, one source per chunk)", () => {
  it("gives the best first, up to the limit, with each one's tokens", () => {
    const out = cut(ranked(fact("a"), fact("b"), fact("c")), 2, 1000);
    expect(out.map((c) => [c.key, c.tokens])).toEqual([
      ["fact:a", countTokens("Fact a.")],
      ["fact:b", countTokens("Fact b.")],
    ]);
  });

  it("gives one source per chunk: a chunk's later fact or summary is passed over", () => {
    const out = cut(ranked(fact("a", "c1"), summary("c1"), fact("b", "c2"), fact("c", "c1")), 10, 1000);
    expect(out.map((c) => c.key)).toEqual(["fact:a", "fact:b"]);
  });

  it("with limit 1 gives the best one only", () => {
    expect(cut(ranked(fact("a"), fact("b")), 1, 1000).map((c) => c.key)).toEqual(["fact:a"]);
  });

  it("gives the first even when it alone is over the budget, and nothing more that does not fit", () => {
    const long = fact("long", "c1", "word ".repeat(50).trim());
    const out = cut(ranked(long, fact("b")), 10, 5);
    expect(out.map((c) => [c.key, c.tokens])).toEqual([["fact:long", countTokens(long.text)]]);
    expect(out[0]!.tokens).toBeGreaterThan(5);
  });

  it("skips one that does not fit and gives a shorter one after it that does", () => {
    const short = (id: string) => fact(id, `c-${id}`, "Short.");
    const t = countTokens("Short.");
    const out = cut(ranked(short("a"), fact("long", "c-long", "word ".repeat(50).trim()), short("b")), 10, 2 * t);
    expect(out.map((c) => c.key)).toEqual(["fact:a", "fact:b"]);
    expect(out.reduce((s, c) => s + c.tokens, 0)).toBe(2 * t);
  });

  it("gives nothing of nothing", () => {
    expect(cut([], 10, 1000)).toEqual([]);
  });
});

describe("boostNamedSpeakers", () => {
  const said = (id: string, speaker: string): Candidate => ({ ...fact(id), source: { ...fact(id).source, speaker } });
  // Ana's turn third of three in one list
  const list = () => fuse({ facts_text: [said("1", "Bo Lund"), said("2", "Bo Lund"), said("3", "Ana Reyes")] });

  it("puts what the named speaker said ahead, by a first place's worth", () => {
    const out = boostNamedSpeakers(list(), "What did Ana say about the trip?");
    expect(out.map((c) => c.id)).toEqual(["3", "1", "2"]);
    expect(out[0]!.score).toBeCloseTo(rrf(3) + SPEAKER_BOOST, 12);
    expect(SPEAKER_BOOST).toBeCloseTo(rrf(1), 12);
  });

  it("changes nothing when the question names no speaker, or every one of them", () => {
    expect(boostNamedSpeakers(list(), "What about the trip?").map((c) => c.id)).toEqual(["1", "2", "3"]);
    expect(boostNamedSpeakers(list(), "What did Ana tell Bo Lund about the trip?").map((c) => c.id)).toEqual(["1", "2", "3"]);
  });

  it("matches whole words of the name, case aside, and no word of under three letters", () => {
    expect(boostNamedSpeakers(list(), "what did reyes plan?").map((c) => c.id)[0]).toBe("3");
    expect(boostNamedSpeakers(list(), "What did Anabel plan?").map((c) => c.id)[0]).toBe("1");
    const short = fuse({ facts_text: [said("1", "Bo Lund"), said("2", "Al Xu")] });
    expect(boostNamedSpeakers(short, "What did Al do?").map((c) => c.id)).toEqual(["1", "2"]);
  });
});

describe("namedPeriod and boostNamedTime", () => {
  const now = new Date("2026-03-15T12:00:00Z");
  const iso = (p: { start: Date; end: Date } | null) => p && [p.start.toISOString().slice(0, 10), p.end.toISOString().slice(0, 10)];

  it("reads the period a question names, as precise as it says", () => {
    expect(iso(namedPeriod("What did Ana cook on 3 May 2024?", now))).toEqual(["2024-05-03", "2024-05-04"]);
    expect(iso(namedPeriod("Where did Ana travel in August 2023?", now))).toEqual(["2023-08-01", "2023-09-01"]);
    expect(iso(namedPeriod("What did Ana read in 2022?", now))).toEqual(["2022-01-01", "2023-01-01"]);
    // relative to now
    expect(iso(namedPeriod("What did I buy yesterday?", now))).toEqual(["2026-03-14", "2026-03-15"]);
    expect(iso(namedPeriod("What did I buy two weeks ago?", now))).toEqual(["2026-02-26", "2026-03-05"]);
    // a long question costs chrono only the first three windows around what may be a time;
    // past them only a written year is read
    expect(iso(namedPeriod(`${"may ".repeat(900)}in August 2023?`, now))).toEqual(["2023-01-01", "2024-01-01"]);
    expect(namedPeriod("What does Ana like?", now)).toBeNull();
  });

  it("reads a range from the start of its first end to the end of its last", () => {
    expect(iso(namedPeriod("Where was Ana between 11 August and 15 August 2023?", now))).toEqual(["2023-08-11", "2023-08-16"]);
    expect(iso(namedPeriod("What did Ana do from May to July 2022?", now))).toEqual(["2022-05-01", "2022-08-01"]);
    expect(iso(namedPeriod("What did Ana cook between 2019 and 2021?", now))).toEqual(["2019-01-01", "2022-01-01"]);
    // two dates that are not a range: the first
    expect(iso(namedPeriod("Did Ana cook on 3 May 2024 or on 9 May 2024?", now))).toEqual(["2024-05-03", "2024-05-04"]);
    // a range written backwards names no period
    expect(iso(namedPeriod("What did Ana read between 2021 and 2019?", now))).toBeNull();
  });

  const at = (id: string, when: string, validAt: string | null = null): Candidate => ({ ...fact(id), at: new Date(when), validAt: validAt ? new Date(validAt) : null });
  const list = () => fuse({ facts_text: [at("1", "2024-04-20T10:00:00Z"), at("2", "2024-06-02T10:00:00Z"), at("3", "2024-05-03T18:00:00Z")] });

  it("puts what was said in the named period ahead, by a first place's worth", () => {
    const out = boostNamedTime(list(), "What did Ana cook on 3 May 2024?", now);
    expect(out.map((c) => c.id)).toEqual(["3", "1", "2"]);
    expect(out[0]!.score).toBeCloseTo(rrf(3) + TIME_BOOST, 12);
  });

  it("counts a fact whose own time falls in the period", () => {
    const l = fuse({ facts_text: [at("1", "2025-01-01T00:00:00Z"), at("2", "2025-01-01T00:00:00Z", "2023-08-10T00:00:00Z")] });
    expect(boostNamedTime(l, "Where did Ana travel in August 2023?", now).map((c) => c.id)).toEqual(["2", "1"]);
  });

  it("changes nothing when no time is named, none of the candidates is in it, or all are", () => {
    expect(boostNamedTime(list(), "What did Ana cook?", now).map((c) => c.id)).toEqual(["1", "2", "3"]);
    expect(boostNamedTime(list(), "What did Ana cook in 2019?", now).map((c) => c.id)).toEqual(["1", "2", "3"]);
    expect(boostNamedTime(list(), "What did Ana cook in 2024?", now).map((c) => c.id)).toEqual(["1", "2", "3"]);
  });
});
