"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Empty, ErrorNote, Loading } from "@/app/_components/status";
import { graphHref, playgroundHref } from "@/lib/admin-links";
import { useTRPC } from "@/trpc/client";
import { DatasetSwitcher } from "../../_components/dataset";
import { PageHead } from "../../_components/page-head";
import { EntityDetail } from "./_components/entity-detail";
import { EntityList } from "./_components/entity-list";
import { SeriesView } from "./_components/series-view";
import styles from "./graph.module.css";
import { seriesHref, useGraphParams } from "./search-params";

const PAGE = 50;

/** `value`, once it has stopped changing for `ms`: one search per pause in typing, not per key. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/** The two views of the page: entities, or series. */
function ViewTabs({ dataset, view }: { dataset: string; view: "entities" | "series" }) {
  return (
    <nav className={styles.viewTabs} aria-label="Graph views">
      <Link className="button small" href={graphHref(dataset)} aria-current={view === "entities" ? "page" : undefined}>
        Entities
      </Link>
      <Link className="button small" href={seriesHref(dataset)} aria-current={view === "series" ? "page" : undefined}>
        Series
      </Link>
    </nav>
  );
}

/** /admin/graph: the entities (search, facts, neighbourhood) or the series (charts and observations) of a dataset. */
export function GraphView() {
  const { dataset, view, series } = useGraphParams();
  return (
    <main>
      <PageHead title="Graph">
        What the dataset knows: find an entity, read its facts as they are now and as they were, and walk to its neighbours; or chart a
        series of texts and read what changed across it.
      </PageHead>
      <DatasetSwitcher />
      <ViewTabs dataset={dataset} view={view} />
      {view === "series" ? <SeriesView dataset={dataset} selected={series} /> : <EntitiesView />}
    </main>
  );
}

/** Find an entity of the dataset, read its facts (now and before) and walk its neighbourhood. */
function EntitiesView() {
  const trpc = useTRPC();
  const { dataset, entity, fact } = useGraphParams();
  const [typed, setTyped] = useState("");
  const search = useDebounced(typed.trim(), 250);
  const list = useInfiniteQuery(
    trpc.graph.entities.infiniteQueryOptions(
      { dataset, search: search || undefined, limit: PAGE },
      { getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  const nothingYet = list.isSuccess && !search && items.length === 0;
  return (
    <>
      {list.error && <ErrorNote error={list.error} action="list the entities" />}
      {nothingYet ? (
        <section className="card">
          <Empty>
            Nothing remembered yet: try the <Link href={playgroundHref(dataset)}>Playground</Link> to remember a text into{" "}
            <code>{dataset}</code>.
          </Empty>
        </section>
      ) : (
        <div className={styles.layout}>
          <section className={`card ${styles.side}`} aria-labelledby="entities-title">
            <h2 id="entities-title">Entities</h2>
            <label className={styles.search}>
              <span className="sr-only">Search entities</span>
              <input type="search" placeholder="Name or alias" value={typed} onChange={(e) => setTyped(e.target.value)} />
            </label>
            {list.isPending && <Loading />}
            {list.isSuccess && items.length === 0 && <Empty>No entity&apos;s name or alias contains “{search}”.</Empty>}
            <EntityList dataset={dataset} items={items} selected={entity} />
            {list.hasNextPage && (
              <button type="button" className="button small load-more" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
                {list.isFetchingNextPage ? "Loading…" : "Load more"}
              </button>
            )}
          </section>
          <div className={styles.detail}>
            {entity ? (
              <EntityDetail key={`${dataset}:${entity}`} dataset={dataset} id={entity} fact={fact} />
            ) : (
              <section className="card">
                <Empty>Choose an entity to see its facts and draw its neighbours.</Empty>
              </section>
            )}
          </div>
        </div>
      )}
    </>
  );
}
