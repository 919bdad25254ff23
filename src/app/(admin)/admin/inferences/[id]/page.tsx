import type { Metadata } from "next";
import { InferenceView } from "./client";

export const metadata: Metadata = { title: "Inference" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <InferenceView id={id} />;
}
