import { AsyncLocalStorage } from "node:async_hooks";
import { inCluster } from "../cluster/ipc";
import { primaryLimitStorage } from "../cluster/shared";
import { randomBytes } from "node:crypto";
import { betterAuth, type BetterAuthRateLimitOptions } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { count, eq, sql } from "drizzle-orm";
import type { Redis } from "ioredis";
import type { Env } from "../../env";
import { toHttpError } from "../api/errors";
import type { Db } from "../db/client";
import { errorKind, redisUnavailable } from "../errors";
import {
  authAccounts,
  authSessions,
  authUsers,
  authVerifications,
  DEFAULT_TEAM_ID,
  settings,
  teamMembers,
} from "../db/schema";
import { recordAudit } from "./audit";
import { CLIENT_ADDRESS_HEADER } from "./client-address";

/*
 * Accounts and sessions are better-auth's: email and password (scrypt, memory-hard), sessions in
 * gb_auth_sessions, cookies signed with a secret from GB_AUTH_SECRET or made once and kept in
 * gb_settings. Sign-up is closed except for the first account (which becomes the default
 * team's owner) and for accounts a team admin makes (teams.ts runs those inside `allowSignUp`).
 */

// On globalThis: Next bundles this module twice (instrumentation, routes), and the hook of the
// App made in one copy must see what `allowSignUp` of the other sets.
const holder = globalThis as unknown as { __gbSignUpAllowed?: AsyncLocalStorage<true> };
const signUpAllowed = (holder.__gbSignUpAllowed ??= new AsyncLocalStorage<true>());

/** Runs `fn` with sign-up open: a team admin adding a member. */
export function allowSignUp<T>(fn: () => Promise<T>): Promise<T> {
  return signUpAllowed.run(true, fn);
}

async function userCount(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(authUsers);
  return row?.n ?? 0;
}

/** The session secret: the environment's, else one made on first start and kept. */
export async function authSecret(db: Db, env: Env): Promise<string> {
  if (env.GB_AUTH_SECRET) return env.GB_AUTH_SECRET;
  await db
    .insert(settings)
    .values({ key: "auth_secret", value: randomBytes(32).toString("base64url") })
    .onConflictDoNothing({ target: settings.key });
  const [row] = await db.select().from(settings).where(eq(settings.key, "auth_secret"));
  if (!row) throw new Error("could not keep the auth secret");
  return row.value;
}

function baseURL(env: Env) {
  if (env.GB_PUBLIC_URL) return env.GB_PUBLIC_URL;
  // no public address configured: the app answers on loopback, at whatever port it was given
  return { allowedHosts: ["localhost", "localhost:*", "127.0.0.1", "127.0.0.1:*"], fallback: `http://localhost:${env.PORT}` };
}

type LimitStorage = NonNullable<BetterAuthRateLimitOptions["customStorage"]>;

/**
 * better-auth's limits (the sign-in limit) counted in Redis (GB_REDIS_URL), so that every process
 * counts the same attempts: a fixed window per client address and path, under
 * <GB_REDIS_PREFIX>:auth-rl:, in one round trip. The client is the App's, given once it is made.
 * Only the limit: better-auth's secondaryStorage is not set, so sessions stay in the database.
 */
function redisLimitStorage(client: { redis?: Redis }, prefix: string): LimitStorage {
  return {
    async consume(key, rule) {
      const k = `${prefix}:auth-rl:${key}`;
      try {
        if (!client.redis) throw new Error("no Redis client yet");
        const res = await client.redis.multi().set(k, 0, "EX", rule.window, "NX").incr(k).pttl(k).exec();
        const failed = res?.find(([err]) => err);
        if (failed) throw failed[0];
        const [n, ttlMs] = [Number(res?.[1]?.[1]), Number(res?.[2]?.[1])];
        return n <= rule.max ? { allowed: true, retryAfter: null } : { allowed: false, retryAfter: Math.max(1, Math.ceil(ttlMs / 1000)) };
      } catch (e) {
        throw redisUnavailable("the sign-in limit's store (Redis)", e);
      }
    },
  };
}

export function createAuth({ db, env, secret }: { db: Db; env: Env; secret: string }) {
  const limits: { redis?: Redis } = {};
  const auth = betterAuth({
    appName: "gligabao",
    secret,
    baseURL: baseURL(env),
    basePath: "/api/auth",
    telemetry: { enabled: false },
    database: drizzleAdapter(db, {
      provider: "pg",
      schema: { user: authUsers, session: authSessions, account: authAccounts, verification: authVerifications },
    }),
    emailAndPassword: { enabled: true, minPasswordLength: 8, maxPasswordLength: 128, autoSignIn: true },
    // better-auth's own limit on its endpoints, per client address (in production its default for
    // sign-in is 3 per 10 s, which a person mistyping trips): 10 sign-in (and sign-up) attempts a minute
    // the client's address is what the app stamped on the request (client-address.ts), never a
    // forwarded header the client wrote itself
    advanced: { ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] } },
    rateLimit: {
      enabled: true,
      window: 60,
      max: 100,
      customRules: { "/sign-in/email": { window: 60, max: 10 }, "/sign-up/email": { window: 60, max: 10 } },
      // without Redis, npm start's workers count in their primary process (src/server/cluster/)
      ...(env.GB_REDIS_URL ? { customStorage: redisLimitStorage(limits, env.GB_REDIS_PREFIX) } : inCluster() ? { customStorage: primaryLimitStorage() } : {}),
    },
    hooks: {
      // a failed sign-in is audited in the teams of the account it tried (none: an unknown email)
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/sign-in/email" || !(ctx.context.returned instanceof APIError)) return;
        const body: unknown = ctx.body;
        const email = body && typeof body === "object" && "email" in body && typeof body.email === "string" ? body.email.toLowerCase() : "?";
        const teams = await db
          .select({ teamId: teamMembers.teamId })
          .from(teamMembers)
          .innerJoin(authUsers, eq(authUsers.id, teamMembers.userId))
          .where(eq(authUsers.email, email));
        for (const { teamId } of teams.length > 0 ? teams : [{ teamId: null }]) {
          await recordAudit(db, { teamId, actor: { kind: "user", id: null, label: email }, action: "auth.sign_in_failed", details: { status: ctx.context.returned.status } });
        }
      }),
    },
    databaseHooks: {
      user: {
        create: {
          before: async () => {
            if (signUpAllowed.getStore()) return;
            if ((await userCount(db)) > 0) {
              throw new APIError("FORBIDDEN", { message: "sign-up is closed: ask an admin of your team to add you" });
            }
          },
          after: async (user) => {
            if (signUpAllowed.getStore()) return;
            // the first account: owner of the default team (if two race, only one becomes it)
            await db.execute(sql`
              INSERT INTO ${teamMembers} (team_id, user_id, role)
              SELECT ${DEFAULT_TEAM_ID}, ${user.id}, 'owner'
              WHERE NOT EXISTS (SELECT 1 FROM ${teamMembers} WHERE team_id = ${DEFAULT_TEAM_ID} AND role = 'owner')`);
            await recordAudit(db, {
              teamId: DEFAULT_TEAM_ID,
              actor: { kind: "user", id: user.id, label: user.email },
              action: "account.first_owner",
              target: user.email,
            });
          },
        },
      },
      session: {
        create: {
          after: async (session) => {
            const [user] = await db.select({ email: authUsers.email }).from(authUsers).where(eq(authUsers.id, session.userId));
            const teams = await db.select({ teamId: teamMembers.teamId }).from(teamMembers).where(eq(teamMembers.userId, session.userId));
            for (const { teamId } of teams.length > 0 ? teams : [{ teamId: null }]) {
              await recordAudit(db, {
                teamId,
                actor: { kind: "user", id: session.userId, label: user?.email ?? session.userId },
                action: "auth.sign_in",
                details: { ip: session.ipAddress ?? null, userAgent: session.userAgent ?? null },
              });
            }
          },
        },
      },
    },
  });
  const handler = auth.handler;
  return Object.assign(auth, {
    /** GB_REDIS_URL: the process's client, which the limit counts in (app.ts) */
    countLimitsIn(redis: Redis) {
      limits.redis = redis;
    },
    // a limit whose Redis does not answer throws before better-auth's own error handling: 503, not 500
    handler: async (request: Request): Promise<Response> => {
      try {
        return await handler(request);
      } catch (e) {
        if (errorKind(e) !== "unavailable") throw e;
        const { status, message } = toHttpError(e);
        return Response.json({ message }, { status });
      }
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

/** GB_BOOTSTRAP_EMAIL/PASSWORD: the first owner, made at start-up when there is no account. */
export async function ensureBootstrapOwner(db: Db, auth: Auth, email: string, password: string): Promise<void> {
  if ((await userCount(db)) > 0) return;
  await auth.api.signUpEmail({ body: { email, password, name: email.split("@")[0] ?? email } });
}

/** databases known to have an account: accounts are never deleted, so once seen it stays so */
const owned = new WeakSet<Db>();

/** No account exists yet. Asked by every health check: once an account exists, answered without the database. */
export async function needsFirstOwner(db: Db): Promise<boolean> {
  if (owned.has(db)) return false;
  const none = (await userCount(db)) === 0;
  if (!none) owned.add(db);
  return none;
}
