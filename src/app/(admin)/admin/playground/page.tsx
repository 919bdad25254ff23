import type { Metadata } from "next";
import { Suspense } from "react";
import { Loading } from "@/app/_components/status";
import { PlaygroundView } from "./client";

export const metadata: Metadata = { title: "Playground" };

export default function Page() {
  // the view reads its dataset from the URL (useSearchParams)
  return (
    <Suspense fallback={<main><Loading /></main>}>
      <PlaygroundView />
    </Suspense>
  );
}
