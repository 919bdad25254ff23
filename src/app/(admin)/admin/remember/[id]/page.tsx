import type { Metadata } from "next";
import { Suspense } from "react";
import { Loading } from "@/app/_components/status";
import { RunView } from "../../../_components/runs/run-view";

export const metadata: Metadata = { title: "Remember run" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<main><Loading /></main>}>
      <RunView kind="remember" id={id} />
    </Suspense>
  );
}
