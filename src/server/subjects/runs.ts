import { and, type AnyColumn, eq, inArray, notInArray, sql } from "drizzle-orm";
import { type RunKind, StageTables } from "../../lib/stages";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { inferences, queryRuns, queryStageOutputs, rememberRuns, rememberStageOutputs } from "../db/schema";
import { keepExistingInferenceIdsSql } from "../db/schema/stage-group";
import type { Gone, Subject } from "./graph";
import { inIds, type PurgedTable, type RedactedTable, type Tally } from "./tally";

/*
 * The run-log side of a purge, within one dataset. A run row stays (status, stage timings) with
 * its params replaced by the purge's stamp; what holds the person's text goes: the run's
 * inferences (prompts and answers) and stage outputs.
 */

/** What replaces a purged run's params: which purge, when, and by whom. */
export type PurgeStamp = { purged: { id: string; at: string; by: string } };

const logs = {
  remember: { runs: rememberRuns, runsName: "gb_remember_runs", outputs: rememberStageOutputs, outputsName: "gb_remember_run_stage_outputs" },
  query: { runs: queryRuns, runsName: "gb_query_runs", outputs: queryStageOutputs, outputsName: "gb_query_run_stage_outputs" },
} as const;

/** remember's stages whose outputs hold what the dataset already knew (candidates, the plan). */
const KNOWLEDGE_STAGES = ["load_candidates", "resolve_edges"];

/** True when any string in the output is one of `ids`, wherever the output's shape puts it. */
const cites = (output: AnyColumn, ids: string[]) =>
  sql`EXISTS (SELECT 1 FROM jsonb_path_query(${output}, 'lax $.** ? (@.type() == "string")') AS s(v) WHERE s.v #>> '{}' IN ${inIds(ids, "text")})`;

async function redactRuns(
  tx: Db,
  kind: RunKind,
  datasetId: string,
  runIds: string[],
  stamp: PurgeStamp,
  deleted: Tally<PurgedTable>,
  redacted: Tally<RedactedTable>,
): Promise<void> {
  if (runIds.length === 0) return;
  const ids = inIds(runIds);
  const log = logs[kind];
  const calls = await tx
    .delete(inferences)
    .where(and(eq(inferences.datasetId, datasetId), eq(inferences.runKind, kind), inArray(inferences.runId, ids)))
    .returning({ id: inferences.id });
  deleted.gb_inferences += calls.length;
  const outputs = await tx
    .delete(log.outputs)
    .where(and(eq(log.outputs.datasetId, datasetId), inArray(log.outputs.runId, ids)))
    .returning({ runId: log.outputs.runId });
  deleted[log.outputsName] += outputs.length;
  // raw: the two run tables differ in columns, and the query builder does not take their union
  const rows = await queryRows<{ id: string }>(
    tx,
    // a remember run's idempotency hash is a fingerprint of the person's text: it goes too
    // a run this purge redacted in an earlier batch is not counted again
    sql`UPDATE ${log.runs} SET params = ${JSON.stringify(stamp)}::jsonb${kind === "remember" ? sql`, idempotency_hash = NULL` : sql``}
        WHERE dataset_id = ${datasetId} AND id IN ${ids} AND params IS DISTINCT FROM ${JSON.stringify(stamp)}::jsonb RETURNING id`,
  );
  redacted[log.runsName] += rows.length;
  await dropDeletedInferenceIds(tx, kind, datasetId, runIds);
}

/** The runs' stage columns keep only the ids of inferences that still exist (no dead links). */
async function dropDeletedInferenceIds(tx: Db, kind: RunKind, datasetId: string, runIds: string[]): Promise<void> {
  const set = keepExistingInferenceIdsSql(StageTables[kind], datasetId);
  if (set === null || runIds.length === 0) return;
  await tx.execute(sql`UPDATE ${logs[kind].runs} SET ${set} WHERE dataset_id = ${datasetId} AND id IN ${inIds(runIds)}`);
}

/** Runs whose params name the user (`userId` of remember and query input). */
async function runsOfUser(tx: Db, kind: RunKind, datasetId: string, subject: Subject): Promise<string[]> {
  if (!("userId" in subject)) return [];
  const runs = logs[kind].runs;
  const rows = await tx
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.datasetId, datasetId), sql`${runs.params}->>'userId' = ${subject.userId}`));
  return rows.map((r) => r.id);
}

/**
 * Other remember runs kept the deleted facts and entities as candidates (load_candidates) and in
 * the plan the model was asked about (resolve_edges): those outputs and those stages' inferences go.
 */
async function forgetCandidates(tx: Db, datasetId: string, cited: string[], spared: string[], deleted: Tally<PurgedTable>): Promise<void> {
  const o = rememberStageOutputs;
  const rows = await tx
    .delete(o)
    .where(and(eq(o.datasetId, datasetId), inArray(o.stage, KNOWLEDGE_STAGES), notInArray(o.runId, inIds(spared)), cites(o.output, cited)))
    .returning({ runId: o.runId, stage: o.stage });
  deleted.gb_remember_run_stage_outputs += rows.length;
  if (rows.length === 0) return;
  const [calls] = await queryRows<{ n: number }>(
    tx,
    sql`WITH d AS (
          DELETE FROM gb_inferences WHERE dataset_id = ${datasetId} AND run_kind = 'remember'
            AND (run_id, stage) IN (SELECT x."runId", x.stage FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x("runId" uuid, stage text))
          RETURNING 1)
        SELECT count(*)::int AS n FROM d`,
  );
  deleted.gb_inferences += calls?.n ?? 0;
  await dropDeletedInferenceIds(tx, "remember", datasetId, [...new Set(rows.map((r) => r.runId))]);
}

/** Redacts the runs that hold the subject's data in one dataset. */
export async function purgeRuns(
  tx: Db,
  datasetId: string,
  subject: Subject,
  gone: Gone,
  stamp: PurgeStamp,
  deleted: Tally<PurgedTable>,
  redacted: Tally<RedactedTable>,
): Promise<void> {
  // by userId, also the runs that stored nothing (queued, failed): their params hold the text
  const remember = [...new Set([...gone.runIds, ...(await runsOfUser(tx, "remember", datasetId, subject))])];
  await redactRuns(tx, "remember", datasetId, remember, stamp, deleted, redacted);

  // Everything a receipt may name a deleted row by: ids, and query's candidate keys.
  const cited = [
    ...gone.textIds,
    ...gone.chunkIds,
    ...gone.factIds,
    ...gone.entityIds,
    ...gone.factIds.map((id) => `fact:${id}`),
    ...gone.chunkIds.map((id) => `summary:${id}`),
  ];
  const q = queryStageOutputs;
  const citing =
    cited.length === 0
      ? []
      : await tx.selectDistinct({ runId: q.runId }).from(q).where(and(eq(q.datasetId, datasetId), cites(q.output, cited)));
  const query = [...new Set([...(await runsOfUser(tx, "query", datasetId, subject)), ...citing.map((r) => r.runId)])];
  await redactRuns(tx, "query", datasetId, query, stamp, deleted, redacted);
  if (cited.length > 0) await forgetCandidates(tx, datasetId, cited, remember, deleted);
}
