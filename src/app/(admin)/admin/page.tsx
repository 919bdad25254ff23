import type { Metadata } from "next";
import { AdminHome } from "./client";

export const metadata: Metadata = { title: "Admin" };

export default function Page() {
  return <AdminHome />;
}
