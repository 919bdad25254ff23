import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { App } from "../app";
import { appRouter } from "./root";
import { createInnerContext } from "./trpc";

export const TRPC_ENDPOINT = "/api/trpc";

/** The tRPC route handler, over a given App: the Next route and the tests both use it. */
export function handleTrpc(req: Request, app: App): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    createContext: () => createInnerContext({ app }),
  });
}
