import { randomUUID } from "node:crypto";
import { and, asc, count, eq } from "drizzle-orm";
import { type Role, roleAtLeast } from "../../lib/roles";
import type { Db } from "../db/client";
import { authUsers, teamMembers, teams } from "../db/schema";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors";
import { actorOf, recordAudit } from "./audit";
import { allowSignUp, type Auth } from "./better-auth";
import { assertTeamWide, type Caller } from "./caller";
import type { AddMemberInput } from "./schemas";

export interface Member {
  userId: string;
  email: string;
  name: string;
  role: Role;
  since: Date;
}

export interface TeamView {
  id: string;
  name: string;
  role: Role;
}

/** The teams a signed-in user belongs to, oldest membership first (the first is the default). */
export async function teamsOfUser(db: Db, userId: string): Promise<TeamView[]> {
  return db
    .select({ id: teams.id, name: teams.name, role: teamMembers.role })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .where(eq(teamMembers.userId, userId))
    .orderBy(asc(teamMembers.createdAt), asc(teams.id));
}

export async function createTeam({ db, caller, name }: { db: Db; caller: Caller; name: string }): Promise<TeamView> {
  assertTeamWide(caller, "make a team");
  if (caller.kind !== "user" || !caller.id) throw new ForbiddenError("only a signed-in person can make a team");
  const userId = caller.id;
  const id = randomUUID();
  await db.transaction(async (tx) => {
    await tx.insert(teams).values({ id, name, createdAt: new Date() });
    await tx.insert(teamMembers).values({ teamId: id, userId, role: "owner" });
    await recordAudit(tx, { teamId: id, actor: actorOf(caller), action: "team.create", target: name });
  });
  return { id, name, role: "owner" };
}

export async function listMembers({ db, caller }: { db: Db; caller: Caller }): Promise<Member[]> {
  return db
    .select({ userId: authUsers.id, email: authUsers.email, name: authUsers.name, role: teamMembers.role, since: teamMembers.createdAt })
    .from(teamMembers)
    .innerJoin(authUsers, eq(authUsers.id, teamMembers.userId))
    .where(eq(teamMembers.teamId, caller.teamId))
    .orderBy(asc(teamMembers.createdAt));
}

function assertMayGrant(caller: Caller, role: Role) {
  if (!roleAtLeast(caller.role, role)) throw new ForbiddenError(`a ${caller.role} cannot give the role ${role}`);
}

/** What teams.addMember answers: the same fields whether the account was made or already existed. */
export interface AddedMember {
  userId: string;
  email: string;
  role: Role;
  since: Date;
}

/**
 * Adds a person to the caller's team, making their account when the email is new. The answer
 * must not tell whether the email already had an account (in another team): the password is
 * required either way (and hashed either way, so both take the time of one scrypt hash), an
 * existing account keeps its own name and password, and the answer carries neither.
 */
export async function addMember({ db, auth, caller, input }: { db: Db; auth: Auth; caller: Caller; input: AddMemberInput }): Promise<AddedMember> {
  assertTeamWide(caller, "add members");
  assertMayGrant(caller, input.role);
  const email = input.email.toLowerCase();
  const password = input.password;
  let [user] = await db.select().from(authUsers).where(eq(authUsers.email, email));
  if (!user) {
    await allowSignUp(() => auth.api.signUpEmail({ body: { email, password, name: input.name ?? email.split("@")[0] ?? email } }));
    [user] = await db.select().from(authUsers).where(eq(authUsers.email, email));
    if (!user) throw new Error("the account was not made");
  } else {
    // the hash a new account costs, thrown away: the answer takes as long either way
    await (await auth.$context).password.hash(password);
  }
  const userRow = user;
  const inserted = await db.transaction(async (tx) => {
    const rows = await tx
      .insert(teamMembers)
      .values({ teamId: caller.teamId, userId: userRow.id, role: input.role })
      .onConflictDoNothing()
      .returning();
    if (rows[0]) {
      await recordAudit(tx, { teamId: caller.teamId, actor: actorOf(caller), action: "member.add", target: email, details: { role: input.role } });
    }
    return rows[0];
  });
  // the team's own members are no secret from its admins (teams.members lists them)
  if (!inserted) throw new ConflictError(`${email} is already in the team`);
  return { userId: userRow.id, email, role: inserted.role, since: inserted.createdAt };
}

async function memberOf(db: Db, teamId: string, userId: string) {
  const [row] = await db
    .select({ role: teamMembers.role, email: authUsers.email })
    .from(teamMembers)
    .innerJoin(authUsers, eq(authUsers.id, teamMembers.userId))
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)));
  if (!row) throw new NotFoundError("member", userId);
  return row;
}

async function ownerCount(db: Db, teamId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(teamMembers).where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.role, "owner")));
  return row?.n ?? 0;
}

export async function setMemberRole({ db, caller, userId, role }: { db: Db; caller: Caller; userId: string; role: Role }): Promise<void> {
  assertTeamWide(caller, "change roles");
  const member = await memberOf(db, caller.teamId, userId);
  assertMayGrant(caller, role);
  assertMayGrant(caller, member.role);
  if (member.role === role) return;
  if (member.role === "owner" && (await ownerCount(db, caller.teamId)) <= 1) throw new ConflictError("a team keeps at least one owner");
  await db.transaction(async (tx) => {
    await tx.update(teamMembers).set({ role }).where(and(eq(teamMembers.teamId, caller.teamId), eq(teamMembers.userId, userId)));
    await recordAudit(tx, { teamId: caller.teamId, actor: actorOf(caller), action: "member.role", target: member.email, details: { from: member.role, to: role } });
  });
}

export async function removeMember({ db, caller, userId }: { db: Db; caller: Caller; userId: string }): Promise<void> {
  assertTeamWide(caller, "remove members");
  const member = await memberOf(db, caller.teamId, userId);
  assertMayGrant(caller, member.role);
  if (member.role === "owner" && (await ownerCount(db, caller.teamId)) <= 1) throw new ConflictError("a team keeps at least one owner");
  await db.transaction(async (tx) => {
    await tx.delete(teamMembers).where(and(eq(teamMembers.teamId, caller.teamId), eq(teamMembers.userId, userId)));
    await recordAudit(tx, { teamId: caller.teamId, actor: actorOf(caller), action: "member.remove", target: member.email, details: { role: member.role } });
  });
}
