import type { Metadata } from "next";
import { Suspense } from "react";
import { Loading } from "@/app/_components/status";
import { RunsView } from "../../_components/runs/runs-view";

export const metadata: Metadata = { title: "Remember runs" };

export default function Page() {
  return (
    <Suspense fallback={<main><Loading /></main>}>
      <RunsView kind="remember" />
    </Suspense>
  );
}
