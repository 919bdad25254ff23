import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import type { Caller } from "../auth/caller";
import { queryRows } from "../db/rows";
import { callerFor, rejection, TEST_OWNER } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { appRouter } from "./root";

/*
 * Every procedure of the router, three ways: no credentials → UNAUTHORIZED; another team's
 * owner naming this team's dataset or rows → NOT_FOUND (or sees none of them); a viewer writing
 * → FORBIDDEN. A procedure missing from CASES fails the test: a new one must say how it is checked.
 */

/** Public on purpose: the health check, which says whether auth is on. */
const PUBLIC = new Set(["system.health"]);

interface Fixture {
  dataset: string;
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

interface Case {
  input: (f: Fixture) => unknown;
  cross: Cross;
  /** a mutation viewers may call (documented in the router) */
  viewerMay?: true;
  /** a query only admins may call */
  adminOnly?: true;
}

const none = () => undefined;
const notIn = (key: keyof Fixture) => (result: unknown, f: Fixture) => expect(JSON.stringify(result)).not.toContain(f[key]);

const CASES: Record<string, Case> = {
  "account.me": { input: none, cross: { ownTeamOnly: (r) => expect(r).toMatchObject({ teamId: "team-b" }) } },
  "teams.create": { input: () => ({ name: "x" }), cross: { ownTeamOnly: (r) => expect(r).toMatchObject({ role: "owner" }) } },
  "teams.members": { input: none, cross: { ownTeamOnly: notIn("memberId") } },
  "teams.addMember": { input: () => ({ email: "new@example.com", password: "a-long-password", role: "member" }), cross: { ownTeamOnly: () => undefined } },
  "teams.setRole": { input: (f) => ({ userId: f.memberId, role: "viewer" }), cross: "not_found" },
  "teams.removeMember": { input: (f) => ({ userId: f.memberId }), cross: "not_found" },
  "keys.list": { input: none, cross: { ownTeamOnly: notIn("keyId") }, adminOnly: true },
  "keys.create": { input: (f) => ({ name: "k", role: "viewer", datasets: [f.dataset] }), cross: "not_found" },
  "keys.revoke": { input: (f) => ({ id: f.keyId }), cross: "not_found" },
  "audit.list": { input: () => ({}), cross: { ownTeamOnly: notIn("dataset") }, adminOnly: true },
  "datasets.list": { input: none, cross: { ownTeamOnly: notIn("dataset") } },
  "datasets.create": { input: () => ({ name: "made-by-b" }), cross: { ownTeamOnly: () => undefined } },
  "datasets.delete": { input: (f) => ({ name: f.dataset, confirm: f.dataset }), cross: "not_found" },
  "runs.remember.list": { input: (f) => ({ dataset: f.dataset }), cross: "not_found" },
  "runs.remember.counts": { input: (f) => ({ dataset: f.dataset }), cross: "not_found" },
  "runs.remember.timeline": { input: (f) => ({ id: f.rememberRunId }), cross: "not_found" },
  "runs.remember.get": { input: (f) => ({ id: f.rememberRunId }), cross: "not_found" },
  "runs.remember.outputs": { input: (f) => ({ id: f.rememberRunId }), cross: "not_found" },
  "runs.remember.changes": { input: (f) => ({ id: f.rememberRunId }), cross: "not_found" },
  "runs.query.list": { input: (f) => ({ dataset: f.dataset }), cross: "not_found" },
  "runs.query.counts": { input: (f) => ({ dataset: f.dataset }), cross: "not_found" },
  "runs.query.timeline": { input: (f) => ({ id: f.queryRunId }), cross: "not_found" },
  "runs.query.get": { input: (f) => ({ id: f.queryRunId }), cross: "not_found" },
  "runs.query.outputs": { input: (f) => ({ id: f.queryRunId }), cross: "not_found" },
  "runs.inference.get": { input: (f) => ({ id: f.inferenceId }), cross: "not_found" },
  "remember.submit": { input: (f) => ({ dataset: f.dataset, text: "Mallory lives in Oslo." }), cross: "not_found" },
  "remember.get": { input: (f) => ({ id: f.rememberRunId }), cross: "not_found" },
  "query.ask": { input: (f) => ({ dataset: f.dataset, question: "Where does Alice live?" }), cross: "not_found", viewerMay: true },
  "graph.entities": { input: (f) => ({ dataset: f.dataset }), cross: "not_found" },
  "graph.entity": { input: (f) => ({ dataset: f.dataset, id: f.entityId }), cross: "not_found" },
  "graph.neighbourhood": { input: (f) => ({ dataset: f.dataset, id: f.entityId }), cross: "not_found" },
  "subjects.purge": { input: (f) => ({ dataset: f.dataset, userId: "u-alice" }), cross: "not_found" },
};

type Callable = (input: unknown) => Promise<unknown>;

function procedureOf(caller: ReturnType<typeof callerFor>, path: string): Callable {
  let at: unknown = caller;
  for (const part of path.split(".")) at = (at as Record<string, unknown>)[part];
  return at as Callable;
}

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>).map(([path, p]) => ({
  path,
  type: p._def.type,
}));

const ownerB: Caller = { kind: "user", id: "user-b", label: "b@test", teamId: "team-b", role: "owner", datasetIds: null };
const viewerA: Caller = { ...TEST_OWNER, id: "viewer-a", label: "viewer@test", role: "viewer" };

it("every procedure has an access case, and every case a procedure", () => {
  const paths = procedures.map((p) => p.path).filter((p) => !PUBLIC.has(p));
  expect(paths.filter((p) => !CASES[p])).toEqual([]);
  expect(Object.keys(CASES).filter((p) => !paths.includes(p))).toEqual([]);
});

describeEachDriver("access to every procedure", (ctx) => {
  let f: Fixture;
  let before: Record<string, number>;

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

  beforeAll(async () => {
    const { app } = ctx();
    const db = app.database.db;
    await db.execute(sql`INSERT INTO gb_teams (id, name) VALUES ('team-b', 'Team B')`);
    await db.execute(sql`INSERT INTO gb_auth_users (id, name, email, created_at, updated_at) VALUES ('user-b', 'B', 'b@test', now(), now())`);
    const owner = callerFor(app);
    const ds = await freshDataset(app, "acc");
    const remembered = await owner.remember.submit({ dataset: ds.name, text: "Alice lives in Paris. Alice works at Acme.", userId: "u-alice", wait: true });
    const asked = await owner.query.ask({ dataset: ds.name, question: "Where does Alice live?" });
    const [inference] = await queryRows<{ id: string }>(db, sql`SELECT id FROM gb_inferences WHERE run_id = ${remembered.rememberRunId} LIMIT 1`);
    const entities = await owner.graph.entities({ dataset: ds.name });
    const key = await owner.keys.create({ name: "a-key", role: "member" });
    const member = await owner.teams.addMember({ email: `m-${ds.name}@example.com`, password: "a-long-password", role: "member" });
    if (!inference || !entities.items[0]) throw new Error("fixture incomplete");
    f = {
      dataset: ds.name,
      rememberRunId: remembered.rememberRunId,
      queryRunId: asked.queryRunId,
      inferenceId: inference.id,
      entityId: entities.items[0].id,
      keyId: key.key.id,
      memberId: member.userId,
    };
    before = await counts();
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

  it("nothing of team A changed", async () => {
    const after = await counts();
    // team B's own calls made rows of team B only; viewers' allowed calls wrote only query run logs
    expect(after).toEqual(before);
  });
});
