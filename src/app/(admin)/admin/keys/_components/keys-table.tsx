"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Empty, ErrorNote } from "@/app/_components/status";
import { formatWhen, keyHint } from "@/lib/format";
import { useTRPC } from "@/trpc/client";
import type { RouterOutputs } from "@/trpc/types";
import { ConfirmButton } from "../../../_components/confirm-button";

type Key = RouterOutputs["keys"]["list"][number];

export function KeysTable({ keys }: { keys: Key[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(
    trpc.keys.revoke.mutationOptions({
      onSettled: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.keys.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.audit.pathKey() });
      },
    }),
  );
  if (keys.length === 0) return <Empty>No keys yet. Create one above and give it to the application that calls gligabao.</Empty>;
  return (
    <>
      {revoke.error && <ErrorNote error={revoke.error} action="revoke the key" />}
      <div className="table-wrap">
        <table className="stack" data-testid="keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Role</th>
              <th scope="col">Datasets</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} className={k.revokedAt ? "revoked" : undefined}>
                <td className="name" data-label="Name">
                  {k.name}
                </td>
                <td data-label="Key">
                  <code className="nowrap">{keyHint(k.prefix)}</code>
                </td>
                <td data-label="Role">{k.role}</td>
                <td data-label="Datasets">{k.datasets ? k.datasets.join(", ") : <span className="muted nowrap">all datasets</span>}</td>
                <td data-label="Created">
                  <span className="nowrap">{formatWhen(k.createdAt)}</span>
                  {k.createdBy && <span className="sub muted">by {k.createdBy}</span>}
                </td>
                <td className="nowrap" data-label="Last used">
                  {formatWhen(k.lastUsedAt)}
                </td>
                <td data-label="Status">
                  {k.revokedAt ? (
                    <span className="status revoked" title={`revoked ${formatWhen(k.revokedAt)}`}>
                      revoked
                    </span>
                  ) : (
                    <span className="status active">active</span>
                  )}
                </td>
                <td className="actions">
                  {!k.revokedAt && (
                    <ConfirmButton
                      label="Revoke"
                      question={`Revoke “${k.name}”?`}
                      confirmLabel="Yes, revoke"
                      busy={revoke.isPending && revoke.variables.id === k.id}
                      onConfirm={() => revoke.mutate({ id: k.id })}
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
