import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "@/trpc/client";
import { SiteHeader } from "./_components/site-header";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "gligabao", template: "%s · gligabao" },
  description: "Memory for LLM applications and teams",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>
          <SiteHeader />
          {children}
        </Providers>
      </body>
    </html>
  );
}
