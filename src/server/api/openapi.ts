import { TRPCError } from "@trpc/server";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import type { z } from "zod";
import type { App } from "../app";
import { logUnhandled, requestContext, retryAfter } from "./http";
import type { RestError } from "./openapi-document";
import { asOneCall } from "../requests";
import { appRouter } from "./root";
import { clientError } from "./trpc";

export { openApiDocument } from "./openapi-document";

/*
 * The REST API: the procedures with a `meta.openapi` path (routers/*.ts), as plain JSON under
 * /api/v1, served by trpc-to-openapi through the same router, context and error mapping as tRPC.
 * Quirks of the library, handled here or in the schemas:
 * - its error body ({ message: "Input validation failed", code, issues, data … }) is replaced by
 *   RestError, made from the error itself as tRPC's errorFormatter makes its message and field;
 * - it turns on zod's coercion (Number(x), Boolean(x)) of the number and boolean fields of every
 *   input it serves, in place, on each request; those schemas are tRPC's too, so coercion.ts
 *   settles it once when the router is made (the query-string routes coerce at both doors, the
 *   others at neither) and drops the library's writes. Booleans are input.ts's Flag, which it
 *   leaves alone;
 * - it reads the input of a GET or DELETE from the query string only, never a body.
 */

export const REST_ENDPOINT = "/api/v1";

type RestErrorBody = z.infer<typeof RestError>;

/**
 * The body of a failed call: tRPC's code, message and field (clientError), but for the failures
 * the library finds before any procedure is called, which it says in its own words.
 */
function restError(error: TRPCError, req: Request, procedure: string | undefined): RestErrorBody {
  // as tRPC says of JSON it cannot read
  if (error.code === "PARSE_ERROR") return { code: "BAD_REQUEST", message: "body: is not valid JSON" };
  if (error.code === "UNSUPPORTED_MEDIA_TYPE") return { code: error.code, message: "the body must be JSON, sent with Content-Type: application/json" };
  if (error.code === "NOT_FOUND" && procedure === undefined) {
    return { code: error.code, message: `no such operation: ${req.method} ${new URL(req.url).pathname} (the API is described at /api/openapi.json)` };
  }
  const { message, field } = clientError(error);
  return field ? { code: error.code, message, field } : { code: error.code, message };
}

/** What one request carries to the shared handler's hooks (the handler is made once, not per request). */
interface RestCall {
  request: Request;
  app: App;
  /** false: the process is stopping, and the call is refused (requests.ts) */
  admitted: boolean;
  failure?: { error: TRPCError; procedure: string | undefined };
}
const CALL = Symbol("gligabao.restCall");
type Carrier = { [CALL]: RestCall };
const callOf = (req: unknown): RestCall => (req as Carrier)[CALL];

let shared: ReturnType<typeof createOpenApiNodeHttpHandler> | null = null;

/**
 * The library's handler, made once per process. Its own fetch adapter (createOpenApiFetchHandler)
 * makes one per request, and making one walks the router (and, outside production, generates the
 * whole OpenAPI document to check it): 10 ms a request, measured by `npm run bench` (doors).
 */
function restHandler(): ReturnType<typeof createOpenApiNodeHttpHandler> {
  shared ??= createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req }) => {
      const call = callOf(req);
      return requestContext(call.request, call.app, call.admitted);
    },
    onError({ error, path, req }) {
      callOf(req).failure = { error, procedure: path };
      logUnhandled(error, `REST ${path ?? callOf(req).request.method}`);
    },
    responseMeta({ errors }) {
      // a plain object: the library copies the headers with Object.entries
      const wait = retryAfter(errors);
      return wait ? { headers: { "retry-after": wait } } : {};
    },
  });
  return shared;
}

/** The body as the library reads it from a fetch Request: parsed JSON, or the failure to parse it. */
async function bodyOf(req: Request): Promise<{ ok: true; data: unknown } | { ok: false; cause: unknown }> {
  try {
    if (req.headers.get("content-type")?.includes("application/json")) return { ok: true, data: JSON.parse(await req.text()) as unknown };
    return { ok: true, data: req.body };
  } catch (cause) {
    return { ok: false, cause };
  }
}

/**
 * The REST route handler, over a given App: the Next route and the tests both use it. The call
 * counts as in flight until it has answered; while the process stops, it is refused (requests.ts).
 */
export function handleRestV1(req: Request, app: App): Promise<Response> {
  return asOneCall(app.requests, (admitted) => answerRest(req, app, admitted));
}

async function answerRest(req: Request, app: App, admitted: boolean): Promise<Response> {
  const call: RestCall = { request: req, app, admitted };
  const url = req.url.replace(REST_ENDPOINT, "");
  const body = await bodyOf(req);
  // the request as the library's node handler takes a fetch one (as its fetch adapter does): the
  // URL without the endpoint, the body read; and this call's state for the hooks above
  const proxied = new Proxy(req, {
    get(target, prop) {
      if (prop === "url") return url;
      if (prop === CALL) return call;
      if (prop === "body") {
        if (!body.ok) throw new TRPCError({ code: "PARSE_ERROR", message: "Failed to parse request body", cause: body.cause });
        return body.data;
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const res = await new Promise<Response>((resolve) => {
    const headers = new Headers();
    const out = {
      statusCode: 200,
      setHeader(key: string, value: string | string[]) {
        if (typeof value === "string") headers.set(key, value);
        else for (const v of value) headers.append(key, v);
      },
      end(text: string) {
        resolve(new Response(text, { status: out.statusCode, headers }));
      },
    };
    void restHandler()(proxied as never, out as never);
  });
  // onError saw every failure (the library calls it before it answers)
  if (res.ok || !call.failure) return res;
  return Response.json(restError(call.failure.error, req, call.failure.procedure), { status: res.status, headers: res.headers });
}
