"use client";

import Link from "next/link";
import { formatDuration, formatFullTime, formatRunTime, runHref, shortId } from "@/lib/runs";
import type { RunKind } from "@/lib/stages";
import type { RunSummary } from "./api";
import s from "./runs.module.css";
import { FlaggedBadge, StatusBadge } from "./status-badge";

/** How long a run took, or has been going: a started run counts up to now. */
function duration(run: RunSummary, now: number): string {
  if (run.status === "queued") return "waiting";
  if (run.status === "started" && run.startedAt) return `${formatDuration(now - run.startedAt.getTime())} so far`;
  return formatDuration(run.durationMs);
}

export function RunsTable({ kind, runs }: { kind: RunKind; runs: RunSummary[] }) {
  const now = Date.now();
  return (
    <div className="table-wrap">
      <table className="stack" data-testid="runs">
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Run</th>
            <th scope="col">Submitted</th>
            <th scope="col">Duration</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} data-run={r.id} data-status={r.status}>
              <td data-label="Status">
                <span className={s.statusCell}>
                  <StatusBadge status={r.status} />
                  {r.flagged && <FlaggedBadge />}
                </span>
              </td>
              <td data-label="Run">
                <Link href={runHref(kind, r.id, r.dataset)} className={s.id} title={r.id} aria-label={`${kind} run ${r.id}`}>
                  {shortId(r.id)}
                </Link>
              </td>
              <td data-label="Submitted" className={s.num} title={formatFullTime(r.createdAt)}>
                {formatRunTime(r.createdAt)}
              </td>
              <td data-label="Duration" className={s.num}>
                {duration(r, now)}
              </td>
              <td data-label="Error">{r.error && <span className={s.error} title={r.error}>{r.error}</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
