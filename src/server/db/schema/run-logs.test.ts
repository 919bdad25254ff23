import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { getTableConfig } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { QueryStages, RememberStages, type StageDef } from "../../../lib/stages";
import { queryRuns, rememberRuns } from "./run-logs";

const migrationSql = readdirSync(path.resolve("drizzle"))
  .filter((f) => f.endsWith(".sql"))
  .map((f) => readFileSync(path.resolve("drizzle", f), "utf8"))
  .join("\n");

const suffixes = ["status", "error", "started_at", "finished_at", "inference_ids"] as const;

describe.each([
  ["gb_remember_runs", rememberRuns, RememberStages as readonly StageDef[]],
  ["gb_query_runs", queryRuns, QueryStages as readonly StageDef[]],
] as const)("%s", (tableName, table, stages) => {
  const columns = getTableConfig(table).columns.map((c) => c.name);
  const stageColumns = columns.filter((c) => suffixes.some((s) => c.endsWith(`_${s}`)));

  it("has exactly one column group per stage of its table", () => {
    const expected = stages.flatMap((s) => [
      `${s.name}_status`,
      `${s.name}_error`,
      `${s.name}_started_at`,
      `${s.name}_finished_at`,
      ...(s.model ? [`${s.name}_inference_ids`] : []),
    ]);
    expect(stageColumns.sort()).toEqual([...expected].sort());
    expect(getTableConfig(table).name).toBe(tableName);
  });

  it("has the run columns", () => {
    for (const c of ["id", "dataset_id", "user_id", "params", "status", "error", "created_at", "started_at", "finished_at"]) {
      expect(columns).toContain(c);
    }
  });

  it("is created by the committed migrations, every generated column included", () => {
    expect(migrationSql).toContain(`CREATE TABLE "${tableName}"`);
    for (const c of stageColumns) expect(migrationSql).toContain(`"${c}"`);
  });

  it("keys every row by dataset first", () => {
    const pk = getTableConfig(table).primaryKeys[0];
    expect(pk?.columns.map((c) => c.name)).toEqual(["dataset_id", "id"]);
  });
});

it("types the generated column names (a typo is a compile error)", () => {
  // These lines compile only because the mapped type generated these keys.
  const ok = [rememberRuns.extract_graph_inference_ids, rememberRuns.chunk_text_status, queryRuns.query_finished_at];
  expect(ok.map((c) => c.name)).toEqual(["extract_graph_inference_ids", "chunk_text_status", "query_finished_at"]);
  // @ts-expect-error chunk_text runs no model, so it has no inference ids column
  expect(rememberRuns.chunk_text_inference_ids).toBeUndefined();
  // @ts-expect-error a misspelt stage is not a column
  expect(queryRuns.retreive_graph_status).toBeUndefined();
});
