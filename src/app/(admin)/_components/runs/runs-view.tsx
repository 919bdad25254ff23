"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { Empty, ErrorNote, Loading } from "@/app/_components/status";
import { playgroundHref } from "@/lib/admin-links";
import { filterFromParams, filterInput, filterToParams, LIVE_POLL_MS, listIsLive, toggleFilter, type TileKey } from "@/lib/runs";
import type { RunKind } from "@/lib/stages";
import { DatasetSwitcher, useDataset } from "../dataset";
import { PageHead } from "../page-head";
import { KindTitle, useRunsApi } from "./api";
import { RunsTable } from "./runs-table";
import s from "./runs.module.css";
import { StatusTiles } from "./status-tiles";

const PAGE = 50;

const about: Record<RunKind, string> = {
  remember: "Every text remembered in this dataset, newest first: how each run went, stage by stage.",
  query: "Every question asked of this dataset, newest first: what was retrieved and what the model answered.",
};

function NoRuns({ kind, dataset }: { kind: RunKind; dataset: string }) {
  const playground = <Link href={playgroundHref(dataset)}>Playground</Link>;
  return kind === "remember" ? (
    <Empty>
      No runs yet: remember a text in the {playground} or with the API (<code>remember.submit</code>).
    </Empty>
  ) : (
    <Empty>
      No runs yet: ask a question in the {playground} or with the API (<code>query.ask</code>).
    </Empty>
  );
}

/**
 * /admin/remember and /admin/query: one view over either run log. The tiles count the dataset's
 * runs by status and filter the list; the filter is in the URL. Pages come from the server
 * (cursor), so a dataset of any size lists as fast; while anything shown is queued or started,
 * the tiles and the pages loaded are asked again every second.
 */
export function RunsView({ kind }: { kind: RunKind }) {
  const api = useRunsApi(kind);
  const dataset = useDataset();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filter = filterFromParams(params);

  // Polling follows what is on screen: on while a run shown (in the tiles or the list) can still change.
  const [live, setLive] = useState(false);
  const poll = live ? LIVE_POLL_MS : false;
  const counts = useQuery({ ...api.counts.queryOptions({ dataset }), refetchInterval: poll });
  const list = useInfiniteQuery({
    ...api.list.infiniteQueryOptions({ dataset, limit: PAGE, ...filterInput(filter) }, { getNextPageParam: (last) => last.nextCursor }),
    refetchInterval: poll,
  });
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  const nowLive = listIsLive(counts.data, items.map((r) => r.status));
  useEffect(() => setLive(nowLive), [nowLive]);

  const toggle = (key: TileKey) => {
    const next = filterToParams(toggleFilter(filter, key), params);
    router.push(`${pathname}?${next.toString()}`, { scroll: false });
  };
  const filtered = Object.keys(filter).length > 0;

  return (
    <main>
      <div className={s.top}>
        <PageHead title={KindTitle[kind].many}>{about[kind]}</PageHead>
        <DatasetSwitcher />
      </div>
      {/* an unknown dataset fails both: the list's error below says it once */}
      {counts.error && !list.error && <ErrorNote error={counts.error} action="count the runs" />}
      {!counts.error && <StatusTiles counts={counts.data} filter={filter} onToggle={toggle} />}
      <section className="card" aria-labelledby="runs-title">
        <h2 id="runs-title" className="sr-only">
          Runs
        </h2>
        {(filtered || nowLive) && (
          <p className={s.filterNote}>
            {filtered && (
              <>
                <span>
                  Showing {"status" in filter ? <strong>{filter.status}</strong> : <strong>flagged</strong>} runs only.
                </span>
                <button type="button" className="button small" onClick={() => toggle("status" in filter ? filter.status : "flagged")}>
                  Show all runs
                </button>
              </>
            )}
            {nowLive && (
              <span className={s.live} role="status">
                Runs in progress: updating every second.
              </span>
            )}
          </p>
        )}
        {list.isPending && <Loading>Loading runs…</Loading>}
        {list.error && <ErrorNote error={list.error} action="list the runs" />}
        {list.isSuccess && items.length === 0 && (filtered ? <Empty>No runs of this dataset match the filter.</Empty> : <NoRuns kind={kind} dataset={dataset} />)}
        {items.length > 0 && <RunsTable kind={kind} runs={items} />}
        {list.hasNextPage && (
          <button type="button" className="button load-more" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
            {list.isFetchingNextPage ? "Loading…" : "Load older runs"}
          </button>
        )}
      </section>
    </main>
  );
}
