"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { QueryStages, RememberStages, type StageDef } from "@/lib/stages";
import { useTRPC } from "@/trpc/client";
import { isUnauthorized } from "@/trpc/errors";
import { useSession } from "@/trpc/session";
import { Empty, ErrorNote, Loading } from "./status";

function StageList({ stages }: { stages: readonly StageDef[] }) {
  return (
    <ul className="stages">
      {stages.map((s) => (
        <li key={s.name} title={s.help}>
          <code>{s.name}</code> {s.model && <span className="badge">model</span>}
        </li>
      ))}
    </ul>
  );
}

/** The team's datasets; with auth on and nobody signed in, the way in instead. */
function Datasets() {
  const trpc = useTRPC();
  const { needsFirstOwner } = useSession();
  // the first page: a list to look at, not a picker (the pickers page through all of them)
  const datasets = useQuery(trpc.datasets.list.queryOptions({ limit: 100 }));
  if (isUnauthorized(datasets.error)) {
    return (
      <p data-testid="sign-in-link">
        <Link href="/admin">{needsFirstOwner ? "Create the first owner" : "Sign in"}</Link> to see this team&apos;s datasets.
      </p>
    );
  }
  if (datasets.isPending) return <Loading />;
  if (datasets.error) return <ErrorNote error={datasets.error} action="list the datasets" />;
  const { items, nextCursor } = datasets.data;
  if (items.length === 0) return <Empty>No datasets yet: create one through the API (<code>datasets.create</code>).</Empty>;
  return (
    <>
      <ul data-testid="datasets">
        {items.map((d) => (
          <li key={d.id}>
            <code>{d.name}</code>
          </li>
        ))}
      </ul>
      {nextCursor && <p className="muted small">The first {items.length} by name; the dataset switcher of the admin pages has all of them.</p>}
    </>
  );
}

/** The landing page: what this instance runs on, its datasets and its pipelines. */
export function Home() {
  const trpc = useTRPC();
  const health = useQuery(trpc.system.health.queryOptions());
  const h = health.data;
  return (
    <main>
      <h1>gligabao</h1>
      <p className="muted">Memory for LLM applications and teams.</p>
      <section className="card" aria-label="status">
        {health.isPending && <p className="muted">Connecting to the database…</p>}
        {health.error && <p role="alert">Not ready: {health.error.message}</p>}
        {h && (
          <dl className="facts">
            <dt>status</dt>
            <dd className="ok" data-testid="status">ok</dd>
            <dt>database</dt>
            <dd data-testid="db">{h.db === "pglite" ? "PGlite (embedded)" : "Postgres server"}</dd>
            <dt>models</dt>
            <dd data-testid="models">{h.models === "builtin" ? "builtin models (offline)" : "OpenAI-compatible"}</dd>
            <dt>vector search</dt>
            <dd>{h.vector === "pgvector" ? "pgvector" : "fallback (no pgvector)"}</dd>
          </dl>
        )}
      </section>
      <section className="card" aria-label="datasets">
        <h2>Datasets</h2>
        <Datasets />
      </section>
      <section className="card" aria-label="pipelines">
        <h2>Pipelines</h2>
        <h3>remember</h3>
        <StageList stages={RememberStages} />
        <h3>query</h3>
        <StageList stages={QueryStages} />
        <p className="muted">
          API: tRPC at <code>/api/trpc</code>, health at <code>/api/health</code>, run logs at{" "}
          <code>/v1/gb/admin/api/remember-runs</code> and <code>/v1/gb/admin/api/query-runs</code>.
        </p>
      </section>
    </main>
  );
}
