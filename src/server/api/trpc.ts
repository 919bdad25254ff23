import { initTRPC, type TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError, z } from "zod";
import type { App } from "../app";
import type { Db } from "../db/client";
import { toTRPCError } from "./errors";

/**
 * The inner context is what tests build and pass to createCaller; the outer one (http.ts) adds
 * what comes from the request. Procedures use ctx.db, never a module singleton.
 */
export interface Context {
  app: App;
  db: Db;
  /** the caller's user id, once accounts exist (#5); null = anonymous */
  userId: string | null;
}

export function createInnerContext({ app, userId = null }: { app: App; userId?: string | null }): Context {
  return { app, db: app.database.db, userId };
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
      data: { ...shape.data, field: fieldOf(error), zodError: zod ? z.flattenError(zod) : null },
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
export const publicProcedure = t.procedure.use(mapErrors);
