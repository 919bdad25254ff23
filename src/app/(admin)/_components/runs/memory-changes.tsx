"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Empty, ErrorNote, Loading } from "@/app/_components/status";
import { graphHref } from "@/lib/admin-links";
import { formatWhen } from "@/lib/format";
import { LIVE_POLL_MS } from "@/lib/runs";
import { useTRPC } from "@/trpc/client";
import type { RouterOutputs } from "@/trpc/types";
import s from "./run.module.css";

type Fact = RouterOutputs["runs"]["remember"]["changes"]["factsCreated"][number];

/** Long lists show their start and a button for the rest: a long text makes hundreds of facts. */
const FIRST = { facts: 20, entities: 60 };

function ShowAll({ total, shown, onClick }: { total: number; shown: number; onClick: () => void }) {
  if (total <= shown) return null;
  return (
    <button type="button" className={`button small ${s.showAll}`} onClick={onClick}>
      Show all {total.toLocaleString()}
    </button>
  );
}

function FactsTable({ facts, dataset, retired }: { facts: Fact[]; dataset: string; retired?: boolean }) {
  const [all, setAll] = useState(false);
  const shown = all ? facts : facts.slice(0, FIRST.facts);
  return (
    <>
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">Fact</th>
              <th scope="col">Subject · predicate · object</th>
              <th scope="col">{retired ? "Held until" : "Holds from"}</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((f) => (
              <tr key={f.id}>
                <td data-label="Fact" className={s.sentence}>
                  {f.sentence}
                </td>
                <td data-label="Triple" className={s.triple}>
                  <Link href={graphHref(dataset, f.subject.id, f.id)}>{f.subject.name}</Link> · {f.predicate} ·{" "}
                  {f.object ? <Link href={graphHref(dataset, f.object.id)}>{f.object.name}</Link> : (f.objectValue ?? "—")}
                </td>
                <td data-label={retired ? "Held until" : "Holds from"} className="nowrap">
                  {retired ? formatWhen(f.invalidAt, "—") : formatWhen(f.validAt, "not stated")}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ShowAll total={facts.length} shown={shown.length} onClick={() => setAll(true)} />
    </>
  );
}

/** A remember run's memory diff (runs.remember.changes): entities and facts made, facts it retired. */
export function MemoryChanges({ runId, dataset, live }: { runId: string; dataset: string; live: boolean }) {
  const trpc = useTRPC();
  const [allEntities, setAllEntities] = useState(false);
  const changes = useQuery({ ...trpc.runs.remember.changes.queryOptions({ id: runId }), refetchInterval: live ? LIVE_POLL_MS : false });
  if (changes.isPending) return <Loading>Loading the changes…</Loading>;
  if (changes.error) return <ErrorNote error={changes.error} action="load the memory changes" />;
  const { entitiesCreated, factsCreated, factsInvalidated } = changes.data;
  if (entitiesCreated.length + factsCreated.length + factsInvalidated.length === 0) {
    return (
      <Empty>
        {live
          ? "Nothing stored yet: the changes appear as chunks are stored."
          : "This run changed nothing in memory: everything it read was known already, or nothing was found in it."}
      </Empty>
    );
  }
  return (
    <div data-testid="memory-changes">
      <div className={s.sectionHead}>
        <h3>Entities created</h3>
        <span className={s.muted}>{entitiesCreated.length}</span>
      </div>
      {entitiesCreated.length === 0 ? (
        <p className={s.muted}>None: the text named only entities memory knew.</p>
      ) : (
        <>
          <ul className={s.entities}>
            {(allEntities ? entitiesCreated : entitiesCreated.slice(0, FIRST.entities)).map((e) => (
              <li key={e.id}>
                <Link href={graphHref(dataset, e.id)}>{e.name}</Link>
                <span className={s.type}>{e.type}</span>
              </li>
            ))}
          </ul>
          <ShowAll total={entitiesCreated.length} shown={allEntities ? entitiesCreated.length : FIRST.entities} onClick={() => setAllEntities(true)} />
        </>
      )}
      <div className={s.sectionHead}>
        <h3>Facts created</h3>
        <span className={s.muted}>{factsCreated.length}</span>
      </div>
      {factsCreated.length === 0 ? <p className={s.muted}>None.</p> : <FactsTable facts={factsCreated} dataset={dataset} />}
      <div className={s.sectionHead}>
        <h3>Facts invalidated</h3>
        <span className={s.muted}>{factsInvalidated.length}</span>
      </div>
      {factsInvalidated.length === 0 ? (
        <p className={s.muted}>None: nothing this text said contradicted a current fact.</p>
      ) : (
        <FactsTable facts={factsInvalidated} dataset={dataset} retired />
      )}
    </div>
  );
}
