import { initTRPC, type TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError, z } from "zod";
import { type Role, roleAtLeast } from "../../lib/roles";
import type { App } from "../app";
import type { Caller } from "../auth/caller";
import type { Db } from "../db/client";
import { ForbiddenError, RateLimitedError, UnauthorizedError } from "../errors";
import { toTRPCError } from "./errors";

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

function fieldOf(error: TRPCError): string | null {
  const cause = error.cause;
  if (cause instanceof ZodError) return cause.issues[0]?.path.join(".") || null;
  if (cause && "field" in cause && typeof cause.field === "string") return cause.field;
  return null;
}

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const zod = error.cause instanceof ZodError ? error.cause : null;
    return {
      ...shape,
      // A readable first problem instead of the zod issue list as JSON.
      message: zod
        ? zod.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ")
        : shape.message,
      data: {
        ...shape.data,
        field: fieldOf(error),
        zodError: zod ? z.flattenError(zod) : null,
        /** TOO_MANY_REQUESTS: when to try again */
        retryAfterMs: error.cause instanceof RateLimitedError ? error.cause.retryAfterMs : null,
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
