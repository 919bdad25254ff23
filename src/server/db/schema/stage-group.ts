import { type SQL, sql } from "drizzle-orm";
import type { StageDef, StageStatus } from "../../../lib/stages";

/*
 * A stage's column group in a run log, and what it means: the one place that spells the columns
 * (`<stage>_status`, `_error`, `_started_at`, `_finished_at`, `_inference_ids` for a model stage)
 * and says how they change. The column generator (run-logs.ts), the run-log observer, the remember
 * queue, the purge, the row readers and the test observer all go through here.
 *
 * The rules: a stage starts at its first start (an Each's stage keeps the first item's time); once
 * failed, on any item, it stays failed with its first error; a stage still started when the call
 * (or the attempt) ends fails with it.
 */

/** The column names of a stage's group, as types (the generated columns are typed by them). */
export type StatusKey<N extends string> = `${N}_status`;
export type ErrorKey<N extends string> = `${N}_error`;
export type TimeKey<N extends string> = `${N}_started_at` | `${N}_finished_at`;
export type InferenceIdsKey<N extends string> = `${N}_inference_ids`;

export interface GroupKeys {
  status: string;
  error: string;
  startedAt: string;
  finishedAt: string;
  /** null for a stage that runs no models */
  inferenceIds: string | null;
}

/** The column names (and row keys: the generated columns are keyed by them) of a stage's group. */
export function groupKeys(s: Pick<StageDef, "name" | "model">): GroupKeys {
  return {
    status: `${s.name}_status`,
    error: `${s.name}_error`,
    startedAt: `${s.name}_started_at`,
    finishedAt: `${s.name}_finished_at`,
    inferenceIds: s.model ? `${s.name}_inference_ids` : null,
  };
}

/** What a run log holds of one stage. `T`: its times (Dates; the test observer counts hook calls). */
export interface StageGroup<T = Date> {
  status: StageStatus;
  error: string | null;
  startedAt: T | null;
  finishedAt: T | null;
  inferenceIds: string[];
}

export const newGroup = <T = Date>(): StageGroup<T> => ({ status: "not_started", error: null, startedAt: null, finishedAt: null, inferenceIds: [] });

/** The stage (or an item of it) starts; true when this is its first start (its time is kept). */
export function startGroup<T>(g: StageGroup<T>, at: T): boolean {
  g.status = "started";
  if (g.startedAt !== null) return false;
  g.startedAt = at;
  return true;
}

/** The stage (or an item of it) ended, with an error or not. */
export function endGroup<T>(g: StageGroup<T>, error: string | null, at: T): void {
  // once failed (on any item), a stage stays failed with its first error
  if (error !== null && g.error === null) g.error = error;
  g.status = g.error !== null ? "failed" : "succeeded";
  g.finishedAt = at;
}

export function skipGroup<T>(g: StageGroup<T>): void {
  g.status = "skipped";
}

/**
 * Fails a stage after the fact, keeping its first error: what it made could not be kept (its
 * output). A stage still running fails when it ends.
 */
export function flagGroup<T>(g: StageGroup<T>, error: string): void {
  g.error ??= error;
  if (g.status === "succeeded") g.status = "failed";
}

/** What a started stage's error says when its call ends under it (the call's own error aside). */
export const ENDED_WHILE_RUNNING = "the call ended while this stage was running";

/** The call ended: a stage still started fails with it. */
export function failIfStarted<T>(g: StageGroup<T>, error: string, at: T): void {
  if (g.status !== "started") return;
  g.status = "failed";
  g.error ??= error;
  g.finishedAt = at;
}

/** A stage's group as a row holds it (a drizzle row of a run-log table). */
export function readGroup(row: Record<string, unknown>, s: StageDef): StageGroup {
  const k = groupKeys(s);
  return {
    status: row[k.status] as StageStatus,
    error: (row[k.error] as string | null) ?? null,
    startedAt: (row[k.startedAt] as Date | null) ?? null,
    finishedAt: (row[k.finishedAt] as Date | null) ?? null,
    inferenceIds: k.inferenceIds ? ((row[k.inferenceIds] as string[] | null) ?? []) : [],
  };
}

/** Whether any stage of a row failed (a succeeded run with one is flagged). */
export const anyGroupFailed = (row: Record<string, unknown>, stages: readonly StageDef[]): boolean =>
  stages.some((s) => row[groupKeys(s).status] === "failed");

/**
 * The SET of a prepared UPDATE that writes every stage's group from placeholders named like its
 * columns (the values: groupValues). Casts in SQL rather than column encoders: drizzle's timestamp
 * encoder does not take null through a placeholder.
 */
export function groupPlaceholders(stages: readonly StageDef[]): Record<string, SQL> {
  const set: Record<string, SQL> = {};
  for (const s of stages) {
    const k = groupKeys(s);
    set[k.status] = sql`${sql.placeholder(k.status)}`;
    set[k.error] = sql`${sql.placeholder(k.error)}`;
    set[k.startedAt] = sql`${sql.placeholder(k.startedAt)}::timestamptz`;
    set[k.finishedAt] = sql`${sql.placeholder(k.finishedAt)}::timestamptz`;
    if (k.inferenceIds) set[k.inferenceIds] = sql`${sql.placeholder(k.inferenceIds)}::uuid[]`;
  }
  return set;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A group's values for groupPlaceholders. */
export function groupValues(s: StageDef, g: StageGroup): Record<string, unknown> {
  const k = groupKeys(s);
  const v: Record<string, unknown> = {
    [k.status]: g.status,
    [k.error]: g.error,
    [k.startedAt]: iso(g.startedAt),
    [k.finishedAt]: iso(g.finishedAt),
  };
  if (k.inferenceIds) v[k.inferenceIds] = g.inferenceIds;
  return v;
}

/**
 * SET items that fail every stage still started with `error` (an SQL expression, evaluated per
 * row), as failIfStarted does: a stage that had already failed on an earlier item keeps its first
 * error. In an UPDATE's SET, columns read the row's old values, so every item tests the stage's
 * status before the statement.
 */
export function failStartedSql(stages: readonly StageDef[], error: SQL): SQL {
  return sql.join(
    stages.map((s) => {
      const k = groupKeys(s);
      const [status, err, finished] = [k.status, k.error, k.finishedAt].map((c) => sql.identifier(c));
      const started = sql`${status} = 'started'`;
      return sql.join(
        [
          sql`${status} = CASE WHEN ${started} THEN 'failed' ELSE ${status} END`,
          sql`${err} = CASE WHEN ${started} THEN COALESCE(${err}, ${error}) ELSE ${err} END`,
          sql`${finished} = CASE WHEN ${started} THEN now() ELSE ${finished} END`,
        ],
        sql`, `,
      );
    }),
    sql`, `,
  );
}

/** SQL that is true when any stage of the table failed (with a succeeded run: flagged). */
export function anyStageFailedSql(stages: readonly StageDef[], tableName: string): SQL {
  return sql.join(
    [sql`(`, sql.join(stages.map((s) => sql`${sql.identifier(tableName)}.${sql.identifier(groupKeys(s).status)} = 'failed'`), sql` OR `), sql`)`],
    sql``,
  );
}

/**
 * SET items that keep, in every model stage's inference ids, only the ids of inferences that still
 * exist in the dataset (a purge deleted some), in their order. Null when no stage runs models.
 */
export function keepExistingInferenceIdsSql(stages: readonly StageDef[], datasetId: string): SQL | null {
  const columns = stages.flatMap((s) => {
    const c = groupKeys(s).inferenceIds;
    return c ? [sql.identifier(c)] : [];
  });
  if (columns.length === 0) return null;
  return sql.join(
    columns.map(
      (c) => sql`${c} = ARRAY(SELECT x FROM unnest(${c}) WITH ORDINALITY AS u(x, i)
                   WHERE EXISTS (SELECT 1 FROM gb_inferences g WHERE g.dataset_id = ${datasetId} AND g.id = u.x) ORDER BY i)`,
    ),
    sql`, `,
  );
}
