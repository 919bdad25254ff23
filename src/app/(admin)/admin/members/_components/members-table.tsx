"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Empty, ErrorNote } from "@/app/_components/status";
import { formatWhen } from "@/lib/format";
import { type Role, roleAtLeast } from "@/lib/roles";
import { RoleSelect } from "../../../_components/role-select";
import { useTRPC } from "@/trpc/client";
import type { RouterOutputs } from "@/trpc/types";
import { ConfirmButton } from "../../../_components/confirm-button";

type Member = RouterOutputs["teams"]["members"][number];
type Me = RouterOutputs["account"]["me"];

export function MembersTable({ members, me, canManage }: { members: Member[]; me: Me; canManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = {
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: trpc.teams.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.account.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.audit.pathKey() });
    },
  };
  const setRole = useMutation(trpc.teams.setRole.mutationOptions(refresh));
  const remove = useMutation(trpc.teams.removeMember.mutationOptions(refresh));
  // one of the two failed last: say which, with the server's reason
  const failure = setRole.error ? { error: setRole.error, action: "change the role" } : remove.error ? { error: remove.error, action: "remove the member" } : null;
  // a person may give, and take away, only roles up to their own
  const mayTouch = (role: Role) => canManage && roleAtLeast(me.role, role);

  if (members.length === 0) return <Empty>Nobody is in this team yet. Add someone below.</Empty>;
  return (
    <>
      {failure && <ErrorNote error={failure.error} action={failure.action} />}
      <div className="table-wrap">
        <table className="stack" data-testid="members">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Member since</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.userId}>
                <td className="name" data-label="Name">
                  {m.name} {m.email === me.label && <span className="badge">you</span>}
                </td>
                <td data-label="Email">{m.email}</td>
                <td data-label="Role">
                  {mayTouch(m.role) ? (
                    <RoleSelect
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      upTo={me.role}
                      disabled={setRole.isPending}
                      onPick={(role) => {
                        remove.reset();
                        setRole.mutate({ userId: m.userId, role });
                      }}
                    />
                  ) : (
                    m.role
                  )}
                </td>
                <td className="nowrap" data-label="Member since">
                  {formatWhen(m.since)}
                </td>
                <td className="actions">
                  {mayTouch(m.role) && (
                    <ConfirmButton
                      label="Remove"
                      question={`Remove ${m.email} from the team?`}
                      confirmLabel="Yes, remove"
                      busy={remove.isPending && remove.variables.userId === m.userId}
                      onConfirm={() => {
                        setRole.reset();
                        remove.mutate({ userId: m.userId });
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
