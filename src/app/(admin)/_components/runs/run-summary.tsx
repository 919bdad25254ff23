"use client";

import { formatDuration, isLive, progressFraction } from "@/lib/runs";
import type { RunKind } from "@/lib/stages";
import type { RunDetail } from "./api";
import { Attempts } from "./attempts";
import s from "./run.module.css";
import { FlaggedBadge, StatusBadge } from "./status-badge";
import { Time } from "./time";

type Progress = NonNullable<RunDetail["progress"]>;

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** Where a queued or running remember stands: place in the queue, or stages and chunks done. */
function ProgressBar({ run, progress }: { run: RunDetail; progress: Progress }) {
  if (run.status === "queued") {
    const ahead = progress.queuePosition ?? 0;
    return (
      <div className={s.progress} data-testid="progress">
        <progress aria-label="Waiting in the queue" />
        <p>
          Queued: {ahead === 0 ? "next in this dataset's queue" : `${plural(ahead, "run")} ahead of it in this dataset's queue`}. A dataset
          runs one remember at a time, in the order they were submitted.
        </p>
      </div>
    );
  }
  const fraction = progressFraction(progress);
  return (
    <div className={s.progress} data-testid="progress">
      <progress max={1} value={fraction} aria-label="Progress of the run" aria-valuetext={`${Math.round(fraction * 100)}%`} />
      <p>
        {progress.stagesDone} of {progress.stagesTotal} stages ended
        {progress.chunksTotal !== null ? ` · ${progress.chunksDone} of ${plural(progress.chunksTotal, "chunk")} stored` : " · chunks not counted yet"}
      </p>
    </div>
  );
}

/** The run's status, its times and error, and (remember) how far it has come. */
export function RunSummary({ kind, run }: { kind: RunKind; run: RunDetail }) {
  const failedStages = run.stages.filter((st) => st.status === "failed");
  const waited = run.startedAt ? run.startedAt.getTime() - run.createdAt.getTime() : null;
  const now = Date.now();
  return (
    <section className="card" aria-labelledby="summary-title">
      <h2 id="summary-title" className="sr-only">
        Summary
      </h2>
      <div className={s.summary}>
        <dl className="facts">
          <dt>Status</dt>
          <dd className={s.statusLine} data-testid="run-status">
            <StatusBadge status={run.status} />
            {run.flagged && <FlaggedBadge />}
          </dd>
          <dt>Submitted</dt>
          <dd className={s.num}>
            <Time date={run.createdAt} />
          </dd>
          <dt>Started</dt>
          <dd className={s.num}>
            <Time date={run.startedAt} />
            {kind === "remember" && waited !== null && waited >= 1000 && <span className={s.muted}> · after {formatDuration(waited)} in the queue</span>}
          </dd>
        </dl>
        <dl className="facts">
          <dt>Finished</dt>
          <dd className={s.num}>
            <Time date={run.finishedAt} />
          </dd>
          <dt>Duration</dt>
          <dd className={s.num} data-testid="run-duration">
            {run.status === "started" && run.startedAt ? `${formatDuration(now - run.startedAt.getTime())} so far` : formatDuration(run.durationMs)}
          </dd>
          {run.progress && !isLive(run.status) && run.progress.chunksTotal !== null && (
            <>
              <dt>Chunks</dt>
              <dd className={s.num}>
                {run.progress.chunksDone} of {run.progress.chunksTotal} stored
              </dd>
            </>
          )}
          {run.userId && (
            <>
              <dt>User</dt>
              <dd>
                <code>{run.userId}</code>
              </dd>
            </>
          )}
        </dl>
      </div>
      {run.progress && isLive(run.status) && <ProgressBar run={run} progress={run.progress} />}
      <Attempts run={run} />
      {run.status === "failed" && (
        <p role="alert" className="note error" data-testid="run-error">
          <strong>The run failed</strong>
          {failedStages[0] ? (
            <>
              {" "}
              in <code>{failedStages[0].name}</code>
            </>
          ) : null}
          : {run.error ?? "no error was recorded"}
        </p>
      )}
      {run.flagged && (
        <p className="note warn" data-testid="run-flag">
          The run succeeded, but {failedStages.length === 1 ? "a stage" : "stages"} failed:{" "}
          {failedStages.map((st, i) => (
            <span key={st.name}>
              {i > 0 && "; "}
              <code>{st.name}</code> ({st.policy === "advisory" ? "advisory: " : ""}
              {st.error ?? "no error recorded"})
            </span>
          ))}
          .
        </p>
      )}
    </section>
  );
}
