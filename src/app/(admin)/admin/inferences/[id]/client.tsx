"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ErrorNote, Loading } from "@/app/_components/status";
import { formatDuration, runHref, shortId } from "@/lib/runs";
import { useTRPC } from "@/trpc/client";
import { DatasetJump } from "../../../_components/dataset";
import { JsonView } from "../../../_components/json-view";
import { Time } from "../../../_components/runs/time";
import s from "./inference.module.css";

/** A request or response: the tree, or the raw JSON to copy. */
function Payload({ title, value }: { title: string; value: unknown }) {
  const [raw, setRaw] = useState(false);
  const id = `${title.toLowerCase()}-title`;
  return (
    <section className="card" aria-labelledby={id}>
      <div className={s.head}>
        <h2 id={id}>{title}</h2>
        {value !== null && value !== undefined && (
          <button type="button" className="button small" aria-pressed={raw} onClick={() => setRaw(!raw)}>
            {raw ? "Show as a tree" : "Show raw JSON"}
          </button>
        )}
      </div>
      {value === null || value === undefined ? (
        <p className="muted">None was recorded{title === "Response" ? " (the call failed before an answer)" : ""}.</p>
      ) : raw ? (
        <pre className={s.raw}>
          {JSON.stringify(value, null, 2)}
        </pre>
      ) : (
        <JsonView value={value} label={title} openDepth={3} />
      )}
    </section>
  );
}

/** /admin/inferences/[id]: one model call, as gb_inferences keeps it. */
export function InferenceView({ id }: { id: string }) {
  const trpc = useTRPC();
  const inf = useQuery(trpc.runs.inference.get.queryOptions({ id }));
  const d = inf.data;
  return (
    <main>
      <div className="page-head">
        {d?.runKind && d.runId && (
          <p className={s.crumbs}>
            <Link href={runHref(d.runKind, d.runId, d.dataset)}>
              ← {d.runKind === "remember" ? "Remember" : "Query"} run {shortId(d.runId)}
            </Link>
          </p>
        )}
        <h1 className={s.title}>
          Inference <span className={s.id}>{id}</span>
        </h1>
        {d && <DatasetJump current={d.dataset} list={`/admin/${d.runKind ?? "remember"}`} />}
      </div>
      {inf.isPending && <Loading>Loading the inference…</Loading>}
      {inf.error && <ErrorNote error={inf.error} action="load the inference" />}
      {d && (
        <>
          <section className="card" aria-label="Call">
            <div className={s.grid}>
              <dl className="facts">
                <dt>Provider</dt>
                <dd data-testid="provider">{d.provider}</dd>
                <dt>Model</dt>
                <dd data-testid="model">
                  <code>{d.model}</code>
                </dd>
                <dt>Task</dt>
                <dd>{d.task}</dd>
                <dt>Stage</dt>
                <dd>{d.stage ? <code>{d.stage}</code> : <span className="muted">none</span>}</dd>
                <dt>Run</dt>
                <dd>
                  {d.runKind && d.runId ? (
                    <Link href={runHref(d.runKind, d.runId, d.dataset)} data-testid="run-link">
                      {d.runKind} run {d.runId}
                    </Link>
                  ) : (
                    <span className="muted">none (called outside a run)</span>
                  )}
                </dd>
              </dl>
              <dl className="facts">
                <dt>Dataset</dt>
                <dd>
                  <code>{d.dataset}</code>
                </dd>
                <dt>Finished</dt>
                <dd className={s.num}>
                  <Time date={d.createdAt} />
                </dd>
                <dt>Latency</dt>
                <dd className={s.num}>{formatDuration(d.latencyMs)}</dd>
                <dt>Tokens in</dt>
                <dd className={s.num}>{d.tokensIn?.toLocaleString() ?? <span className="muted">not reported</span>}</dd>
                <dt>Tokens out</dt>
                <dd className={s.num}>{d.tokensOut?.toLocaleString() ?? <span className="muted">not reported</span>}</dd>
              </dl>
            </div>
            {d.error && (
              <p role="alert" className="note error" data-testid="inference-error">
                <strong>The call failed:</strong> {d.error}
              </p>
            )}
          </section>
          <Payload title="Request" value={d.request} />
          <Payload title="Response" value={d.response} />
        </>
      )}
    </main>
  );
}
