import type { Metadata } from "next";
import { Suspense } from "react";
import { Loading } from "@/app/_components/status";
import { GraphView } from "./client";

export const metadata: Metadata = { title: "Graph" };

export default function Page() {
  // the view reads its dataset and entity from the URL (useSearchParams)
  return (
    <Suspense fallback={<main><Loading /></main>}>
      <GraphView />
    </Suspense>
  );
}
