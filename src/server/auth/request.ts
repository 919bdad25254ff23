import type { App } from "../app";
import { type Caller, LOCAL_CALLER } from "./caller";
import { callerForKey } from "./keys";
import { teamsOfUser } from "./teams";

/** The header (or cookie) a signed-in person who is in several teams names the team with. */
export const TEAM_HEADER = "x-gb-team";
export const TEAM_COOKIE = "gb_team";


function cookie(headers: Headers, name: string): string | null {
  for (const part of (headers.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join("="));
    } catch {
      return null; // a malformed escape (%E0%A4%A) names no team
    }
  }
  return null;
}

/**
 * Who sent the request: an API key (Authorization: Bearer), else a session cookie, else nobody
 * (null). A bearer that is not a valid key is nobody too: it never falls back to the cookie.
 */
export async function callerFromRequest(app: App, headers: Headers): Promise<Caller | null> {
  if (app.env.GB_AUTH === "off") return LOCAL_CALLER;
  const authorization = headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    return match?.[1] ? callerForKey(app.database.db, match[1]) : null;
  }
  if (!headers.get("cookie")) return null;
  const session = await app.auth.api.getSession({ headers });
  if (!session) return null;
  const teams = await teamsOfUser(app.database.db, session.user.id);
  const wanted = headers.get(TEAM_HEADER) ?? cookie(headers, TEAM_COOKIE);
  const team = teams.find((t) => t.id === wanted) ?? teams[0];
  if (!team) return null;
  return { kind: "user", id: session.user.id, label: session.user.email, teamId: team.id, role: team.role, datasetIds: null };
}
