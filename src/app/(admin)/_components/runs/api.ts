"use client";

import type { RunKind } from "@/lib/stages";
import { useTRPC } from "@/trpc/client";
import type { RouterOutputs } from "@/trpc/types";

/**
 * The procedures of one run log. Both logs answer the same shapes (remember has `changes` on
 * top), so the views are written once against the query log's type.
 */
export function useRunsApi(kind: RunKind) {
  const trpc = useTRPC();
  const api: typeof trpc.runs.query = kind === "remember" ? trpc.runs.remember : trpc.runs.query;
  return api;
}

export type RunDetail = RouterOutputs["runs"]["query"]["get"];
export type RunSummary = RouterOutputs["runs"]["query"]["list"]["items"][number];
export type RunTimeline = RouterOutputs["runs"]["query"]["timeline"];
export type StageView = RunDetail["stages"][number];

export const KindTitle: Record<RunKind, { one: string; many: string }> = {
  remember: { one: "Remember run", many: "Remember runs" },
  query: { one: "Query run", many: "Query runs" },
};
