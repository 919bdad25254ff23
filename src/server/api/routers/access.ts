import { listAudit } from "../../auth/audit";
import { createApiKey, listApiKeys, revokeApiKey } from "../../auth/keys";
import { AddMemberInput, AuditListInput, CreateKeyInput, CreateTeamInput, KeyIdInput, MemberInput, SetRoleInput } from "../../auth/schemas";
import { addMember, createTeam, listMembers, removeMember, setMemberRole, teamsOfUser } from "../../auth/teams";
import { adminProcedure, readProcedure, router } from "../trpc";

/** Who am I: the caller as the pages show it in their header. */
export const accountRouter = router({
  me: readProcedure.query(async ({ ctx }) => {
    const { caller } = ctx;
    const teams = caller.kind === "user" && caller.id ? await teamsOfUser(ctx.db, caller.id) : [];
    return { kind: caller.kind, label: caller.label, teamId: caller.teamId, role: caller.role, restricted: caller.datasetIds !== null, teams };
  }),
});

export const keysRouter = router({
  list: adminProcedure.query(({ ctx }) => listApiKeys({ db: ctx.db, caller: ctx.caller })),
  create: adminProcedure.input(CreateKeyInput).mutation(({ ctx, input }) => createApiKey({ db: ctx.db, caller: ctx.caller, input })),
  revoke: adminProcedure.input(KeyIdInput).mutation(({ ctx, input }) => revokeApiKey({ db: ctx.db, caller: ctx.caller, id: input.id })),
});

export const teamsRouter = router({
  /** an admin (a person, not a key) makes another team, of which they become the owner */
  // team administration (create, addMember, setRole, removeMember) is FORBIDDEN to a caller
  // restricted to some datasets: the verbs check it (assertTeamWide)
  create: adminProcedure.input(CreateTeamInput).mutation(({ ctx, input }) => createTeam({ db: ctx.db, caller: ctx.caller, name: input.name })),
  members: readProcedure.query(({ ctx }) => listMembers({ db: ctx.db, caller: ctx.caller })),
  addMember: adminProcedure
    .input(AddMemberInput)
    .mutation(({ ctx, input }) => addMember({ db: ctx.db, auth: ctx.app.auth, caller: ctx.caller, input })),
  setRole: adminProcedure
    .input(SetRoleInput)
    .mutation(({ ctx, input }) => setMemberRole({ db: ctx.db, caller: ctx.caller, userId: input.userId, role: input.role })),
  removeMember: adminProcedure
    .input(MemberInput)
    .mutation(({ ctx, input }) => removeMember({ db: ctx.db, caller: ctx.caller, userId: input.userId })),
});

export const auditRouter = router({
  list: adminProcedure.input(AuditListInput).query(({ ctx, input }) => listAudit({ db: ctx.db, scope: ctx.caller, cursor: input.cursor, limit: input.limit })),
});
