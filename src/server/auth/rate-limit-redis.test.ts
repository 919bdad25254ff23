import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import { callerFor, rejection } from "../../test/callers";
import { describeEachDriver, testEnv } from "../../test/db";
import { DOWN_REDIS_URL, describeWithRedis } from "../../test/redis";
import { type App, createApp } from "../app";
import { type Caller, LOCAL_CALLER } from "./caller";
import { CLIENT_ADDRESS_HEADER } from "./client-address";

/*
 * The limits counted in Redis (GB_REDIS_URL): two Apps on one database and one Redis stand for
 * two processes behind a load balancer, and count together. With Redis down a limited call fails
 * (SERVICE_UNAVAILABLE, 503 for better-auth's endpoints) rather than going through uncounted.
 */

const BASE = "http://localhost:3000";
const keyCaller = (): Caller => ({ ...LOCAL_CALLER, kind: "key", id: randomUUID(), label: "test key" });
const ask = (app: App, caller: Caller) => callerFor(app, caller).query.ask({ dataset: "default", question: "Who?" });

/** A failed sign-in from `address` (an unknown account), through better-auth's handler. */
async function signIn(app: App, address: string): Promise<{ status: number; message: string | null }> {
  const res = await app.auth.handler(
    new Request(`${BASE}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE, [CLIENT_ADDRESS_HEADER]: address },
      body: JSON.stringify({ email: "nobody@example.com", password: "wrong password" }),
    }),
  );
  const body = (await res.json().catch(() => null)) as { message?: string } | null;
  return { status: res.status, message: body?.message ?? null };
}

describeWithRedis("limits counted in Redis", ({ url, prefix }) => {
  const env = () => ({ GB_REDIS_URL: url, GB_REDIS_PREFIX: prefix, GB_RATE_LIMIT_QUERY: "2" });
  describeEachDriver(
    "two processes",
    (ctx) => {
      it("a key's calls count across processes: the third query.ask, in either, is TOO_MANY_REQUESTS", async () => {
        const other = await createApp({ env: testEnv(env()), database: ctx().app.database, worker: false });
        try {
          const key = keyCaller();
          await ask(ctx().app, key);
          await ask(other, key);
          expect((await rejection(ask(ctx().app, key))).code).toBe("TOO_MANY_REQUESTS");
          expect((await rejection(ask(other, key))).code).toBe("TOO_MANY_REQUESTS");
          // another key has its own budget
          await ask(other, keyCaller());
        } finally {
          await other.stop();
        }
      });

      it("the sign-in limit (10 a minute per address) counts across processes", async () => {
        const other = await createApp({ env: testEnv(env()), database: ctx().app.database, worker: false });
        try {
          const address = `10.8.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
          const statuses: number[] = [];
          for (let i = 0; i < 10; i++) statuses.push((await signIn(i % 2 ? other : ctx().app, address)).status);
          expect(statuses.every((s) => s === 401)).toBe(true);
          expect((await signIn(ctx().app, address)).status).toBe(429);
          expect((await signIn(other, address)).status).toBe(429);
          expect((await signIn(other, "10.7.0.1")).status).toBe(401);
          // counted in Redis (better-auth's own memory store is shared by the Apps of one process: this is what tells them apart)
          const redis = new Redis(url, { maxRetriesPerRequest: 1 });
          try {
            expect(await redis.get(`${prefix}:auth-rl:${address}|/sign-in/email`)).toBe("12");
          } finally {
            redis.disconnect();
          }
        } finally {
          await other.stop();
        }
      });
    },
    { env },
  );
});

describeEachDriver(
  "limits with their Redis down",
  (ctx) => {
    it("a key's query.ask is SERVICE_UNAVAILABLE, a sign-in 503, at once; people in the admin pages are not limited", { timeout: 5000 }, async () => {
      const failed = await rejection(ask(ctx().app, keyCaller()));
      expect(failed).toEqual({ code: "SERVICE_UNAVAILABLE", message: "the rate-limit store (Redis) is unavailable: no connection", field: null });
      expect(await signIn(ctx().app, "10.6.0.1")).toEqual({ status: 503, message: "the sign-in limit's store (Redis) is unavailable: no connection" });
      await callerFor(ctx().app).query.ask({ dataset: "default", question: "Who?" });
    });
  },
  { env: () => ({ GB_REDIS_URL: DOWN_REDIS_URL, GB_RATE_LIMIT_QUERY: "2" }) },
);
