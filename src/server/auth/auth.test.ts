import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleTrpc } from "../api/http";
import { CLIENT_ADDRESS_HEADER } from "./client-address";
import { type App, createApp, health } from "../app";
import { queryRows } from "../db/rows";
import { describeEachDriver, openTestDatabase, testEnv } from "../../test/db";

/*
 * Accounts, sessions and keys through the HTTP handlers the Next routes call (better-auth's and
 * tRPC's), with real cookies and bearer keys; no network needed.
 */

const BASE = "http://localhost:3000";

// better-auth limits sign-ins per client address, in memory shared by the file's apps: each app
// of this file calls from an address of its own
const addresses = new WeakMap<App, string>();
const addressOf = (app: App) => {
  if (!addresses.has(app)) addresses.set(app, `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`);
  return addresses.get(app) ?? "";
};

async function authCall(app: App, path: string, body: unknown, cookie?: string) {
  const res = await app.auth.handler(
    new Request(`${BASE}/api/auth${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE, [CLIENT_ADDRESS_HEADER]: addressOf(app), ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    }),
  );
  const setCookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { status: res.status, cookie: setCookie, body: (await res.json().catch(() => null)) as unknown };
}

interface TrpcAnswer {
  status: number;
  data: unknown;
  error: { message: string; data: { code: string; retryAfterMs: number | null } } | null;
  headers: Headers;
}

/** One tRPC call over the fetch handler: GET for queries, POST for mutations (superjson envelope). */
async function trpc(
  app: App,
  path: string,
  input: unknown,
  auth: { cookie?: string; key?: string; headers?: Record<string, string> },
  type: "query" | "mutation" = "query",
): Promise<TrpcAnswer> {
  const headers: Record<string, string> = { "content-type": "application/json", ...auth.headers };
  if (auth.cookie) headers.cookie = auth.cookie;
  if (auth.key) headers.authorization = `Bearer ${auth.key}`;
  const url = `${BASE}/api/trpc/${path}` + (type === "query" && input !== undefined ? `?input=${encodeURIComponent(JSON.stringify({ json: input }))}` : "");
  const res = await handleTrpc(
    new Request(url, { method: type === "query" ? "GET" : "POST", headers, body: type === "mutation" ? JSON.stringify({ json: input }) : undefined }),
    app,
  );
  const body = (await res.json()) as { result?: { data: { json: unknown } }; error?: { json: TrpcAnswer["error"] } };
  return { status: res.status, data: body.result?.data.json, error: body.error?.json ?? null, headers: res.headers };
}

describeEachDriver("accounts, sessions and API keys over HTTP", (ctx) => {
  let owner = "";
  let secret = "";

  it("a fresh install needs its first owner; the first sign-up becomes the default team's owner", async () => {
    const { app } = ctx();
    expect(await health(app)).toMatchObject({ auth: "on", needsFirstOwner: true });
    const up = await authCall(app, "/sign-up/email", { email: "owner@example.com", password: "correct horse battery", name: "Owner" });
    expect(up.status).toBe(200);
    expect(up.cookie).toMatch(/session_token=/);
    owner = up.cookie;
    expect(await health(app)).toMatchObject({ needsFirstOwner: false });
    const me = await trpc(app, "account.me", undefined, { cookie: owner });
    expect(me.data).toMatchObject({ kind: "user", label: "owner@example.com", teamId: "default", role: "owner" });
  });

  it("keeps a memory-hard hash, never the password", async () => {
    const [row] = await queryRows<{ password: string }>(ctx().app.database.db, sql`SELECT password FROM gb_auth_accounts WHERE provider_id = 'credential' LIMIT 1`);
    expect(row?.password).toBeTruthy();
    expect(row?.password).not.toContain("correct horse");
    expect(row?.password).toMatch(/^[0-9a-f]+:[0-9a-f]+$/); // better-auth's scrypt salt:key
  });

  it("closes sign-up once an owner exists", async () => {
    const again = await authCall(ctx().app, "/sign-up/email", { email: "intruder@example.com", password: "another password", name: "X" });
    expect(again.status).toBe(403);
    const [n] = await queryRows<{ n: number }>(ctx().app.database.db, sql`SELECT count(*)::int AS n FROM gb_auth_users WHERE email = 'intruder@example.com'`);
    expect(n?.n).toBe(0);
  });

  it("signs in with the password (and not with a wrong one), and audits the sign-in", async () => {
    const { app } = ctx();
    expect((await authCall(app, "/sign-in/email", { email: "owner@example.com", password: "wrong password!" })).status).toBe(401);
    const signIn = await authCall(app, "/sign-in/email", { email: "owner@example.com", password: "correct horse battery" });
    expect(signIn.status).toBe(200);
    const audit = await trpc(app, "audit.list", {}, { cookie: signIn.cookie });
    const actions = (audit.data as { items: { action: string; actorLabel: string }[] }).items.map((e) => e.action);
    expect(actions).toContain("auth.sign_in");
    expect(actions).toContain("auth.sign_in_failed");
    expect(actions).toContain("account.first_owner");
  });

  it("answers UNAUTHORIZED (401) without credentials and with an unknown key", async () => {
    const { app } = ctx();
    const none = await trpc(app, "datasets.list", undefined, {});
    expect(none.status).toBe(401);
    expect(none.error?.data.code).toBe("UNAUTHORIZED");
    expect((await trpc(app, "datasets.list", undefined, { key: "gb_not-a-key-at-all" })).status).toBe(401);
  });

  it("makes a key shown once and stored hashed; the key works; revoked, it does not", async () => {
    const { app } = ctx();
    const made = await trpc(app, "keys.create", { name: "ci app", role: "member" }, { cookie: owner }, "mutation");
    const answer = made.data as { secret: string; key: { id: string; prefix: string } };
    secret = answer.secret;
    expect(secret).toMatch(/^gb_[A-Za-z0-9_-]{43}$/);
    expect(secret.startsWith(answer.key.prefix)).toBe(true);
    const stored = await queryRows<{ hash: string }>(app.database.db, sql`SELECT hash FROM gb_api_keys WHERE id = ${answer.key.id}`);
    expect(stored[0]?.hash).toHaveLength(64);
    expect(JSON.stringify(stored)).not.toContain(secret);
    const listed = await trpc(app, "keys.list", undefined, { cookie: owner });
    expect(JSON.stringify(listed.data)).not.toContain(secret);

    const ok = await trpc(app, "remember.submit", { dataset: "default", text: "Carol lives in Lyon.", wait: true }, { key: secret }, "mutation");
    expect(ok.data).toMatchObject({ status: "succeeded" });
    const [used] = await queryRows<{ last_used_at: Date | null }>(app.database.db, sql`SELECT last_used_at FROM gb_api_keys WHERE id = ${answer.key.id}`);
    expect(used?.last_used_at).not.toBeNull();
    // a member key cannot manage keys
    expect((await trpc(app, "keys.list", undefined, { key: secret })).error?.data.code).toBe("FORBIDDEN");

    await trpc(app, "keys.revoke", { id: answer.key.id }, { cookie: owner }, "mutation");
    const after = await trpc(app, "remember.submit", { dataset: "default", text: "Carol moved." }, { key: secret }, "mutation");
    expect(after.error?.data.code).toBe("UNAUTHORIZED");
    const actions = ((await trpc(app, "audit.list", {}, { cookie: owner })).data as { items: { action: string }[] }).items.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["key.create", "key.revoke"]));
  });

  it("a key restricted to one dataset sees only it; others are NOT_FOUND", async () => {
    const { app } = ctx();
    await trpc(app, "datasets.create", { name: "only-this" }, { cookie: owner }, "mutation");
    await trpc(app, "datasets.create", { name: "not-this" }, { cookie: owner }, "mutation");
    const made = await trpc(app, "keys.create", { name: "narrow", role: "member", datasets: ["only-this"] }, { cookie: owner }, "mutation");
    const narrow = (made.data as { secret: string }).secret;
    const list = await trpc(app, "datasets.list", undefined, { key: narrow });
    expect((list.data as { items: { name: string }[] }).items.map((d) => d.name)).toEqual(["only-this"]);
    expect((await trpc(app, "runs.remember.list", { dataset: "not-this" }, { key: narrow })).error?.data.code).toBe("NOT_FOUND");
    expect((await trpc(app, "runs.remember.list", { dataset: "only-this" }, { key: narrow })).status).toBe(200);
    // it could not see a dataset it made
    expect((await trpc(app, "datasets.create", { name: "by-narrow" }, { key: narrow }, "mutation")).error?.data.code).toBe("FORBIDDEN");
  });

  it("adds a member with a role, changes the role, keeps the last owner, all audited", async () => {
    const { app } = ctx();
    const added = await trpc(app, "teams.addMember", { email: "viewer@example.com", name: "Vi", password: "viewer password", role: "viewer" }, { cookie: owner }, "mutation");
    const viewerId = (added.data as { userId: string }).userId;
    const viewer = (await authCall(app, "/sign-in/email", { email: "viewer@example.com", password: "viewer password" })).cookie;
    const write = await trpc(app, "remember.submit", { dataset: "default", text: "Dan lives in Nice." }, { cookie: viewer }, "mutation");
    expect(write.error?.data.code).toBe("FORBIDDEN");
    expect((await trpc(app, "runs.remember.list", { dataset: "default" }, { cookie: viewer })).status).toBe(200);
    await trpc(app, "teams.setRole", { userId: viewerId, role: "member" }, { cookie: owner }, "mutation");
    expect((await trpc(app, "account.me", undefined, { cookie: viewer })).data).toMatchObject({ role: "member" });
    const me = (await trpc(app, "account.me", undefined, { cookie: owner })).data as { teams: { id: string }[] };
    const ownerId = ((await trpc(app, "teams.members", undefined, { cookie: owner })).data as { userId: string; role: string }[]).find((m) => m.role === "owner")?.userId;
    expect(me.teams.map((t) => t.id)).toEqual(["default"]);
    expect((await trpc(app, "teams.setRole", { userId: ownerId, role: "admin" }, { cookie: owner }, "mutation")).error?.data.code).toBe("CONFLICT");
    const actions = ((await trpc(app, "audit.list", {}, { cookie: owner })).data as { items: { action: string }[] }).items.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["member.add", "member.role"]));
  });

  it("limits sign-in attempts per client address (10 a minute)", async () => {
    const { app } = ctx();
    addresses.set(app, `10.200.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await authCall(app, "/sign-in/email", { email: "owner@example.com", password: "guessing " + i })).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    addresses.delete(app);
  });

  it("a session sees another team it belongs to only when it names it", async () => {
    const { app } = ctx();
    const made = await trpc(app, "teams.create", { name: "Second team" }, { cookie: owner }, "mutation");
    const team = made.data as { id: string };
    await trpc(app, "datasets.create", { name: "second-only" }, { cookie: `${owner}; gb_team=${team.id}` }, "mutation");
    const inDefault = ((await trpc(app, "datasets.list", undefined, { cookie: owner })).data as { items: { name: string }[] }).items;
    const inSecond = ((await trpc(app, "datasets.list", undefined, { cookie: `${owner}; gb_team=${team.id}` })).data as { items: { name: string }[] }).items;
    expect(inDefault.map((d) => d.name)).not.toContain("second-only");
    expect(inSecond.map((d) => d.name)).toEqual(["second-only"]);
  });

  it("a signed-in person's cookie writes only from the app's own pages; keys and reads are not affected", async () => {
    const { app } = ctx();
    const evil = { origin: "https://evil.example" };
    const refused = await trpc(app, "datasets.create", { name: "csrf-target" }, { cookie: owner, headers: evil }, "mutation");
    expect(refused.status).toBe(403);
    expect(refused.error?.message).toMatch(/Origin is another site/);
    const fetchMeta = await trpc(app, "datasets.create", { name: "csrf-target" }, { cookie: owner, headers: { "sec-fetch-site": "cross-site" } }, "mutation");
    expect(fetchMeta.status).toBe(403);
    // nothing was made
    const names = JSON.stringify((await trpc(app, "datasets.list", undefined, { cookie: owner })).data);
    expect(names).not.toContain("csrf-target");
    // reads from another site are not writes; the app's own origin and GB_PUBLIC_URL-less host writes
    expect((await trpc(app, "account.me", undefined, { cookie: owner, headers: evil })).status).toBe(200);
    const own = await trpc(app, "datasets.create", { name: "csrf-own" }, { cookie: owner, headers: { origin: BASE, host: "localhost:3000", "sec-fetch-site": "same-origin" } }, "mutation");
    expect(own.status).toBe(200);
    // an API key is sent on purpose, whatever the Origin
    const made = await trpc(app, "keys.create", { name: "csrf key", role: "member" }, { cookie: owner }, "mutation");
    const key = (made.data as { secret: string }).secret;
    expect((await trpc(app, "datasets.create", { name: "csrf-key" }, { key, headers: evil }, "mutation")).status).toBe(200);
  });
});

describeEachDriver(
  "rate limits per API key",
  (ctx) => {
    it("answers TOO_MANY_REQUESTS with a retry time past the limit, per key", async () => {
      const { app } = ctx();
      const key = "gb_rate_limit_test_key_000000000000";
      const ask = () => trpc(app, "query.ask", { dataset: "default", question: "Who?" }, { key }, "mutation");
      expect((await ask()).status).toBe(200);
      expect((await ask()).status).toBe(200);
      const third = await ask();
      expect(third.status).toBe(429);
      expect(third.error?.data.code).toBe("TOO_MANY_REQUESTS");
      expect(third.error?.data.retryAfterMs).toBeGreaterThan(0);
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
      // remember has its own budget
      const r = await trpc(app, "remember.submit", { dataset: "default", text: "Eve lives in Bern." }, { key }, "mutation");
      expect(r.status).toBe(200);
    });
  },
  { env: () => ({ GB_RATE_LIMIT_QUERY: "2", GB_BOOTSTRAP_API_KEY: "gb_rate_limit_test_key_000000000000" }) },
);

describe("start-up without an account", () => {
  let app: App;
  beforeAll(async () => {
    app = await createApp({
      env: testEnv({ GB_BOOTSTRAP_EMAIL: "boot@example.com", GB_BOOTSTRAP_PASSWORD: "bootstrap password", GB_BOOTSTRAP_API_KEY: "gb_bootstrap_key_for_tests_000000000" }),
      database: await openTestDatabase("pglite"),
      worker: false,
    });
  });
  afterAll(() => app.close());

  it("GB_BOOTSTRAP_EMAIL/PASSWORD make the first owner, GB_BOOTSTRAP_API_KEY an owner key", async () => {
    expect(await health(app)).toMatchObject({ needsFirstOwner: false });
    const signIn = await authCall(app, "/sign-in/email", { email: "boot@example.com", password: "bootstrap password" });
    expect((await trpc(app, "account.me", undefined, { cookie: signIn.cookie })).data).toMatchObject({ role: "owner" });
    expect((await trpc(app, "account.me", undefined, { key: "gb_bootstrap_key_for_tests_000000000" })).data).toMatchObject({ kind: "key", role: "owner" });
  });

  it("GB_AUTH=off: every caller is the local owner, and health says so", async () => {
    const off = await createApp({ env: testEnv({ GB_AUTH: "off" }), database: await openTestDatabase("pglite"), worker: false });
    try {
      expect(await health(off)).toMatchObject({ auth: "off", needsFirstOwner: false });
      expect((await trpc(off, "account.me", undefined, {})).data).toMatchObject({ kind: "local", role: "owner" });
    } finally {
      await off.close();
    }
  });
});
