import { type SQL, sql } from "drizzle-orm";
import type { Role } from "../../lib/roles";
import { DEFAULT_TEAM_ID } from "../db/schema/access";
import { ForbiddenError } from "../errors";

/**
 * Who is calling, resolved once per request (context.ts) and narrowed to non-null by the
 * `authed` middleware. Every verb that reads or writes a dataset takes it as its Scope.
 */
export interface Caller {
  kind: "user" | "key" | "local";
  /** the user's id, the key's id; null for the local (GB_AUTH=off) caller */
  id: string | null;
  /** an email, a key's name and prefix, or "local" */
  label: string;
  teamId: string;
  role: Role;
  /** a key restricted to some datasets; null = every dataset of the team */
  datasetIds: readonly string[] | null;
}

/** What a verb needs to know to keep to the caller's datasets. */
export type Scope = Pick<Caller, "teamId" | "datasetIds">;

/** The id kept in run logs' user_id and the audit log: "user:…", "key:…" or "local". */
export function actorId(caller: Caller): string {
  return caller.kind === "local" ? "local" : `${caller.kind}:${caller.id}`;
}

export function inScope(scope: Scope, datasetId: string): boolean {
  return scope.datasetIds === null || scope.datasetIds.includes(datasetId);
}

/**
 * A caller restricted to some datasets administers nothing of the team as a whole (members,
 * roles, teams): it could otherwise give itself, or a person it makes, what it was kept from.
 */
export function assertTeamWide(caller: Caller, what: string): void {
  if (caller.datasetIds !== null) throw new ForbiddenError(`a key restricted to some datasets cannot ${what}; use an unrestricted key or sign in`);
}

/** A uuid[] parameter (drizzle's sql`` would spread a JS array into a list). */
export function uuidArray(ids: readonly string[]): SQL {
  return sql`ARRAY[${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )}]::uuid[]`;
}

/** Everyone with GB_AUTH=off, and scripts run on the machine: the default team's owner. */
export const LOCAL_CALLER: Caller = { kind: "local", id: null, label: "local", teamId: DEFAULT_TEAM_ID, role: "owner", datasetIds: null };
