"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchStreamLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { type ReactNode, useState } from "react";
import superjson from "superjson";
import { MAX_BATCH_CALLS } from "@/lib/limits";
import type { AppRouter } from "@/server/api/root";
import { shouldRetry } from "./errors";

/** The pages' tRPC: TanStack Query options from `useTRPC()`, e.g. `trpc.runs.query.list.queryOptions(…)`. */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: shouldRetry } } }));
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      // Stream batching: a slow call never holds up the fast ones batched with it.
      links: [httpBatchStreamLink({ url: "/api/trpc", transformer: superjson, maxItems: MAX_BATCH_CALLS })],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
