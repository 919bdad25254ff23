import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Caller } from "../auth/caller";
import { createApiKey } from "../auth/keys";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { callerFor, rejection, TEST_OWNER } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { serve } from "../../test/http-server";
import { type RestRoute, restRequest } from "../../test/fuzz";
import { handleRestV1, REST_ENDPOINT } from "./openapi";
import { appRouter } from "./root";

/*
 * Every procedure of the router, four ways: no credentials → UNAUTHORIZED; another team's
 * owner naming this team's dataset or rows → NOT_FOUND (or sees none of them); a viewer writing
 * → FORBIDDEN; an admin key restricted to one dataset → allowed within it, NOT_FOUND for the
 * team's other datasets, FORBIDDEN for team administration. A procedure missing from CASES fails
 * the test: a new one must say how it is checked. The procedures served over REST (/api/v1) are
 * called there too, with the same inputs, by HTTP with Bearer keys: no key → 401, another team's
 * key → 404 (or only its own rows), a viewer's key writing → 403.
 */

/** Public on purpose: the health check, which says whether auth is on. */
const PUBLIC = new Set(["system.health"]);

interface Fixture {
  dataset: string;
  datasetId: string;
  rememberRunId: string;
  queryRunId: string;
  inferenceId: string;
  entityId: string;
  keyId: string;
  memberId: string;
}

type Cross =
  /** the input names team A's rows: team B's owner must get NOT_FOUND */
  | "not_found"
  /** the procedure only acts on the caller's own team: show that A's rows are not in B's answer */
  | { ownTeamOnly: (result: unknown, f: Fixture) => void };

type Callable = (input: unknown) => Promise<unknown>;

/** What an admin key restricted to dataset `f` gets; `o` is the same rows in another dataset of the team. */
type Restricted =
  /** input(f) works; input(o) is NOT_FOUND */
  | "scoped"
  /** team administration: FORBIDDEN, saying it is the restriction */
  | "forbidden"
  /** a check of its own (the procedure takes no dataset, or the plain call would not say enough) */
  | ((call: Callable, f: Fixture, o: Fixture, r: RestrictedKey) => Promise<void>);

interface RestrictedKey {
  id: string;
  caller: Caller;
}

interface Case {
  input: (f: Fixture) => unknown;
  cross: Cross;
  restricted: Restricted;
  /** a mutation viewers may call (documented in the router) */
  viewerMay?: true;
  /** a query only admins may call */
  adminOnly?: true;
}

const none = () => undefined;
const STM_SCOPE = { userId: "u-stm", channelId: "c-stm", serverId: "s-stm" };
/** the scope the clearing cases clear (not STM_SCOPE, whose key stm.entry reads) */
const STM_CLEARED = { userId: "u-gone", channelId: "c-gone", serverId: "s-stm" };
const notIn = (key: keyof Fixture) => (result: unknown, f: Fixture) => expect(JSON.stringify(result)).not.toContain(f[key]);
const code = async (p: Promise<unknown>) => (await rejection(p)).code;
/** the owner of the default team (the fixture's maker), for set-ups inside a check */
let ownerCall: (path: string) => Callable = () => {
  throw new Error("not yet");
};

const CASES: Record<string, Case> = {
  "account.me": {
    input: none,
    cross: { ownTeamOnly: (r) => expect(r).toMatchObject({ teamId: "team-b" }) },
    restricted: async (call) => expect(await call(undefined)).toMatchObject({ kind: "key", role: "admin", restricted: true }),
  },
  "teams.create": { input: () => ({ name: "x" }), cross: { ownTeamOnly: (r) => expect(r).toMatchObject({ role: "owner" }) }, restricted: "forbidden" },
  // any member of the team may read who its members are, a restricted key too (README)
  "teams.members": { input: none, cross: { ownTeamOnly: notIn("memberId") }, restricted: async (call, f) => expect(JSON.stringify(await call(undefined))).toContain(f.memberId) },
  "teams.addMember": {
    input: () => ({ email: "new@example.com", password: "a-long-password", role: "member" }),
    cross: { ownTeamOnly: () => undefined },
    restricted: "forbidden",
  },
  "teams.setRole": { input: (f) => ({ userId: f.memberId, role: "viewer" }), cross: "not_found", restricted: "forbidden" },
  "teams.removeMember": { input: (f) => ({ userId: f.memberId }), cross: "not_found", restricted: "forbidden" },
  "keys.list": {
    input: none,
    cross: { ownTeamOnly: notIn("keyId") },
    adminOnly: true,
    restricted: async (call, f, o, r) => {
      const both = (await ownerCall("keys.create")({ name: "both", role: "viewer", datasets: [f.dataset, o.dataset] })) as { key: { id: string } };
      const mine = (await ownerCall("keys.create")({ name: "mine", role: "viewer", datasets: [f.dataset] })) as { key: { id: string } };
      const ids = ((await call(undefined)) as { id: string }[]).map((k) => k.id);
      expect(ids).toEqual(expect.arrayContaining([r.id, mine.key.id]));
      // an unrestricted key, and a key that also reaches another dataset, are not its to see
      expect(ids).not.toContain(f.keyId);
      expect(ids).not.toContain(both.key.id);
    },
  },
  "keys.create": {
    input: (f) => ({ name: "k", role: "viewer", datasets: [f.dataset] }),
    cross: "not_found",
    restricted: async (call, f, o) => {
      expect(await call({ name: "k", role: "admin", datasets: [f.dataset] })).toMatchObject({ key: { datasets: [f.dataset] } });
      // none named: its own restriction, never wider
      expect(await call({ name: "k", role: "viewer" })).toMatchObject({ key: { datasets: [f.dataset] } });
      expect(await code(call({ name: "k", role: "viewer", datasets: [o.dataset] }))).toBe("NOT_FOUND");
      expect(await code(call({ name: "k", role: "viewer", datasets: [f.dataset, o.dataset] }))).toBe("NOT_FOUND");
      expect(await code(call({ name: "k", role: "owner", datasets: [f.dataset] }))).toBe("FORBIDDEN");
    },
  },
  "keys.revoke": {
    input: (f) => ({ id: f.keyId }),
    cross: "not_found",
    restricted: async (call, f, o) => {
      const both = (await ownerCall("keys.create")({ name: "both", role: "viewer", datasets: [f.dataset, o.dataset] })) as { key: { id: string } };
      const mine = (await ownerCall("keys.create")({ name: "mine", role: "viewer", datasets: [f.dataset] })) as { key: { id: string } };
      expect(await code(call({ id: f.keyId }))).toBe("NOT_FOUND");
      expect(await code(call({ id: both.key.id }))).toBe("NOT_FOUND");
      expect(await call({ id: mine.key.id })).toMatchObject({ id: mine.key.id, revokedAt: expect.any(Date) });
      const live = await queryRows<{ n: number }>(ctxDb(), sql`SELECT count(*)::int AS n FROM gb_api_keys WHERE id IN (${f.keyId}, ${both.key.id}) AND revoked_at IS NULL`);
      expect(live[0]?.n).toBe(2);
    },
  },
  "audit.list": {
    input: () => ({}),
    cross: { ownTeamOnly: notIn("dataset") },
    adminOnly: true,
    restricted: async (call, f, o) => {
      const { items } = (await call({ limit: 200 })) as { items: { action: string; target: string | null; datasetIds: string[] | null }[] };
      expect(items.find((e) => e.action === "dataset.create" && e.target === f.dataset)).toBeDefined();
      for (const e of items) expect(e.datasetIds?.every((id) => id === f.datasetId)).toBe(true);
      const text = JSON.stringify(items);
      expect(text).not.toContain(o.dataset);
      expect(text).not.toContain("member.add");
      expect(text).not.toContain(f.keyId);
    },
  },
  "datasets.list": {
    input: none,
    cross: { ownTeamOnly: notIn("dataset") },
    restricted: async (call, f) => expect(await call(undefined)).toEqual({ items: [expect.objectContaining({ name: f.dataset })], nextCursor: null }),
  },
  "datasets.create": { input: () => ({ name: "made-by-b" }), cross: { ownTeamOnly: () => undefined }, restricted: async (call) => expect(await code(call({ name: "made-by-r" }))).toBe("FORBIDDEN") },
  "datasets.delete": { input: (f) => ({ name: f.dataset, confirm: f.dataset }), cross: "not_found", restricted: "scoped" },
  "runs.remember.list": { input: (f) => ({ dataset: f.dataset }), cross: "not_found", restricted: "scoped" },
  "runs.remember.counts": { input: (f) => ({ dataset: f.dataset }), cross: "not_found", restricted: "scoped" },
  "runs.remember.timeline": { input: (f) => ({ id: f.rememberRunId }), cross: "not_found", restricted: "scoped" },
  "runs.remember.get": { input: (f) => ({ id: f.rememberRunId }), cross: "not_found", restricted: "scoped" },
  "runs.remember.outputs": { input: (f) => ({ id: f.rememberRunId }), cross: "not_found", restricted: "scoped" },
  "runs.remember.changes": { input: (f) => ({ id: f.rememberRunId }), cross: "not_found", restricted: "scoped" },
  "runs.query.list": { input: (f) => ({ dataset: f.dataset }), cross: "not_found", restricted: "scoped" },
  "runs.query.counts": { input: (f) => ({ dataset: f.dataset }), cross: "not_found", restricted: "scoped" },
  "runs.query.timeline": { input: (f) => ({ id: f.queryRunId }), cross: "not_found", restricted: "scoped" },
  "runs.query.get": { input: (f) => ({ id: f.queryRunId }), cross: "not_found", restricted: "scoped" },
  "runs.query.outputs": { input: (f) => ({ id: f.queryRunId }), cross: "not_found", restricted: "scoped" },
  "runs.inference.get": { input: (f) => ({ id: f.inferenceId }), cross: "not_found", restricted: "scoped" },
  "remember.submit": {
    input: (f) => ({ dataset: f.dataset, text: "Mallory lives in Oslo." }),
    cross: "not_found",
    restricted: async (call, f, o) => {
      expect(await code(call({ dataset: o.dataset, text: "Mallory lives in Oslo." }))).toBe("NOT_FOUND");
      // waited for, so that nothing runs in its dataset when a later check deletes it
      expect(await call({ dataset: f.dataset, text: "Mallory lives in Oslo.", wait: true })).toMatchObject({ status: "succeeded" });
    },
  },
  "remember.get": { input: (f) => ({ id: f.rememberRunId }), cross: "not_found", restricted: "scoped" },
  "query.ask": { input: (f) => ({ dataset: f.dataset, question: "Where does Alice live?" }), cross: "not_found", viewerMay: true, restricted: "scoped" },
  "graph.entities": { input: (f) => ({ dataset: f.dataset }), cross: "not_found", restricted: "scoped" },
  "graph.entity": { input: (f) => ({ dataset: f.dataset, id: f.entityId }), cross: "not_found", restricted: "scoped" },
  "graph.neighbourhood": { input: (f) => ({ dataset: f.dataset, id: f.entityId }), cross: "not_found", restricted: "scoped" },
  "graph.series": { input: (f) => ({ dataset: f.dataset, key: "access-series" }), cross: "not_found", restricted: "scoped" },
  "graph.seriesKeys": { input: (f) => ({ dataset: f.dataset }), cross: "not_found", restricted: "scoped" },
  "stm.tool": {
    input: none,
    cross: { ownTeamOnly: (r) => expect(r).toMatchObject({ type: "function" }) },
    restricted: async (call) => expect(await call(undefined)).toMatchObject({ function: { name: "update_short_term_memory" } }),
  },
  "stm.detectIntent": {
    input: () => ({ message: "remember that I like tea" }),
    cross: { ownTeamOnly: (r) => expect(r).toMatchObject({ memoryIntent: true }) },
    restricted: async (call) => expect(await call({ message: "remember that I like tea" })).toMatchObject({ memoryIntent: true }),
  },
  "stm.context": { input: (f) => ({ dataset: f.dataset, scope: STM_SCOPE }), cross: "not_found", restricted: "scoped" },
  "chat.turn": { input: (f) => ({ dataset: f.dataset, scope: STM_CLEARED, message: "hello there" }), cross: "not_found", restricted: "scoped" },
  "stm.scopes": { input: (f) => ({ dataset: f.dataset }), cross: "not_found", restricted: "scoped" },
  "stm.entry": {
    input: (f) => ({ dataset: f.dataset, key: `shortterm:user:${STM_SCOPE.userId}:${STM_SCOPE.channelId}` }),
    cross: "not_found",
    restricted: "scoped",
  },
  "stm.capture": { input: (f) => ({ dataset: f.dataset, scope: STM_CLEARED, messages: [{ role: "user", content: "hello" }] }), cross: "not_found", restricted: "scoped" },
  "stm.upgrade": {
    input: (f) => ({ dataset: f.dataset, scope: STM_SCOPE, turnId: `t-${Math.random()}`, summary: "a summary" }),
    cross: "not_found",
    restricted: "scoped",
  },
  "stm.executeToolCall": {
    input: (f) => ({ dataset: f.dataset, scope: STM_SCOPE, turnId: `t-${Math.random()}`, arguments: '{"summary":"from a tool"}' }),
    cross: "not_found",
    restricted: "scoped",
  },
  "stm.clearChannel": { input: (f) => ({ dataset: f.dataset, channelId: STM_CLEARED.channelId }), cross: "not_found", restricted: "scoped" },
  "stm.clearUser": {
    input: (f) => ({ dataset: f.dataset, userId: STM_CLEARED.userId }),
    cross: "not_found",
    restricted: async (call, f, o) => {
      expect(await code(call({ dataset: o.dataset, userId: STM_CLEARED.userId }))).toBe("NOT_FOUND");
      // no dataset named: all of its own, and only those
      expect(await call({ userId: STM_CLEARED.userId })).toMatchObject({ datasets: [f.dataset] });
    },
  },
  "subjects.purge": {
    input: (f) => ({ dataset: f.dataset, userId: "u-alice" }),
    cross: "not_found",
    restricted: async (call, f, o) => {
      expect(await code(call({ dataset: o.dataset, userId: "u-alice" }))).toBe("NOT_FOUND");
      // no dataset named: all of its own, and only those
      expect(await call({ userId: "u-alice" })).toMatchObject({ datasets: [f.dataset] });
      const [left] = await queryRows<{ n: number }>(ctxDb(), sql`SELECT count(*)::int AS n FROM gb_texts WHERE dataset_id = ${o.datasetId} AND user_id = 'u-alice'`);
      expect(left?.n).toBe(1);
    },
  },
};

/** The checks that delete what the others read run last, the dataset itself at the very end. */
const LAST = ["subjects.purge", "datasets.delete"];

let ctxDb: () => Db = () => {
  throw new Error("not yet");
};

function procedureOf(caller: ReturnType<typeof callerFor>, path: string): Callable {
  let at: unknown = caller;
  for (const part of path.split(".")) at = (at as Record<string, unknown>)[part];
  return at as Callable;
}

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string; meta?: { openapi?: RestRoute } } }>).map(
  ([path, p]) => ({ path, type: p._def.type, rest: p._def.meta?.openapi }),
);


const ownerB: Caller = { kind: "user", id: "user-b", label: "b@test", teamId: "team-b", role: "owner", datasetIds: null };
const viewerA: Caller = { ...TEST_OWNER, id: "viewer-a", label: "viewer@test", role: "viewer" };

it("every procedure has an access case, and every case a procedure", () => {
  const paths = procedures.map((p) => p.path).filter((p) => !PUBLIC.has(p));
  expect(paths.filter((p) => !CASES[p])).toEqual([]);
  expect(Object.keys(CASES).filter((p) => !paths.includes(p))).toEqual([]);
});

describeEachDriver("access to every procedure", (ctx) => {
  let f: Fixture;
  /** the same kinds of rows in another dataset of team A */
  let o: Fixture;
  let restricted: RestrictedKey;
  let before: Record<string, number>;
  let rolesBefore: string;
  /** the REST door: a server, and Bearer keys of team B's owner and of a viewer of team A */
  let rest: { url: string; close(): Promise<void> } | null = null;
  const restKeys = { otherTeam: "", viewer: "" };
  afterAll(async () => rest?.close());

  async function overRest(route: RestRoute, input: unknown, key: string | null): Promise<{ status: number; body: unknown }> {
    const { url, method, body } = restRequest(route, input);
    const headers = { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(key ? { authorization: `Bearer ${key}` } : {}) };
    const res = await fetch(`${rest?.url ?? ""}${url}`, { method, headers, body });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
  }

  const counts = async () => {
    const [row] = await queryRows<Record<string, number>>(
      ctx().app.database.db,
      sql`SELECT (SELECT count(*) FROM gb_texts)::int AS texts, (SELECT count(*) FROM gb_facts)::int AS facts,
                 (SELECT count(*) FROM datasets WHERE team_id = 'default')::int AS datasets,
                 (SELECT count(*) FROM gb_api_keys WHERE revoked_at IS NULL AND team_id = 'default')::int AS keys,
                 (SELECT count(*) FROM gb_team_members WHERE team_id = 'default')::int AS members, (SELECT count(*) FROM gb_remember_runs)::int AS remember_runs`,
    );
    return row ?? {};
  };

  /** A dataset of team A with a remember run, a query run, an inference and an entity. */
  async function rowsIn(prefix: string) {
    const { app } = ctx();
    const owner = callerFor(app);
    const ds = await freshDataset(app, prefix);
    const remembered = await owner.remember.submit({ dataset: ds.name, text: "Alice lives in Paris. Alice works at Acme.", userId: "u-alice", wait: true });
    const asked = await owner.query.ask({ dataset: ds.name, question: "Where does Alice live?" });
    const [inference] = await queryRows<{ id: string }>(app.database.db, sql`SELECT id FROM gb_inferences WHERE run_id = ${remembered.rememberRunId} LIMIT 1`);
    const entities = await owner.graph.entities({ dataset: ds.name });
    // a short-term memory key for stm.entry (the clearing cases clear another scope)
    await owner.stm.capture({ dataset: ds.name, scope: STM_SCOPE, messages: [{ role: "user", content: "hello" }] });
    if (!inference || !entities.items[0]) throw new Error("fixture incomplete");
    return { dataset: ds.name, datasetId: ds.id, rememberRunId: remembered.rememberRunId, queryRunId: asked.queryRunId, inferenceId: inference.id, entityId: entities.items[0].id };
  }

  beforeAll(async () => {
    const { app } = ctx();
    const db = app.database.db;
    ctxDb = () => db;
    ownerCall = (path) => procedureOf(callerFor(app), path);
    await db.execute(sql`INSERT INTO gb_teams (id, name) VALUES ('team-b', 'Team B')`);
    await db.execute(sql`INSERT INTO gb_auth_users (id, name, email, created_at, updated_at) VALUES ('user-b', 'B', 'b@test', now(), now())`);
    const owner = callerFor(app);
    const mine = await rowsIn("acc");
    const other = await rowsIn("acc-other");
    const key = await owner.keys.create({ name: "a-key", role: "member" });
    const member = await owner.teams.addMember({ email: `m-${mine.dataset}@example.com`, password: "a-long-password", role: "member" });
    f = { ...mine, keyId: key.key.id, memberId: member.userId };
    o = { ...other, keyId: key.key.id, memberId: member.userId };
    const made = await owner.keys.create({ name: "restricted admin", role: "admin", datasets: [f.dataset] });
    restricted = {
      id: made.key.id,
      caller: { kind: "key", id: made.key.id, label: `restricted admin (${made.key.prefix}…)`, teamId: "default", role: "admin", datasetIds: [f.datasetId] },
    };
    restKeys.otherTeam = (await createApiKey({ db, caller: ownerB, input: { name: "b over rest", role: "owner" } })).secret;
    restKeys.viewer = (await createApiKey({ db, caller: TEST_OWNER, input: { name: "viewer over rest", role: "viewer" } })).secret;
    rest = await serve((path) => (path.startsWith(REST_ENDPOINT) ? (req) => handleRestV1(req, app) : undefined));
    before = await counts();
    const [roles] = await queryRows<{ roles: string }>(db, sql`SELECT string_agg(user_id || ':' || role, ',' ORDER BY user_id) AS roles FROM gb_team_members WHERE team_id = 'default'`);
    rolesBefore = roles?.roles ?? "";
  });

  for (const { path, type } of procedures) {
    if (PUBLIC.has(path)) continue;
    const c = CASES[path];
    if (!c) continue; // reported by the test above
    it(`${path}: no credentials → UNAUTHORIZED`, async () => {
      const r = await rejection(procedureOf(callerFor(ctx().app, null), path)(c.input(f)));
      expect(r.code).toBe("UNAUTHORIZED");
    });
    it(`${path}: another team → ${c.cross === "not_found" ? "NOT_FOUND" : "only its own rows"}`, async () => {
      const call = procedureOf(callerFor(ctx().app, ownerB), path);
      if (c.cross === "not_found") {
        expect((await rejection(call(c.input(f)))).code).toBe("NOT_FOUND");
        // the same input works for the team that owns the rows (reads only: writes would change them)
        if (type === "query") await expect(procedureOf(callerFor(ctx().app), path)(c.input(f))).resolves.toBeDefined();
      } else {
        c.cross.ownTeamOnly(await call(c.input(f)), f);
      }
    });
    const viewerWrites = (type === "mutation" && !c.viewerMay) || c.adminOnly;
    it(`${path}: a viewer ${viewerWrites ? "→ FORBIDDEN" : "may call it"}`, async () => {
      const call = procedureOf(callerFor(ctx().app, viewerA), path);
      if (viewerWrites) expect((await rejection(call(c.input(f)))).code).toBe("FORBIDDEN");
      else await expect(call(c.input(f))).resolves.toBeDefined();
    });
  }

  for (const { path, type, rest: route } of procedures) {
    const c = CASES[path];
    if (!route || !c) continue;
    const op = `REST ${route.method} ${route.path} (${path})`;
    it(`${op}: no key → 401`, async () => {
      const { status, body } = await overRest(route, c.input(f), null);
      expect({ status, body }).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });
    });
    it(`${op}: another team's key → ${c.cross === "not_found" ? "404" : "only its own rows"}`, async () => {
      const { status, body } = await overRest(route, c.input(f), restKeys.otherTeam);
      if (c.cross === "not_found") {
        expect({ status, body }).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
      } else if (status === 200) {
        c.cross.ownTeamOnly(body, f);
      } else {
        // datasets.create: the tRPC check above already made team B's dataset of that name
        expect({ status, body }).toMatchObject({ status: 409, body: { code: "CONFLICT" } });
      }
    });
    const viewerWrites = (type === "mutation" && !c.viewerMay) || c.adminOnly;
    it(`${op}: a viewer's key ${viewerWrites ? "→ 403" : "may call it"}`, async () => {
      const { status, body } = await overRest(route, c.input(f), restKeys.viewer);
      expect({ status, body: viewerWrites ? body : null }).toMatchObject(viewerWrites ? { status: 403, body: { code: "FORBIDDEN" } } : { status: 200, body: null });
    });
  }

  it("nothing of team A changed", async () => {
    const after = await counts();
    // team B's own calls made rows of team B only; viewers' allowed calls wrote only query run logs
    expect(after).toEqual(before);
  });

  // The restricted admin writes within its dataset, so its checks come after the count above.
  const order = (p: string) => LAST.indexOf(p);
  for (const { path } of [...procedures].sort((a, b) => order(a.path) - order(b.path))) {
    if (PUBLIC.has(path)) continue;
    const c = CASES[path];
    if (!c) continue;
    const what = c.restricted === "scoped" ? "allowed in its dataset, NOT_FOUND in another" : c.restricted === "forbidden" ? "FORBIDDEN" : "kept to its datasets";
    it(`${path}: an admin key restricted to one dataset → ${what}`, async () => {
      const call = procedureOf(callerFor(ctx().app, restricted.caller), path);
      if (c.restricted === "scoped") {
        expect((await rejection(call(c.input(o)))).code).toBe("NOT_FOUND");
        await expect(call(c.input(f))).resolves.toBeDefined();
      } else if (c.restricted === "forbidden") {
        const r = await rejection(call(c.input(f)));
        expect(r.code).toBe("FORBIDDEN");
        expect(r.message).toMatch(/restricted to some datasets/);
      } else {
        await c.restricted(call, f, o, restricted);
      }
    });
  }

  it("the restricted admin changed nothing of the team as a whole", async () => {
    const db = ctx().app.database.db;
    const [row] = await queryRows<{ members: number; roles: string }>(
      db,
      sql`SELECT count(*)::int AS members, string_agg(user_id || ':' || role, ',' ORDER BY user_id) AS roles FROM gb_team_members WHERE team_id = 'default'`,
    );
    expect(row).toEqual({ members: before.members, roles: rolesBefore });
    const [still] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM datasets WHERE id = ${o.datasetId}`);
    expect(still?.n).toBe(1);
  });
});
