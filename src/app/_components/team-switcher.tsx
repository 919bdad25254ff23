"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { chooseTeam } from "@/lib/auth-client";

/**
 * For a person in several teams: the server reads the chosen team from a cookie. Every query is
 * reset, not just invalidated: another team's data must not linger on screen, and invalidating
 * would let a first fetch still in flight (made with the old cookie) stand as the answer.
 */
export function TeamSwitcher({ teams, current }: { teams: { id: string; name: string; role: string }[]; current: string }) {
  const queryClient = useQueryClient();
  const id = useId();
  return (
    <span className="team-switcher">
      <label htmlFor={id} className="sr-only">
        Team
      </label>
      <select
        id={id}
        value={current}
        onChange={(e) => {
          chooseTeam(e.target.value);
          void queryClient.resetQueries();
        }}
      >
        {teams.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name} ({t.role})
          </option>
        ))}
      </select>
    </span>
  );
}
