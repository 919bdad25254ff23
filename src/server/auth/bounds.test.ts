import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { queryRows } from "../db/rows";
import { callerFor, rejection, TEST_OWNER } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import type { Caller } from "./caller";
import { callerForKey } from "./keys";

/*
 * Keys stay inside their bounds (#11): the hostile-client probe replayed with a real admin key
 * restricted to one dataset; which keys and audit events such a key sees; and teams.addMember
 * answering alike whether or not the email has an account elsewhere.
 */

describeEachDriver("a key restricted to some datasets stays inside them", (ctx) => {
  let a = "";
  let b = "";
  let aId = "";
  let bId = "";
  /** an admin key restricted to dataset a, as the request path resolves it */
  let narrow: Caller;
  let narrowSecret = "";

  beforeAll(async () => {
    const { app } = ctx();
    const da = await freshDataset(app, "bound-a");
    const db = await freshDataset(app, "bound-b");
    [a, b, aId, bId] = [da.name, db.name, da.id, db.id];
    const made = await callerFor(app).keys.create({ name: "narrow admin", role: "admin", datasets: [a] });
    narrowSecret = made.secret;
    const caller = await callerForKey(app.database.db, narrowSecret);
    if (!caller) throw new Error("the key does not resolve");
    narrow = caller;
  });

  it("the probe: it cannot add an admin, promote a member, or revoke an unrestricted key", async () => {
    const { app } = ctx();
    const owner = callerFor(app);
    const gb = callerFor(app, narrow);
    const member = await owner.teams.addMember({ email: `m-${randomUUID().slice(0, 8)}@example.com`, password: "member password", role: "member" });
    const wide = await owner.keys.create({ name: "wide", role: "member" });

    const add = await rejection(gb.teams.addMember({ email: "mallory@example.com", password: "mallory password", role: "admin" }));
    expect(add).toMatchObject({ code: "FORBIDDEN" });
    expect(add.message).toBe("a key restricted to some datasets cannot add members; use an unrestricted key or sign in");
    expect((await rejection(gb.teams.setRole({ userId: member.userId, role: "admin" }))).code).toBe("FORBIDDEN");
    expect((await rejection(gb.teams.removeMember({ userId: member.userId }))).code).toBe("FORBIDDEN");
    expect((await rejection(gb.teams.create({ name: "mine" }))).code).toBe("FORBIDDEN");
    // not "forbidden": a key it may not see is not there
    expect((await rejection(gb.keys.revoke({ id: wide.key.id }))).code).toBe("NOT_FOUND");

    const [row] = await queryRows<{ users: number; role: string; revoked: Date | null }>(
      app.database.db,
      sql`SELECT (SELECT count(*) FROM gb_auth_users WHERE email = 'mallory@example.com')::int AS users,
                 (SELECT role FROM gb_team_members WHERE team_id = 'default' AND user_id = ${member.userId}) AS role,
                 (SELECT revoked_at FROM gb_api_keys WHERE id = ${wide.key.id}) AS revoked`,
    );
    expect(row).toEqual({ users: 0, role: "member", revoked: null });
  });

  it("the keys it makes are restricted to some of its datasets, never wider", async () => {
    const { app } = ctx();
    const gb = callerFor(app, narrow);
    const made = await gb.keys.create({ name: "child", role: "member" });
    expect(made.key.datasets).toEqual([a]);
    const child = await callerForKey(app.database.db, made.secret);
    expect(child?.datasetIds).toEqual([aId]);
    // the child cannot reach b either, nor make a key for it
    expect((await rejection(callerFor(app, child).runs.remember.list({ dataset: b }))).code).toBe("NOT_FOUND");
    expect((await rejection(callerFor(app, child).keys.create({ name: "x", datasets: [b] }))).code).toBe("FORBIDDEN"); // a member: no keys at all
    expect((await rejection(gb.keys.create({ name: "x", role: "member", datasets: [b] }))).code).toBe("NOT_FOUND");
  });

  it("keys.list: only keys restricted to some of its own datasets", async () => {
    const { app } = ctx();
    const owner = callerFor(app);
    const onlyA = await owner.keys.create({ name: "only a", role: "viewer", datasets: [a] });
    const both = await owner.keys.create({ name: "a and b", role: "viewer", datasets: [a, b] });
    const onlyB = await owner.keys.create({ name: "only b", role: "viewer", datasets: [b] });
    const all = await owner.keys.create({ name: "all", role: "viewer" });
    const seen = (await callerFor(app, narrow).keys.list()).map((k) => k.id);
    expect(seen).toEqual(expect.arrayContaining([onlyA.key.id, narrow.id]));
    for (const hidden of [both, onlyB, all]) expect(seen).not.toContain(hidden.key.id);
    // a key restricted to a and b sees the key of a and its own, not the unrestricted one
    const wider = await callerForKey(app.database.db, (await owner.keys.create({ name: "admin a+b", role: "admin", datasets: [a, b] })).secret);
    const seenByWider = (await callerFor(app, wider).keys.list()).map((k) => k.id);
    expect(seenByWider).toEqual(expect.arrayContaining([onlyA.key.id, both.key.id, onlyB.key.id]));
    expect(seenByWider).not.toContain(all.key.id);
    // and revokes only those: another key is NOT_FOUND with the same words as a key that never was
    const gone = await rejection(callerFor(app, narrow).keys.revoke({ id: both.key.id }));
    const never = await rejection(callerFor(app, narrow).keys.revoke({ id: randomUUID() }));
    expect(gone.code).toBe("NOT_FOUND");
    expect(gone.message.replace(both.key.id, "ID")).toBe(never.message.replace(/[0-9a-f-]{36}/, "ID"));
    await expect(callerFor(app, narrow).keys.revoke({ id: onlyA.key.id })).resolves.toMatchObject({ revokedAt: expect.any(Date) });
  });

  it("audit.list: only the events of its own datasets", async () => {
    const { app } = ctx();
    const owner = callerFor(app);
    await owner.remember.submit({ dataset: a, text: "Ann lives in Rome.", userId: "u-ann", wait: true });
    await owner.remember.submit({ dataset: b, text: "Ann lives in Rome.", userId: "u-ann", wait: true });
    await owner.subjects.purge({ dataset: a, userId: "u-ann" });
    await owner.subjects.purge({ dataset: b, userId: "u-ann" });
    await owner.subjects.purge({ userId: "u-nobody" }); // every dataset of the team
    await owner.teams.addMember({ email: `seen-${randomUUID().slice(0, 8)}@example.com`, password: "a password", role: "viewer" });

    const mine = (await callerFor(app, narrow).audit.list({ limit: 200 })).items;
    for (const e of mine) expect(e.datasetIds?.length && e.datasetIds.every((id) => id === aId)).toBeTruthy();
    expect(mine.map((e) => `${e.action} ${e.target ?? ""}`)).toContain(`dataset.create ${a}`);
    // the purge of a; not that of b, nor the one over every dataset of the team
    expect(mine.filter((e) => e.action === "subject.purge").map((e) => e.details)).toEqual([expect.objectContaining({ datasets: [a] })]);
    expect(mine.some((e) => e.action === "key.create" && e.target?.startsWith("narrow admin"))).toBe(true);
    expect(mine.some((e) => ["member.add", "auth.sign_in", "team.create"].includes(e.action))).toBe(false);
    expect(JSON.stringify(mine)).not.toContain(b);
    // the owner sees all of it
    const all = (await callerFor(app).audit.list({ limit: 200 })).items;
    expect(all.filter((e) => e.action === "subject.purge").length).toBeGreaterThanOrEqual(3);
    expect(all.some((e) => e.action === "member.add")).toBe(true);
    expect(all.find((e) => e.action === "dataset.create" && e.target === b)?.datasetIds).toEqual([bId]);
  });

  it("events written before dataset_ids existed are filled in by the migration, or stay team-wide", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const key = await callerFor(app).keys.create({ name: "old", role: "viewer", datasets: [a] });
    const old = {
      create: randomUUID(),
      key: randomUUID(),
      purge: randomUUID(),
      purgeGone: randomUUID(),
      member: randomUUID(),
    };
    const row = (id: string, action: string, details: unknown) =>
      db.execute(sql`INSERT INTO gb_audit_log (id, team_id, at, actor_kind, actor_label, action, details)
                     VALUES (${id}, 'default', now(), 'system', 'old', ${action}, ${JSON.stringify(details)}::jsonb)`);
    await row(old.create, "dataset.create", { datasetId: aId });
    await row(old.key, "key.create", { keyId: key.key.id });
    await row(old.purge, "subject.purge", { datasets: [a] });
    await row(old.purgeGone, "subject.purge", { datasets: [a, "deleted-long-ago"] });
    await row(old.member, "member.add", { role: "viewer" });
    const migration = readFileSync(path.join(process.cwd(), "drizzle/0011_audit_datasets_backfill.sql"), "utf8");
    for (const statement of migration.split("--> statement-breakpoint")) await db.execute(sql.raw(statement));
    const rows = await queryRows<{ id: string; dataset_ids: string[] | null }>(
      db,
      sql`SELECT id, dataset_ids FROM gb_audit_log WHERE id IN (${old.create}, ${old.key}, ${old.purge}, ${old.purgeGone}, ${old.member})`,
    );
    const ids = Object.fromEntries(rows.map((r) => [r.id, r.dataset_ids]));
    expect(ids).toEqual({ [old.create]: [aId], [old.key]: [aId], [old.purge]: [aId], [old.purgeGone]: null, [old.member]: null });
    const seen = (await callerFor(app, narrow).audit.list({ limit: 200 })).items.map((e) => e.id);
    expect(seen).toEqual(expect.arrayContaining([old.create, old.key, old.purge]));
    expect(seen).not.toContain(old.purgeGone);
    expect(seen).not.toContain(old.member);
  });
});

describeEachDriver("teams.addMember does not tell whether an email has an account", (ctx) => {
  const otherOwner: Caller = { kind: "user", id: "owner-x", label: "x@test", teamId: "team-x", role: "owner", datasetIds: null };

  beforeAll(async () => {
    await ctx().app.database.db.execute(sql`INSERT INTO gb_teams (id, name) VALUES ('team-x', 'Team X')`);
  });

  /** an email with an account in team X only */
  async function elsewhere(): Promise<string> {
    const email = `elsewhere-${randomUUID().slice(0, 8)}@example.com`;
    await callerFor(ctx().app, otherOwner).teams.addMember({ email, name: "Their Own Name", password: "their own password", role: "member" });
    return email;
  }
  const unknown = () => `unknown-${randomUUID().slice(0, 8)}@example.com`;

  async function timed<T>(p: () => Promise<T>): Promise<{ ms: number; value: T }> {
    const start = performance.now();
    const value = await p();
    return { ms: performance.now() - start, value };
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;

  it("answers the same fields for an unknown email and one with an account elsewhere", async () => {
    const gb = callerFor(ctx().app, TEST_OWNER);
    const input = { name: "Given Name", password: "given password", role: "viewer" } as const;
    const fresh = unknown();
    const known = await elsewhere();
    const x = await gb.teams.addMember({ email: fresh, ...input });
    const y = await gb.teams.addMember({ email: known.toUpperCase(), ...input });
    const shape = (v: object) => Object.entries(v).map(([k, val]) => [k, val instanceof Date ? "date" : typeof val]);
    expect(shape(x)).toEqual(shape(y));
    expect(x).toMatchObject({ email: fresh, role: "viewer" });
    expect(y).toMatchObject({ email: known, role: "viewer" });
    expect(Object.keys(x).sort()).toEqual(["email", "role", "since", "userId"]);
    // the account that existed keeps its own name and password
    const [user] = await queryRows<{ name: string }>(ctx().app.database.db, sql`SELECT name FROM gb_auth_users WHERE email = ${known}`);
    expect(user?.name).toBe("Their Own Name");
    await expect(ctx().app.auth.api.signInEmail({ body: { email: known, password: "their own password" } })).resolves.toBeDefined();
    await expect(ctx().app.auth.api.signInEmail({ body: { email: known, password: "given password" } })).rejects.toThrow();
  });

  it("asks for the password whatever the email, with the same error", async () => {
    const gb = callerFor(ctx().app, TEST_OWNER);
    const a = await rejection(gb.teams.addMember({ email: unknown(), role: "viewer" } as never));
    const b = await rejection(gb.teams.addMember({ email: await elsewhere(), role: "viewer" } as never));
    expect(a).toMatchObject({ code: "BAD_REQUEST", field: "password" });
    expect(b).toEqual(a);
    const short = await rejection(gb.teams.addMember({ email: await elsewhere(), password: "short", role: "viewer" }));
    expect(short).toMatchObject({ code: "BAD_REQUEST", field: "password" });
  });

  it("takes about as long either way (both hash the password)", async () => {
    const gb = callerFor(ctx().app, TEST_OWNER);
    const known = [await elsewhere(), await elsewhere(), await elsewhere()];
    const fresh: number[] = [];
    const existing: number[] = [];
    for (const email of known) {
      fresh.push((await timed(() => gb.teams.addMember({ email: unknown(), password: "a password", role: "viewer" }))).ms);
      existing.push((await timed(() => gb.teams.addMember({ email, password: "a password", role: "viewer" }))).ms);
    }
    // the same class, not the same ms: a new account also writes its rows. Without the hash the
    // existing account's answer came in ~1/30 of the new one's; with it, ~1/2 to 1.
    expect(median(existing)).toBeGreaterThan(median(fresh) * 0.25);
  });
});
