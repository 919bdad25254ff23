"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Empty, ErrorNote, Loading } from "@/app/_components/status";
import { useTRPC, useTRPCClient } from "@/trpc/client";
import { PageHead } from "../../_components/page-head";
import { AuditTable } from "./_components/audit-table";

const PAGE = 50;

/** /admin/audit: the team's events, newest first, a page at a time. */
export function AuditView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  // Not trpc.audit.list.infiniteQueryOptions: it adds `direction` to the input, which the
  // server's strict AuditListInput refuses. The key is the same, so invalidating audit still works.
  const audit = useInfiniteQuery({
    queryKey: trpc.audit.list.infiniteQueryKey({ limit: PAGE }),
    queryFn: ({ pageParam }) => client.audit.list.query({ limit: PAGE, cursor: pageParam ?? undefined }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const items = audit.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <main>
      <PageHead title="Audit log">Every change to the team&apos;s keys and members, and every sign-in, newest first.</PageHead>
      {audit.isPending && <Loading />}
      {audit.error && <ErrorNote error={audit.error} action="see the audit log" />}
      {audit.isSuccess && (
        <section className="card" aria-label="events">
          {items.length === 0 ? <Empty>Nothing recorded yet. Creating a key or adding a member shows up here.</Empty> : <AuditTable items={items} />}
          {audit.hasNextPage && (
            <button type="button" className="button load-more" onClick={() => void audit.fetchNextPage()} disabled={audit.isFetchingNextPage}>
              {audit.isFetchingNextPage ? "Loading…" : "Load more"}
            </button>
          )}
        </section>
      )}
    </main>
  );
}
