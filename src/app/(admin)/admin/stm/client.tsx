"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Empty, ErrorNote, Loading } from "@/app/_components/status";
import { scopesInput, stmHref } from "@/lib/stm-view";
import { useTRPC, useTRPCClient } from "@/trpc/client";
import { DatasetSwitcher } from "../../_components/dataset";
import { PageHead } from "../../_components/page-head";
import { FilterForm } from "./_components/filter-form";
import { ScopeDetail } from "./_components/scope-detail";
import { ScopeList } from "./_components/scope-list";
import styles from "./stm.module.css";
import { useStmParams } from "./search-params";

const PAGE = 50;

/** /admin/stm: find a dataset's short-term memory keys by user, server or channel; open one; reset a channel or forget a user. */
export function StmView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const router = useRouter();
  const { dataset, filter, key } = useStmParams();
  const [done, setDone] = useState<string | null>(null);
  const input = scopesInput(dataset, filter);
  // Paged by hand rather than with infiniteQueryOptions: that also sends `direction`, which
  // stm.scopes' strict input refuses. Under the procedure's key, so invalidating stm.scopes refreshes it.
  const list = useInfiniteQuery({
    queryKey: [...trpc.stm.scopes.pathKey(), { type: "infinite", input }],
    queryFn: ({ pageParam, signal }) => client.stm.scopes.query({ ...input, limit: PAGE, cursor: pageParam }, { signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  // nothing at all, not just nothing matching: say how short-term memory is written
  const nothingYet = list.isSuccess && items.length === 0 && Object.keys(input).length === 1;

  /** after a reset or a forget: say what went, refresh the list, close the open key if it went */
  function cleared(note: string, keys: string[]) {
    setDone(note);
    const openGone = key !== null && keys.includes(key);
    if (openGone) router.replace(stmHref(dataset, filter), { scroll: false });
    void queryClient.invalidateQueries({ queryKey: trpc.stm.scopes.pathKey() });
    // a deleted key's entry would only answer "not found" while the page closes it
    void queryClient.invalidateQueries({ queryKey: trpc.stm.entry.pathKey(), refetchType: openGone ? "none" : "active" });
  }

  return (
    <main>
      <PageHead title="Short-term memory">
        What the chat apps keep of their recent turns: per user and per channel, the last messages, a summary and categories, and
        every version of them.
      </PageHead>
      <DatasetSwitcher />
      <section className="card" aria-labelledby="find-title">
        <h2 id="find-title">Find keys</h2>
        <FilterForm key={JSON.stringify(filter)} filter={filter} onFind={(f) => {
            setDone(null);
            router.push(stmHref(dataset, f));
          }} />
      </section>
      {done && (
        <p className="note ok" role="status" data-testid="stm-done">
          {done}
        </p>
      )}
      {list.error && <ErrorNote error={list.error} action="list the keys" />}
      {nothingYet ? (
        <section className="card">
          <Empty>
            No short-term memory in <code>{dataset}</code> yet: chat apps write it with <code>stm.capture</code> (each turn&apos;s
            messages) and <code>stm.upgrade</code> or the <code>update_short_term_memory</code> tool (a summary and categories).
          </Empty>
        </section>
      ) : (
        <div className={styles.layout}>
          <section className={`card ${styles.side}`} aria-labelledby="keys-title">
            <h2 id="keys-title">Keys{list.isSuccess && ` (${items.length}${list.hasNextPage ? "+" : ""})`}</h2>
            {list.isPending && <Loading />}
            {list.isSuccess && items.length === 0 && <Empty>No key matches this filter.</Empty>}
            <ScopeList dataset={dataset} filter={filter} items={items} selected={key} />
            {list.hasNextPage && (
              <button type="button" className="button small load-more" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
                {list.isFetchingNextPage ? "Loading…" : "Load more"}
              </button>
            )}
          </section>
          <div className={styles.detail}>
            {key ? (
              <ScopeDetail key={`${dataset}:${key}`} dataset={dataset} scopeKey={key} onCleared={cleared} />
            ) : (
              items.length > 0 && (
                <section className="card">
                  <Empty>Choose a key to see its messages, its summary and categories, and their history.</Empty>
                </section>
              )
            )}
          </div>
        </div>
      )}
    </main>
  );
}
