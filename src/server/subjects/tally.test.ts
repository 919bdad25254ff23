import { describe, expect, it } from "vitest";
import { DatasetTables } from "../db/dataset-tables";
import { HoldsNoSubjectData, PurgedTables, RedactedTables } from "./tally";

describe("the tables subjects.purge weighs", () => {
  const weighed = [...PurgedTables, ...RedactedTables, ...Object.keys(HoldsNoSubjectData)];

  it("are every table with a dataset_id: each is purged, redacted, or holds no subject data", () => {
    const missed = DatasetTables.filter((t) => !weighed.includes(t));
    expect(missed, "dataset tables a purge neither handles nor lists in HoldsNoSubjectData (subjects/tally.ts)").toEqual([]);
    const unknown = weighed.filter((t) => !DatasetTables.includes(t));
    expect(unknown, "tables the purge names that are not dataset tables").toEqual([]);
  });

  it("puts each table in one list only, and says why a table holds no subject data", () => {
    expect(new Set(weighed).size).toBe(weighed.length);
    for (const [table, why] of Object.entries(HoldsNoSubjectData)) expect(why.trim(), table).not.toBe("");
  });
});
