import http from "node:http";
import { isIP } from "node:net";

/*
 * Who the client is, for the sign-in limit and the audit log. A route handler sees a Request,
 * which carries no socket: Next fills X-Forwarded-For with the connection's address only when
 * the client sent none, so a client could name any address it liked and get a fresh sign-in
 * budget on every try. So the app stamps every incoming request, before Next sees it, with the
 * address it decided on (CLIENT_ADDRESS_HEADER, overwriting anything the client sent by that
 * name), and better-auth reads only that header.
 */

/** The header the stamp writes and better-auth's rate limit reads. */
export const CLIENT_ADDRESS_HEADER = "x-gb-client-address";

/**
 * The client's address from the connection's (`peer`) and the X-Forwarded-For it came with:
 * with `trustProxies` = n, the address n hops left of the connection in the chain
 * "forwarded…, peer" (each trusted proxy appends the address it heard from). Without enough
 * hops, or with a hop that is not an address, the leftmost address a trusted proxy vouches for.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trustProxies: number): string | null {
  const forwarded = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? ""))
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const chain = peer ? [...forwarded, peer] : [];
  let at = chain.length - 1;
  for (let hop = 0; hop < trustProxies && at > 0; hop += 1) {
    if (isIP(chain[at - 1]!) === 0) break;
    at -= 1;
  }
  return at >= 0 ? chain[at]! : null;
}

const STAMPED = Symbol.for("gligabao.clientAddressStamp");

/**
 * Stamp every request an http.Server of this process receives with its client's address. Called
 * once at start-up (instrumentation.ts), before Next answers anything; idempotent.
 */
export function installClientAddressStamp(trustProxies: number): void {
  const proto = http.Server.prototype as http.Server & { [STAMPED]?: true };
  if (proto[STAMPED]) return;
  proto[STAMPED] = true;
  const emit = proto.emit;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const req = args[0] as http.IncomingMessage;
      const address = clientAddress(req.socket?.remoteAddress, req.headers["x-forwarded-for"], trustProxies);
      if (address) req.headers[CLIENT_ADDRESS_HEADER] = address;
      else delete req.headers[CLIENT_ADDRESS_HEADER];
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof proto.emit;
}
