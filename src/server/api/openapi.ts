import type { TRPCError } from "@trpc/server";
import { createOpenApiFetchHandler } from "trpc-to-openapi";
import type { z } from "zod";
import type { App } from "../app";
import { logUnhandled, requestContext, retryAfter } from "./http";
import type { RestError } from "./openapi-document";
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
 *   input it serves, in place, so tRPC's calls coerce them too from then on: numbers read from a
 *   query string as they should; booleans are input.ts's Flag, which it leaves alone;
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

/** The REST route handler, over a given App: the Next route and the tests both use it. */
export async function handleRestV1(req: Request, app: App): Promise<Response> {
  let failure: { error: TRPCError; procedure: string | undefined } | undefined;
  const res = await createOpenApiFetchHandler({
    endpoint: REST_ENDPOINT,
    req,
    router: appRouter,
    createContext: () => requestContext(req, app),
    onError({ error, path }) {
      failure = { error, procedure: path };
      logUnhandled(error, `REST ${path ?? req.method}`);
    },
    responseMeta({ errors }) {
      // a plain object: the library copies the headers with Object.entries
      const wait = retryAfter(errors);
      return wait ? { headers: { "retry-after": wait } } : {};
    },
  });
  // onError saw every failure (the library calls it before it answers)
  if (res.ok || !failure) return res;
  return Response.json(restError(failure.error, req, failure.procedure), { status: res.status, headers: res.headers });
}
