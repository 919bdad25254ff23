import { describe, expect, it } from "vitest";
import { parseSessionDate, Sample, sessions } from "./locomo-format";
import { scoreRanking } from "./scoring";

describe("LoCoMo format", () => {
  it("reads session dates", () => {
    expect(parseSessionDate("1:56 pm on 8 May, 2023")?.toISOString()).toBe("2023-05-08T13:56:00.000Z");
    expect(parseSessionDate("12:05 am on 1 January, 2024")?.toISOString()).toBe("2024-01-01T00:05:00.000Z");
    expect(parseSessionDate("sometime")).toBeNull();
  });

  it("orders sessions and their turns", () => {
    const sample = Sample.parse({
      sample_id: "x",
      conversation: {
        speaker_a: "A",
        speaker_b: "B",
        session_1: [{ speaker: "A", dia_id: "D1:1", text: "hi" }],
        session_1_date_time: "1:00 pm on 2 May, 2023",
        session_2: [{ speaker: "B", dia_id: "D2:1", text: "yo", img_url: ["x"] }],
        session_2_date_time: "2:00 pm on 3 May, 2023",
      },
      qa: [{ question: "q", answer: "a", evidence: ["D1:1"], category: 4 }],
    });
    const s = sessions(sample);
    expect(s.map((x) => x.turns[0]!.dia_id)).toEqual(["D1:1", "D2:1"]);
    expect(s[1]!.date?.toISOString()).toBe("2023-05-03T14:00:00.000Z");
  });
});

describe("retrieval scoring", () => {
  it("scores recall@k and reciprocal rank over sources in order, repeats taking places", () => {
    const r = scoreRanking(["D1", "D1", "D2", "D3"], ["D2", "D9"], [1, 2, 3]);
    expect(r.recall).toEqual({ 1: 0, 2: 0, 3: 0.5 });
    expect(r.reciprocalRank).toBeCloseTo(1 / 3);
    expect(scoreRanking([], ["D1"], [5]).recall[5]).toBe(0);
  });
});
