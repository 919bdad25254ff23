import { z } from "zod";
import { text } from "../input";
import { Roles } from "../../lib/roles";
import { DatasetName } from "../datasets/schemas";

export const Role = z.enum(Roles);

export const CreateKeyInput = z
  .object({
    name: text().trim().min(1).max(100),
    role: Role.default("member"),
    /** restrict the key to these datasets of the team; omitted = all of them */
    datasets: z.array(DatasetName).min(1).max(100).optional(),
  })
  .strict();
export type CreateKeyInput = z.infer<typeof CreateKeyInput>;

export const KeyIdInput = z.object({ id: z.uuid() }).strict();

export const AddMemberInput = z
  .object({
    email: text(z.email()),
    /** for a new account: its name and first password (an existing account keeps its own) */
    name: text().trim().min(1).max(100).optional(),
    /**
     * required even when the email has an account already (which keeps its own password):
     * asking only for new accounts would tell whether the email has one
     */
    password: text().min(8).max(128),
    role: Role,
  })
  .strict();
export type AddMemberInput = z.infer<typeof AddMemberInput>;

export const SetRoleInput = z.object({ userId: text().min(1).max(100), role: Role }).strict();
export const MemberInput = z.object({ userId: text().min(1).max(100) }).strict();
export const CreateTeamInput = z.object({ name: text().trim().min(1).max(100) }).strict();

export const AuditListInput = z
  .object({
    cursor: text().max(500).optional(),
    limit: z.number().int().min(1).max(200).default(50),
    /** sent by TanStack's infinite queries; pages only go forward */
    direction: z.enum(["forward", "backward"]).optional(),
  })
  .strict();
