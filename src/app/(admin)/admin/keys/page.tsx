import type { Metadata } from "next";
import { KeysView } from "./client";

export const metadata: Metadata = { title: "API keys" };

export default function Page() {
  return <KeysView />;
}
