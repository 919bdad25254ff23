import { createAuthClient } from "better-auth/react";

/*
 * better-auth's browser client for /api/auth (sign-up of the first owner, sign-in, sign-out).
 * Made on first use, in the browser: its base URL is the page's own origin, so the app works
 * at whatever address and port it is served on.
 */
let client: ReturnType<typeof createAuthClient> | undefined;

export function authClient() {
  client ??= createAuthClient({ baseURL: window.location.origin, basePath: "/api/auth" });
  return client;
}

/** better-auth answers `{ data, error }`; its error messages are fit to show. */
export function authErrorMessage(error: { message?: string; statusText?: string; status?: number } | null): string {
  return error?.message || error?.statusText || `request failed (${error?.status ?? "no answer"})`;
}

/** The team a person in several teams works in: the server reads this cookie (auth/request.ts). */
export function chooseTeam(teamId: string) {
  document.cookie = `gb_team=${encodeURIComponent(teamId)}; path=/; max-age=31536000; samesite=lax`;
}
