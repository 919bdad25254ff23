"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect } from "react";
import { ErrorNote, Loading } from "@/app/_components/status";
import { rememberRunHref } from "@/lib/admin-links";
import { runEnded, runPollInterval } from "@/lib/run-poll";
import { formatDuration, isLive } from "@/lib/runs";
import { useTRPC } from "@/trpc/client";
import { MemoryChanges } from "../../../_components/runs/memory-changes";
import { StatusBadge } from "../../../_components/runs/status-badge";
import styles from "../playground.module.css";
import { StageList } from "./stage-list";

/** A remember run, asked again every second until it ends, with what it changed in memory so far. */
export function RunFollow({ dataset, id }: { dataset: string; id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const run = useQuery(
    trpc.runs.remember.get.queryOptions({ id }, { refetchInterval: (q) => (q.state.error ? false : runPollInterval(q.state.data?.status)) }),
  );
  const status = run.data?.status;
  useEffect(() => {
    // the graph, the run lists and this run's memory diff now hold what it stored: the diff's
    // last poll while the run was live may have come before its last chunk was stored
    if (runEnded(status)) {
      void queryClient.invalidateQueries({ queryKey: trpc.graph.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.runs.remember.list.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.runs.remember.changes.queryKey({ id }) });
    }
  }, [status, queryClient, trpc, id]);

  return (
    <section className={styles.follow} aria-labelledby="run-title" data-testid="remember-run">
      <h3 id="run-title" className={styles.runHead}>
        <span>
          Run <Link href={rememberRunHref(dataset, id)}>{id.slice(0, 8)}</Link>
        </span>
        {run.data && (
          <span data-testid="run-status">
            <StatusBadge status={run.data.status} />
          </span>
        )}
        {run.data?.durationMs != null && <span className="muted small">{formatDuration(run.data.durationMs)}</span>}
      </h3>
      {run.isPending && <Loading>Waiting for the run…</Loading>}
      {run.error && <ErrorNote error={run.error} action="follow the run" />}
      {run.data && (
        <>
          <p className="muted small" aria-live="polite">
            {run.data.status === "queued" && "Queued: it starts when the dataset's earlier runs are done."}
            {run.data.status === "started" && "Running: the stages update every second."}
            {run.data.status === "succeeded" && "Done. "}
            {run.data.status === "failed" && "Failed. "}
            <Link href={rememberRunHref(dataset, id)}>Open the run log</Link> for each stage&apos;s output and model calls.
          </p>
          {run.data.error && <p className="note error">{run.data.error}</p>}
          <StageList stages={run.data.stages} />
          {run.data.status !== "queued" && (
            <div className={styles.changes}>
              <MemoryChanges runId={id} dataset={dataset} live={isLive(run.data.status)} />
            </div>
          )}
        </>
      )}
    </section>
  );
}
