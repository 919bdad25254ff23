"use client";

import { useSearchParams } from "next/navigation";
import { stmStateFromParams } from "@/lib/stm-view";
import { useDataset } from "../../_components/dataset";

/** The STM page's URL: ?dataset=…&user=…&server=…&channel=…&key=<scope key> (a shared link opens the same key). */
export function useStmParams() {
  const params = useSearchParams();
  const dataset = useDataset();
  return { dataset, ...stmStateFromParams(params) };
}
