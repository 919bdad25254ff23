import { initTRPC, type TRPCError } from "@trpc/server";
import superjson from "superjson";
import type { OpenApiMeta } from "trpc-to-openapi";
import { ZodError, z } from "zod";
import { MAX_BATCH_CALLS } from "../../lib/limits";
import { type Role, roleAtLeast } from "../../lib/roles";
import type { App } from "../app";
import type { Caller } from "../auth/caller";
import type { Db } from "../db/client";
import { errorKind, ForbiddenError, retryAfterMsOf, UnauthorizedError } from "../errors";
import { INTERNAL_MESSAGE, isAuthError, toTRPCError } from "./errors";

/**
 * The inner context is what tests build and pass to createCaller; the outer one (http.ts) adds
 * what comes from the request. Procedures use ctx.db, never a module singleton.
 */
export interface Context {
  app: App;
  db: Db;
  /** who is calling (auth/request.ts); null = nobody. Procedures past `authed` see it non-null. */
  caller: Caller | null;
  /** the request came from another site's page (http.ts): a signed-in person's cookie may not write */
  crossSite: boolean;
}

export function createInnerContext({ app, caller, crossSite = false }: { app: App; caller: Caller | null; crossSite?: boolean }): Context {
  return { app, db: app.database.db, caller, crossSite };
}

/** The input's zod error, also from another bundled copy of zod (where instanceof fails). */
function zodErrorOf(error: TRPCError): ZodError | null {
  const cause = error.cause;
  if (cause instanceof ZodError) return cause;
  return cause instanceof Error && cause.name === "ZodError" && Array.isArray((cause as Partial<ZodError>).issues) ? (cause as ZodError) : null;
}

function fieldOf(error: TRPCError, zod: ZodError | null): string | null {
  const cause = error.cause;
  if (zod) return zod.issues[0]?.path.join(".") || null;
  if (cause && "field" in cause && typeof cause.field === "string") return cause.field;
  return null;
}

/**
 * The message of a request tRPC could not read. tRPC answers BAD_REQUEST with the parser's own
 * words ("Maximum call stack size exceeded" for JSON nested too deeply, superjson's TypeErrors
 * for a forged `meta`), which say nothing useful and show our internals: say what was wrong.
 * Such an error's cause is a bare Error: not zod's, not ours (branded), not better-auth's.
 */
function unreadableInput(error: TRPCError): string | null {
  const cause = error.cause;
  if (error.code !== "BAD_REQUEST" || !(cause instanceof Error) || cause.name === "ZodError" || errorKind(cause) || isAuthError(cause)) return null;
  if (cause instanceof SyntaxError) return "input: is not valid JSON";
  if (cause instanceof RangeError) return "input: is nested too deeply";
  return "input: is not a superjson envelope ({ json, meta? }) this API can read";
}

/** What a client is told. */
function messageOf(error: TRPCError, zod: ZodError | null, fallback: string): string {
  // a readable first problem instead of the zod issue list as JSON
  if (zod) return zod.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
  // also a failure before any middleware (createContext), which toTRPCError never saw
  if (error.code === "INTERNAL_SERVER_ERROR") return INTERNAL_MESSAGE;
  if (error.message === "Batch call exceeds maximum size") return `a batch may hold at most ${MAX_BATCH_CALLS} calls`;
  return unreadableInput(error) ?? fallback;
}

/** What a client is told of a failed call, over tRPC and REST (openapi.ts) alike: a readable message and the input field at fault. */
export function clientError(error: TRPCError): { message: string; field: string | null; zod: ZodError | null } {
  const zod = zodErrorOf(error);
  return { message: messageOf(error, zod, error.message), field: fieldOf(error, zod), zod };
}

// meta: a procedure's REST path under /api/v1, when it has one (openapi.ts)
const t = initTRPC.context<Context>().meta<OpenApiMeta>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const { message, field, zod } = clientError(error);
    return {
      ...shape,
      message,
      data: {
        ...shape.data,
        field,
        zodError: zod ? z.flattenError(zod) : null,
        /** TOO_MANY_REQUESTS, and SERVICE_UNAVAILABLE from a stopping server: when to try again */
        retryAfterMs: retryAfterMsOf(error.cause),
      },
    };
  },
});

/** Domain errors become their tRPC codes; anything unexpected is logged and hidden. */
const mapErrors = t.middleware(async ({ next, path }) => {
  const result = await next();
  if (!result.ok) throw toTRPCError(result.error, path);
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
/** Only for what anyone may see (system.health); everything else starts from `authed`. */
export const publicProcedure = t.procedure.use(mapErrors);

/**
 * The one access check: no caller → UNAUTHORIZED, and past it ctx.caller is non-null, so a
 * procedure cannot reach a verb (which all take a Caller or Scope) without it. Datasets are then
 * found within the caller's team (another team's dataset is NOT_FOUND). A mutation by a signed-in
 * person (cookie) from another site's page is FORBIDDEN: keys are sent on purpose, cookies not.
 */
export const authed = publicProcedure.use(({ ctx, next, type }) => {
  if (!ctx.caller) throw new UnauthorizedError();
  // a session cookie rides along on any site's request to us: only our own pages may write with it
  if (type === "mutation" && ctx.crossSite && ctx.caller.kind === "user") {
    throw new ForbiddenError("a signed-in session can only write from this app's own pages (the request's Origin is another site)");
  }
  return next({ ctx: { caller: ctx.caller } });
});

const atLeast = (role: Role, what: string) =>
  authed.use(({ ctx, next }) => {
    if (!roleAtLeast(ctx.caller.role, role)) throw new ForbiddenError(`${what} needs the role ${role} or above; this caller is a ${ctx.caller.role}`);
    return next();
  });

/** Reads: any role, viewer and up. */
export const readProcedure = authed;
/** Writes to memory (remember, datasets): member and up; a viewer gets FORBIDDEN. */
export const writeProcedure = atLeast("member", "writing");
/** Team administration (keys, members, audit, purge, dataset deletion): admin and up. */
export const adminProcedure = atLeast("admin", "this");
