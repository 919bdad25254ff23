import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { App } from "../app";
import { callerFromRequest } from "../auth/request";
import { MAX_BATCH_CALLS } from "../../lib/limits";
import { isRateLimited, logError } from "../errors";
import { INTERNAL_MESSAGE } from "./errors";
import { appRouter } from "./root";
import { createInnerContext } from "./trpc";

export const TRPC_ENDPOINT = "/api/trpc";

/**
 * Did a page of another site send this request? The browser says so in Sec-Fetch-Site, and in
 * Origin: an origin whose host is neither the one the request was sent to nor GB_PUBLIC_URL's is
 * another site ("null" too: a sandboxed frame or a file). No Origin: not a browser's cross-site
 * write (browsers send Origin with every POST).
 */
export function isCrossSite(headers: Headers, publicUrl: string | undefined): boolean {
  const site = headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") return true;
  const origin = headers.get("origin");
  if (origin === null) return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true;
  }
  if (!host) return true;
  const own = [headers.get("host"), publicUrl ? new URL(publicUrl).host : null];
  return !own.some((h) => h !== null && h.toLowerCase() === host.toLowerCase());
}

/** The tRPC route handler, over a given App: the Next route and the tests both use it. */
export function handleTrpc(req: Request, app: App): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    maxBatchSize: MAX_BATCH_CALLS,
    createContext: async () =>
      createInnerContext({ app, caller: await callerFromRequest(app, req.headers), crossSite: isCrossSite(req.headers, app.env.GB_PUBLIC_URL) }),
    onError({ error, path }) {
      // toTRPCError logged the failures of procedures (and said INTERNAL_MESSAGE); this is one
      // that came before them, e.g. the database failing while the caller is looked up
      if (error.code === "INTERNAL_SERVER_ERROR" && error.message !== INTERNAL_MESSAGE) logError(`tRPC ${path ?? "(request)"} failed`, error.cause ?? error);
    },
    responseMeta({ errors }) {
      // TOO_MANY_REQUESTS also says when to come back, in the standard header
      const wait = errors.map((e) => (isRateLimited(e.cause) ? e.cause.retryAfterMs : 0)).reduce((a, b) => Math.max(a, b), 0);
      return wait > 0 ? { headers: new Headers({ "retry-after": String(Math.ceil(wait / 1000)) }) } : {};
    },
  });
}
