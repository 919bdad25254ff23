import { jsonb, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { RunStatus, StageStatus } from "../../../lib/stages";

/*
 * Column factories shared by table groups. Factories (not shared builder objects) because a
 * builder must not be reused across columns; their exact return types are what keeps the
 * generated run-log columns typed.
 */

const tsConfig = { withTimezone: true, mode: "date" } as const;
/** timestamptz read as a Date; named explicitly (camelCase keys, snake_case columns) */
export const ts = (name: string) => timestamp(name, tsConfig);

export const stageStatusColumn = () => text().$type<StageStatus>().notNull().default("not_started");
export const stageErrorColumn = () => text();
export const stageTimeColumn = () => timestamp(tsConfig);
export const inferenceIdsColumn = () => uuid().array().notNull().default([]);

/** The columns every run-log table has, before its stage groups. */
export const runColumns = () => ({
  id: uuid("id").notNull(),
  datasetId: uuid("dataset_id").notNull(),
  userId: text("user_id"),
  /** how the call was made: its validated input, minus nothing */
  params: jsonb("params").$type<Record<string, unknown>>().notNull(),
  status: text("status").$type<RunStatus>().notNull(),
  error: text("error"),
  createdAt: ts("created_at").notNull(),
  startedAt: ts("started_at"),
  finishedAt: ts("finished_at"),
});
