"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { ErrorNote, Loading } from "@/app/_components/status";
import { isUnauthorized } from "@/trpc/errors";
import { useSession } from "@/trpc/session";
import { NEXT_AFTER_SIGN_IN } from "./_components/after-sign-in";
import { FirstOwnerForm } from "./_components/first-owner-form";
import { SignInForm } from "./_components/sign-in-form";

/** Signed in: /admin is the remember run view (or where the first-owner form asked to go). */
function ToRuns() {
  const router = useRouter();
  useEffect(() => {
    const next = window.sessionStorage.getItem(NEXT_AFTER_SIGN_IN);
    window.sessionStorage.removeItem(NEXT_AFTER_SIGN_IN);
    router.replace(next?.startsWith("/admin/") ? next : "/admin/remember");
  }, [router]);
  return <Loading />;
}

/** /admin: make the first owner, sign in, or (signed in) go to the run views. */
export function AdminHome() {
  const { health, me } = useSession();
  if (health.isPending) return <main><Loading /></main>;
  if (health.error) return <main><ErrorNote error={health.error} action="reach the server" /></main>;
  if (health.data.needsFirstOwner) return <main className="narrow"><FirstOwnerForm /></main>;
  if (me.isPending) return <main><Loading /></main>;
  if (isUnauthorized(me.error)) return <main className="narrow"><SignInForm /></main>;
  if (me.error) return <main><ErrorNote error={me.error} action="load your account" /></main>;
  return <main><ToRuns /></main>;
}
