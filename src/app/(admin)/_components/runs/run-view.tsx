"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { ErrorNote, Loading } from "@/app/_components/status";
import { isLive, LIVE_POLL_MS } from "@/lib/runs";
import type { RunKind } from "@/lib/stages";
import { useTRPC } from "@/trpc/client";
import { KindTitle, useRunsApi } from "./api";
import { MemoryChanges } from "./memory-changes";
import { QuerySources } from "./query-sources";
import { RunParams } from "./run-params";
import { RunSummary } from "./run-summary";
import s from "./run.module.css";
import { StagesTable } from "./stages-table";
import { Waterfall } from "./waterfall";
import { DatasetJump } from "../dataset";

const listHref = (kind: RunKind, dataset?: string) => `/admin/${kind}${dataset ? `?dataset=${encodeURIComponent(dataset)}` : ""}`;

/**
 * /admin/remember/[id] and /admin/query/[id]: one run. While it is queued or started, the run,
 * its timeline and whatever else is open are asked again every second; when it ends, once more.
 */
export function RunView({ kind, id }: { kind: RunKind; id: string }) {
  const api = useRunsApi(kind);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const run = useQuery({
    ...api.get.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data && isLive(q.state.data.status) ? LIVE_POLL_MS : false),
  });
  const status = run.data?.status;
  const live = status !== undefined && isLive(status);
  const timeline = useQuery({ ...api.timeline.queryOptions({ id }), refetchInterval: live ? LIVE_POLL_MS : false });
  // Asked in the same batch as the run rather than once it has come: the sections read them from the cache.
  useQuery({ ...trpc.runs.remember.changes.queryOptions({ id }), enabled: kind === "remember" });
  useQuery({ ...trpc.runs.query.outputs.queryOptions({ id }), enabled: kind === "query" });

  // The run just ended: the last timings, outputs and changes were written with the end.
  const was = useRef(status);
  useEffect(() => {
    if (was.current && isLive(was.current) && status && !isLive(status)) void queryClient.invalidateQueries({ queryKey: api.pathKey() });
    was.current = status;
  }, [status, api, queryClient]);

  const title = KindTitle[kind];
  const dataset = run.data?.dataset;
  return (
    <main>
      <div className="page-head">
        <p className={s.crumbs}>
          <Link href={listHref(kind, dataset)}>← {title.many}</Link>
          {dataset && (
            <>
              {" "}
              of <code>{dataset}</code>
            </>
          )}
        </p>
        <h1 className={s.title}>
          {title.one} <span className={s.runId}>{id}</span>
        </h1>
        {dataset && <DatasetJump current={dataset} list={`/admin/${kind}`} />}
        {live && (
          <p className={s.live} role="status">
            In progress: this page updates every second.
          </p>
        )}
      </div>
      {run.isPending && <Loading>Loading the run…</Loading>}
      {run.error && <ErrorNote error={run.error} action="load the run" />}
      {run.data && (
        <>
          <RunSummary kind={kind} run={run.data} />
          <section className="card" aria-labelledby="params-title">
            <h2 id="params-title">{kind === "remember" ? "Text" : "Question"}</h2>
            <RunParams kind={kind} params={run.data.params} />
          </section>
          <section className="card" aria-labelledby="waterfall-title">
            <h2 id="waterfall-title">Waterfall</h2>
            {run.data.startedAt ? (
              <>
                {timeline.error && <ErrorNote error={timeline.error} action="load the timings" />}
                <Waterfall run={run.data} timeline={timeline.data} />
              </>
            ) : (
              <p className="muted">The run has not started yet: its stages appear here as they run.</p>
            )}
          </section>
          <section className="card" aria-labelledby="stages-title">
            <h2 id="stages-title">Stages</h2>
            <StagesTable kind={kind} run={run.data} live={live} />
          </section>
          {kind === "remember" ? (
            <section className="card" aria-labelledby="changes-title">
              <h2 id="changes-title">Memory changes</h2>
              <MemoryChanges runId={id} dataset={run.data.dataset} live={live} />
            </section>
          ) : (
            <section className="card" aria-labelledby="sources-title">
              <h2 id="sources-title">Sources</h2>
              <QuerySources runId={id} live={live} />
            </section>
          )}
        </>
      )}
    </main>
  );
}
