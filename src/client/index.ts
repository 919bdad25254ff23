import { createTRPCClient, httpBatchStreamLink } from "@trpc/client";
import superjson from "superjson";
import { MAX_BATCH_CALLS } from "../lib/limits";
import type { AppRouter } from "../server/api/root";

export type { AppRouter } from "../server/api/root";

export interface ClientOptions {
  /** the app's base URL, e.g. http://localhost:3000 */
  url: string;
  /** sent as `Authorization: Bearer <apiKey>` */
  apiKey?: string;
  /** a fetch of your own (proxies, tests); the global one by default */
  fetch?: typeof fetch;
}

/**
 * A typed client for the whole API, for other TypeScript apps:
 *
 *   const gb = createClient({ url: "http://localhost:3000", apiKey });
 *   await gb.datasets.create.mutate({ name: "notes" });
 *
 * Stream batching, so that a slow call never holds up the fast ones batched with it.
 */
export function createClient(options: ClientOptions) {
  const base = options.url.replace(/\/+$/, "");
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchStreamLink({
        url: `${base}/api/trpc`,
        transformer: superjson,
        maxItems: MAX_BATCH_CALLS,
        fetch: options.fetch,
        headers: () => (options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      }),
    ],
  });
}

export type Client = ReturnType<typeof createClient>;
