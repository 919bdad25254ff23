"use client";

import { useSearchParams } from "next/navigation";
import { useDataset } from "../../_components/dataset";

/**
 * The graph explorer's URL: ?dataset=…&entity=<id>&fact=<id> (a shared link opens the same
 * entity, the fact highlighted); ?view=series&series=<key> for the series view.
 */
export function useGraphParams() {
  const params = useSearchParams();
  const dataset = useDataset();
  const view: "entities" | "series" = params.get("view") === "series" ? "series" : "entities";
  return { dataset, entity: params.get("entity"), fact: params.get("fact"), view, series: params.get("series") };
}

/** The series view of a dataset, on a series when given its key. */
export function seriesHref(dataset: string, key?: string | null): string {
  const params = new URLSearchParams({ dataset, view: "series" });
  if (key) params.set("series", key);
  return `/admin/graph?${params.toString()}`;
}
