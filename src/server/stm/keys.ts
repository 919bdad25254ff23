import type { Scope } from "./schemas";

/*
 * A scope's keys (the seed's dual-key scoping): every write goes to each of them.
 *   shortterm:user:<userId>:<channelId>[:<personaId>]      what one user said in a channel
 *   shortterm:server:<serverId>:<channelId>[:<personaId>]  the channel as all its users share it
 * A direct message (no serverId) has only the user key.
 */

export interface ScopeKey {
  key: string;
  kind: "user" | "server";
}

const persona = (scope: Scope) => (scope.personaId ? `:${scope.personaId}` : "");

export function userKey(scope: Scope): string {
  return `shortterm:user:${scope.userId}:${scope.channelId}${persona(scope)}`;
}

export function serverKey(scope: Scope & { serverId: string }): string {
  return `shortterm:server:${scope.serverId}:${scope.channelId}${persona(scope)}`;
}

/** The scope's keys: its user key, then its server key when it has a server. */
export function scopeKeys(scope: Scope): ScopeKey[] {
  const keys: ScopeKey[] = [{ key: userKey(scope), kind: "user" }];
  if (scope.serverId) keys.push({ key: serverKey({ ...scope, serverId: scope.serverId }), kind: "server" });
  return keys;
}

/** The key whose content is the scope's channel: the server key (all its users' turns) when there is one. */
export function channelKey(scope: Scope): ScopeKey {
  const keys = scopeKeys(scope);
  return keys[keys.length - 1]!;
}
