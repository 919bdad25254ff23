"use client";

import { useSearchParams } from "next/navigation";
import { useDataset } from "../../_components/dataset";

/** The graph explorer's URL: ?dataset=…&entity=<id>&fact=<id> (a shared link opens the same entity, the fact highlighted). */
export function useGraphParams() {
  const params = useSearchParams();
  const dataset = useDataset();
  return { dataset, entity: params.get("entity"), fact: params.get("fact") };
}
