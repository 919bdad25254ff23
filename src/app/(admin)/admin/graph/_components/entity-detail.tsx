"use client";

import { useQuery } from "@tanstack/react-query";
import { ErrorNote, Loading } from "@/app/_components/status";
import { useTRPC } from "@/trpc/client";
import { EntityCard } from "./entity-card";
import { FactsTable } from "./facts-table";
import { Neighbourhood } from "./neighbourhood";

/** The selected entity: what it is, its neighbourhood drawn, and its facts (the drawing's text alternative). */
export function EntityDetail({ dataset, id, fact }: { dataset: string; id: string; fact: string | null }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.graph.entity.queryOptions({ dataset, id }));
  if (q.isPending || q.error) {
    return <section className="card">{q.error ? <ErrorNote error={q.error} action="show the entity" /> : <Loading />}</section>;
  }
  const { entity, current, past } = q.data;
  const all = [...current, ...past];
  return (
    <>
      <EntityCard dataset={dataset} entity={entity} />
      <section className="card" aria-labelledby="hood-title">
        <h2 id="hood-title">Neighbourhood</h2>
        <Neighbourhood dataset={dataset} root={entity} />
      </section>
      <section className="card" aria-labelledby="current-title">
        <h2 id="current-title">Current facts ({current.length})</h2>
        <FactsTable dataset={dataset} entityId={id} facts={current} all={all} highlight={fact} testId="current-facts" empty={`Nothing is known about ${entity.name} now.`} />
      </section>
      <section className="card" aria-labelledby="past-title">
        <h2 id="past-title">Past facts ({past.length})</h2>
        <FactsTable dataset={dataset} entityId={id} facts={past} all={all} highlight={fact} testId="past-facts" empty={`None: nothing known about ${entity.name} has changed.`} />
      </section>
    </>
  );
}
