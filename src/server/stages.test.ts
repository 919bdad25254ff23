import { describe, expect, it } from "vitest";
import { type RunKind, type StageDef, StageTables } from "../lib/stages";
import type { Step } from "./pipeline";
import { queryPipeline } from "./query/pipeline";
import { rememberPipeline } from "./remember/pipeline";
import { stageDef } from "./stages";

const pipelines: Record<RunKind, readonly Step<never>[]> = { remember: rememberPipeline, query: queryPipeline };

/** Every stage of a pipeline with its policy, in order, once (`also` stages are listed on their own too). */
function stagesOf(steps: readonly Step<never>[]): { name: string; policy: string }[] {
  const out: { name: string; policy: string }[] = [];
  const walk = (list: readonly Step<unknown>[]) => {
    for (const step of list) {
      if (step.kind === "each") walk(step.steps);
      else if (!out.some((s) => s.name === step.name)) out.push({ name: step.name, policy: step.policy });
    }
  };
  walk(steps as readonly Step<unknown>[]);
  return out;
}

describe.each(["remember", "query"] as const)("the %s pipeline", (kind) => {
  const table = StageTables[kind] as readonly StageDef[];

  it("has exactly the stages of its table, in order, each with its definition's policy", () => {
    expect(stagesOf(pipelines[kind])).toEqual(table.map((s) => ({ name: s.name, policy: s.policy })));
  });

  it("marks its placeholders advisory: a stage not in this version can never fail a run", () => {
    for (const s of table.filter((d) => d.placeholder)) expect(s.policy).toBe("advisory");
  });

  it("says in every placeholder's help that it is not in this version", () => {
    for (const s of table) expect(s.help.startsWith("Not in this version")).toBe(s.placeholder === true);
  });
});

it("has no placeholder left: the six enrichment stages of the seed all run in this version", () => {
  const placeholders = Object.values(StageTables).flatMap((t) => (t as readonly StageDef[]).filter((s) => s.placeholder).map((s) => s.name));
  expect(placeholders).toEqual([]);
});

it("refuses a stage name the table does not have", () => {
  expect(() => stageDef("query", "no_such_stage")).toThrow("no stage no_such_stage in the query stage table");
});
