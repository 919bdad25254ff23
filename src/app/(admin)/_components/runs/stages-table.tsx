"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Fragment, useState } from "react";
import { ErrorNote, Loading } from "@/app/_components/status";
import { formatDuration, formatFullTime, inferenceHref, LIVE_POLL_MS, shortId } from "@/lib/runs";
import { NOT_IN_THIS_VERSION, type RunKind, StageTables } from "@/lib/stages";
import { JsonView } from "../json-view";
import { type RunDetail, type StageView, useRunsApi } from "./api";
import s from "./run.module.css";
import { StatusBadge } from "./status-badge";

const FIRST_CALLS = 4;
const help = (kind: RunKind, stage: string) => StageTables[kind].find((d) => d.name === stage)?.help ?? "";

/** What a stage kept (runs.*.outputs with `stage`), item by item; asked for when opened. */
function StageOutputs({ kind, runId, stage, live }: { kind: RunKind; runId: string; stage: string; live: boolean }) {
  const api = useRunsApi(kind);
  const outputs = useQuery({ ...api.outputs.queryOptions({ id: runId, stage }), refetchInterval: live ? LIVE_POLL_MS : false });
  if (outputs.isPending) return <Loading>Loading the outputs of {stage}…</Loading>;
  if (outputs.error) return <ErrorNote error={outputs.error} action={`load the outputs of ${stage}`} />;
  const items = outputs.data;
  if (items.length === 0) return <p className={s.muted}>This stage kept no output{live ? " yet" : ""}.</p>;
  const only = items.length === 1 && items[0]!.itemIndex === 0;
  return (
    <div data-testid={`outputs-${stage}`}>
      <p className={s.outputsHead}>
        Outputs of {stage}
        {!only && ` · ${items.length} items (chunks)`}
      </p>
      <JsonView
        label={`Outputs of ${stage}`}
        value={only ? items[0]!.output : Object.fromEntries(items.map((i) => [`item ${i.itemIndex}`, i.output]))}
        openDepth={only ? 3 : 2}
      />
    </div>
  );
}

function Calls({ ids }: { ids: string[] }) {
  const [all, setAll] = useState(false);
  if (ids.length === 0) return null;
  const shown = all ? ids : ids.slice(0, FIRST_CALLS);
  return (
    <span className={s.calls}>
      {shown.map((id) => (
        <Link key={id} href={inferenceHref(id)} title={`inference ${id}`} aria-label={`inference ${id}`}>
          {shortId(id)}
        </Link>
      ))}
      {ids.length > FIRST_CALLS && (
        <button type="button" className={s.more} onClick={() => setAll(!all)}>
          {all ? "fewer" : `+${ids.length - FIRST_CALLS} more`}
        </button>
      )}
    </span>
  );
}

function StageRow({ kind, run, stage, live }: { kind: RunKind; run: RunDetail; stage: StageView; live: boolean }) {
  const [helpOpen, setHelpOpen] = useState(false);
  const [outputsOpen, setOutputsOpen] = useState(false);
  const t0 = run.startedAt?.getTime();
  const ran = stage.status !== "not_started" && stage.status !== "skipped";
  const detailId = `stage-${stage.name}-detail`;
  return (
    <Fragment>
      <tr data-stage={stage.name} className={ran ? undefined : s.skippedRow}>
        <td data-label="Stage">
          <span className={s.stageName}>
            {stage.name}
            {stage.placeholder ? (
              <span className={s.stageTag} data-testid={`placeholder-${stage.name}`} title="This stage's capability is not in this version: it never runs">
                {NOT_IN_THIS_VERSION}
              </span>
            ) : (
              stage.policy === "advisory" && (
                <span className={s.stageTag} data-testid={`advisory-${stage.name}`} title="If this stage fails, the run goes on and is flagged">
                  Advisory
                </span>
              )
            )}
            <button
              type="button"
              className={s.help}
              aria-expanded={helpOpen}
              aria-controls={detailId}
              aria-label={`What ${stage.name} does`}
              title={`What ${stage.name} does`}
              onClick={() => setHelpOpen(!helpOpen)}
            >
              ?
            </button>
          </span>
        </td>
        <td data-label="Status">
          <StatusBadge status={stage.status} />
        </td>
        <td data-label="Start" className={s.cellNum} title={formatFullTime(stage.startedAt)}>
          {stage.startedAt && t0 !== undefined ? `+${formatDuration(stage.startedAt.getTime() - t0)}` : ""}
        </td>
        <td data-label="Duration" className={s.cellNum}>
          {stage.status === "started" ? "running" : ran ? formatDuration(stage.durationMs) : ""}
        </td>
        <td data-label="Model calls">
          <Calls ids={stage.inferenceIds} />
        </td>
        <td data-label="Error">{stage.error && <span className={s.stageError}>{stage.error}</span>}</td>
        <td className="actions">
          {ran && (
            <button
              type="button"
              className={`button small ${s.toggle}`}
              aria-expanded={outputsOpen}
              aria-controls={detailId}
              aria-label={`Outputs of ${stage.name}`}
              onClick={() => setOutputsOpen(!outputsOpen)}
            >
              Outputs
            </button>
          )}
        </td>
      </tr>
      {(helpOpen || outputsOpen) && (
        <tr className={s.detailRow} id={detailId}>
          <td colSpan={7}>
            {helpOpen && (
              <p className={s.helpText} data-testid={`help-${stage.name}`}>
                <strong>{stage.name}</strong>
                {stage.policy === "advisory" && " (advisory: if it fails, the run goes on and is flagged)"}: {help(kind, stage.name)}
              </p>
            )}
            {outputsOpen && <StageOutputs kind={kind} runId={run.id} stage={stage.name} live={live} />}
          </td>
        </tr>
      )}
    </Fragment>
  );
}

/** One row per stage in pipeline order: status, times, model calls, error, its help and its outputs. */
export function StagesTable({ kind, run, live }: { kind: RunKind; run: RunDetail; live: boolean }) {
  return (
    <div className="table-wrap">
      <table className="stack" data-testid="stages">
        <thead>
          <tr>
            <th scope="col">Stage</th>
            <th scope="col">Status</th>
            <th scope="col">Start</th>
            <th scope="col">Duration</th>
            <th scope="col">Model calls</th>
            <th scope="col">Error</th>
            <th scope="col">
              <span className="sr-only">Outputs</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {run.stages.map((st) => (
            <StageRow key={st.name} kind={kind} run={run} stage={st} live={live} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
