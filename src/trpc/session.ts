"use client";

import { useQuery } from "@tanstack/react-query";
import { roleAtLeast } from "@/lib/roles";
import { useTRPC } from "./client";
import { isUnauthorized } from "./errors";

/**
 * The instance and the person looking at it, as every page needs them: health (public) and
 * account.me (UNAUTHORIZED when nobody is signed in, which is a state here, not an error).
 */
export function useSession() {
  const trpc = useTRPC();
  const health = useQuery(trpc.system.health.queryOptions());
  const me = useQuery(trpc.account.me.queryOptions());
  const authOff = health.data?.auth === "off";
  return {
    health,
    me,
    authOff,
    needsFirstOwner: health.data?.needsFirstOwner === true,
    signedIn: me.isSuccess,
    signedOut: isUnauthorized(me.error),
    isAdmin: me.data ? roleAtLeast(me.data.role, "admin") : false,
  };
}
