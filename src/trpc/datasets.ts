"use client";

import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "./types";
import { useTRPC, useTRPCClient } from "./client";

type Dataset = RouterOutputs["datasets"]["list"]["items"][number];

/** The largest page datasets.list gives. */
const PAGE = 500;

/**
 * Every dataset of the team, for the pickers (a select must offer all of them): datasets.list
 * paged through at its largest page. A team has at most GB_MAX_DATASETS_PER_TEAM (1000 by
 * default), so that is a couple of requests at most.
 */
export function useAllDatasets() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery({
    // under datasets.list's own key, so invalidating datasets.list refreshes this too
    queryKey: [...trpc.datasets.list.pathKey(), { type: "query", all: true }],
    queryFn: async ({ signal }) => {
      const all: Dataset[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.datasets.list.query({ cursor, limit: PAGE }, { signal });
        all.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return all;
    },
  });
}
