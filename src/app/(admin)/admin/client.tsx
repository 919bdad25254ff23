"use client";

import { ErrorNote, Loading } from "@/app/_components/status";
import { isUnauthorized } from "@/trpc/errors";
import { useSession } from "@/trpc/session";
import { FirstOwnerForm } from "./_components/first-owner-form";
import { Overview } from "./_components/overview";
import { SignInForm } from "./_components/sign-in-form";

/**
 * /admin: make the first owner, sign in, or (signed in) a short overview.
 * Issue #6 will send a signed-in person from here to the run views instead of the overview.
 */
export function AdminHome() {
  const { health, me } = useSession();
  if (health.isPending) return <main><Loading /></main>;
  if (health.error) return <main><ErrorNote error={health.error} action="reach the server" /></main>;
  if (health.data.needsFirstOwner) return <main className="narrow"><FirstOwnerForm /></main>;
  if (me.isPending) return <main><Loading /></main>;
  if (isUnauthorized(me.error)) return <main className="narrow"><SignInForm /></main>;
  if (me.error) return <main><ErrorNote error={me.error} action="load your account" /></main>;
  return <main><Overview me={me.data} /></main>;
}
