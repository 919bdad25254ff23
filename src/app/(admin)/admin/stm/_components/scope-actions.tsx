"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorNote } from "@/app/_components/status";
import { channelLabel, clearChannelInput, clearedNote, clearUserInput, forgettableUsers } from "@/lib/stm-view";
import { useTRPC } from "@/trpc/client";
import type { RouterOutputs } from "@/trpc/types";
import { ConfirmButton } from "../../../_components/confirm-button";
import styles from "../stm.module.css";

type Scope = RouterOutputs["stm"]["entry"];

/**
 * The open key's two deletions, each confirmed: its channel reset (every key of the channel, for
 * all its users) and one of its users forgotten in this dataset (their keys and the server keys
 * they wrote to). `onCleared` gets a sentence saying what went, and the keys deleted.
 */
export function ScopeActions({ dataset, scope, onCleared }: { dataset: string; scope: Scope; onCleared: (note: string, keys: string[]) => void }) {
  const trpc = useTRPC();
  const channel = channelLabel(scope);
  const reset = useMutation(trpc.stm.clearChannel.mutationOptions({ onSuccess: (r) => onCleared(clearedNote(`Reset ${channel}`, r), r.keys) }));
  const forget = useMutation(trpc.stm.clearUser.mutationOptions({ onSuccess: (r, v) => onCleared(clearedNote(`Forgot ${v.userId}`, r), r.keys) }));
  const users = forgettableUsers(scope);
  const [who, setWho] = useState(users[0] ?? "");
  return (
    <>
      <div className={styles.actions} data-testid="stm-actions">
        <span className={styles.action}>
          <ConfirmButton
            label="Reset channel"
            question={`Reset ${channel}? Every key of it is deleted, for all its users.`}
            confirmLabel="Yes, reset"
            busy={reset.isPending}
            onConfirm={() => reset.mutate(clearChannelInput(dataset, scope))}
          />
        </span>
        {users.length > 0 && (
          <span className={styles.action}>
            {users.length > 1 ? (
              <select aria-label="User to forget" value={who} onChange={(e) => setWho(e.target.value)}>
                {users.map((u) => (
                  <option key={u}>{u}</option>
                ))}
              </select>
            ) : (
              <span className="small">user {who}</span>
            )}
            <ConfirmButton
              label="Forget user"
              question={`Forget ${who} in ${dataset}? Their keys and the server keys they wrote to are deleted.`}
              confirmLabel="Yes, forget"
              busy={forget.isPending}
              onConfirm={() => forget.mutate(clearUserInput(dataset, who))}
            />
          </span>
        )}
      </div>
      {reset.error && <ErrorNote error={reset.error} action="reset the channel" />}
      {forget.error && <ErrorNote error={forget.error} action="forget the user" />}
    </>
  );
}
