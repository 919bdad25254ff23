/** Team roles, weakest first: each can do what the ones before it can. */
export const Roles = ["viewer", "member", "admin", "owner"] as const;
export type Role = (typeof Roles)[number];

export function roleAtLeast(role: Role, needed: Role): boolean {
  return Roles.indexOf(role) >= Roles.indexOf(needed);
}
