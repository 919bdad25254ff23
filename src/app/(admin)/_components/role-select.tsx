"use client";

import type { ComponentProps } from "react";
import { type Role, roleAtLeast, Roles } from "@/lib/roles";

/** A select of the roles up to `upTo` (nobody grants more than they have). */
export function RoleSelect({
  value,
  upTo,
  onPick,
  ...props
}: { value: Role; upTo: Role; onPick: (role: Role) => void } & Omit<ComponentProps<"select">, "value" | "onChange">) {
  return (
    <select {...props} value={value} onChange={(e) => onPick(e.target.value as Role)}>
      {Roles.filter((r) => roleAtLeast(upTo, r)).map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}
