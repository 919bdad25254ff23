import type { Metadata } from "next";
import { Suspense } from "react";
import { Loading } from "@/app/_components/status";
import { StmView } from "./client";

export const metadata: Metadata = { title: "Short-term memory" };

export default function Page() {
  // the view reads its dataset, filter and open key from the URL (useSearchParams)
  return (
    <Suspense fallback={<main><Loading /></main>}>
      <StmView />
    </Suspense>
  );
}
