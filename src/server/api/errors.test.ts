import { TRPCError } from "@trpc/server";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../app";
import { describeEachDriver, openTestDatabase, testEnv } from "../../test/db";
import { describeError, errorKind, NotFoundError, RateLimitedError } from "../errors";
import { ModelError } from "../models/types";
import { toHttpError, toTRPCError } from "./errors";
import { handleTrpc } from "./http";

/*
 * The built app bundles server code twice, so an error may come from another copy of our
 * classes. `vi.resetModules()` and a fresh import give such a copy here: the mapping must
 * recognise its errors by their brand.
 */
async function otherCopy() {
  vi.resetModules();
  const errors = await import("../errors");
  const models = await import("../models/types");
  return { errors, models };
}

const internal = (cause: unknown) => new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: cause as Error });

afterEach(() => vi.restoreAllMocks());

describe("errors from another bundled copy of our classes", () => {
  it("is another class, with the same brand", async () => {
    const { errors } = await otherCopy();
    const e = new errors.RateLimitedError(1500, "query");
    expect(e instanceof RateLimitedError).toBe(false);
    expect(errorKind(e)).toBe("rate_limited");
  });

  it("maps every kind to its tRPC code and HTTP status", async () => {
    const { errors, models } = await otherCopy();
    const cases: [Error, string, number][] = [
      [new errors.NotFoundError("dataset", "x"), "NOT_FOUND", 404],
      [new errors.ConflictError("taken"), "CONFLICT", 409],
      [new errors.ValidationError("cursor", "bad"), "BAD_REQUEST", 400],
      [new errors.PayloadTooLargeError("text", "too big"), "PAYLOAD_TOO_LARGE", 413],
      [new errors.UnauthorizedError(), "UNAUTHORIZED", 401],
      [new errors.ForbiddenError("no"), "FORBIDDEN", 403],
      [new errors.RateLimitedError(1500, "query"), "TOO_MANY_REQUESTS", 429],
      [new models.ModelError("model m call failed with HTTP 500", { model: "m", request: null }), "BAD_GATEWAY", 502],
    ];
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    for (const [e, code, status] of cases) {
      const mapped = toTRPCError(internal(e), "some.path");
      expect(mapped.code).toBe(code);
      expect(mapped.message).toBe(e.message);
      expect(toHttpError(e).status).toBe(status);
    }
    expect(toHttpError(new errors.RateLimitedError(1500, "query")).retryAfterMs).toBe(1500);
    // refused calls log nothing
    expect(log).not.toHaveBeenCalled();
  });

  it("keeps this copy's classes working too", () => {
    expect(toTRPCError(internal(new NotFoundError("run", "r")), "p").code).toBe("NOT_FOUND");
    expect(toTRPCError(internal(new ModelError("down", { model: "m", request: null })), "p").code).toBe("BAD_GATEWAY");
  });
});

describe("unexpected errors", () => {
  it("are answered without their message and logged once, with the stack", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const mapped = toTRPCError(internal(new TypeError("x is undefined")), "runs.remember.list");
    expect(mapped).toMatchObject({ code: "INTERNAL_SERVER_ERROR", message: "internal error" });
    expect(log).toHaveBeenCalledTimes(1);
    const line = String(log.mock.calls[0]?.[0]);
    expect(line).toContain("tRPC runs.remember.list failed: TypeError: x is undefined");
    expect(line).toMatch(/\n\s+at /);
  });
});

describe("a failure before any procedure (the database gone while the caller is looked up)", () => {
  it("is answered 500 'internal error', not with its message, and logged once", async () => {
    const key = "gb_errors_test_key_0000000000000000";
    const app = await createApp({ env: testEnv({ GB_BOOTSTRAP_API_KEY: key }), database: await openTestDatabase("pglite"), worker: false });
    // the database alone: a stopped app refuses calls with 503 before any lookup (requests.test.ts).
    // The maintenance loop, still running, may log its own failure on the closed database.
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await app.database.close();
    const res = await handleTrpc(new Request("http://localhost/api/trpc/datasets.list", { headers: { authorization: `Bearer ${key}` } }), app);
    await app.stop();
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { json: { message: string } } };
    expect(body.error.json.message).toBe("internal error");
    const said = log.mock.calls.map((c) => String(c[0])).filter((m) => !m.startsWith("analyzing the tables failed"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^tRPC datasets.list failed: /);
  });
});

describeEachDriver("a failed query in the logs", (ctx) => {
  it("shows the SQL and the database's own message, never a parameter value", async () => {
    const secret = `the user's private text ${crypto.randomUUID()}`;
    const failure = await ctx()
      .app.database.db.execute(sql`SELECT ${secret}::text AS t, 1 / (SELECT 0) AS boom`)
      .then(() => null, (e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).toContain(secret); // drizzle's own message has it

    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    toTRPCError(internal(failure), "query.ask");
    expect(toHttpError(failure).status).toBe(500);
    const logged = log.mock.calls.map((c) => c.map(String).join(" ")).join("\n");
    expect(logged).toContain("division by zero");
    expect(logged).toContain("SELECT $1::text AS t");
    expect(logged).toContain("code: 22012");
    expect(logged).not.toContain(secret);
    expect(describeError(failure)).not.toContain(secret);
  });
});
