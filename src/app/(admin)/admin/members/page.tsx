import type { Metadata } from "next";
import { MembersView } from "./client";

export const metadata: Metadata = { title: "Members" };

export default function Page() {
  return <MembersView />;
}
