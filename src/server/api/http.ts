import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { App } from "../app";
import { callerFromRequest } from "../auth/request";
import { MAX_BATCH_CALLS } from "../../lib/limits";
import { logError, retryAfterMsOf } from "../errors";
import { asOneCall, stoppingError } from "../requests";
import { INTERNAL_MESSAGE } from "./errors";
import { appRouter } from "./root";
import { type Context, createInnerContext } from "./trpc";

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

/**
 * An HTTP request's context: who sent it (auth/request.ts), and whether another site's page did.
 * `admitted` false: the process is stopping (requests.ts), and the call is refused with 503.
 */
export async function requestContext(req: Request, app: App, admitted = true): Promise<Context> {
  if (!admitted) {
    const cause = stoppingError();
    throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: cause.message, cause });
  }
  return createInnerContext({ app, caller: await callerFromRequest(app, req.headers), crossSite: isCrossSite(req.headers, app.env.GB_PUBLIC_URL) });
}

/**
 * Logs a failure that came before any procedure, e.g. the database failing while the caller is
 * looked up: toTRPCError logged the procedures' own (and said INTERNAL_MESSAGE).
 */
export function logUnhandled(error: TRPCError, what: string): void {
  if (error.code === "INTERNAL_SERVER_ERROR" && error.message !== INTERNAL_MESSAGE) logError(`${what} failed`, error.cause ?? error);
}

/** TOO_MANY_REQUESTS and SERVICE_UNAVAILABLE also say when to come back, in the standard header: its value, or null. */
export function retryAfter(errors: readonly TRPCError[]): string | null {
  const wait = errors.map((e) => retryAfterMsOf(e.cause) ?? 0).reduce((a, b) => Math.max(a, b), 0);
  return wait > 0 ? String(Math.ceil(wait / 1000)) : null;
}

/**
 * The tRPC route handler, over a given App: the Next route and the tests both use it. The call
 * counts as in flight until it has answered; while the process stops, it is refused (requests.ts).
 */
export function handleTrpc(req: Request, app: App): Promise<Response> {
  return asOneCall(app.requests, (admitted) => answerTrpc(req, app, admitted));
}

function answerTrpc(req: Request, app: App, admitted: boolean): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    maxBatchSize: MAX_BATCH_CALLS,
    createContext: () => requestContext(req, app, admitted),
    onError: ({ error, path }) => logUnhandled(error, `tRPC ${path ?? "(request)"}`),
    responseMeta({ errors }) {
      const wait = retryAfter(errors);
      return wait ? { headers: new Headers({ "retry-after": wait }) } : {};
    },
  });
}
