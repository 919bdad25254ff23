"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient, authErrorMessage } from "@/lib/auth-client";

export function SignOutButton() {
  const queryClient = useQueryClient();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        className="button small"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          const { error: failed } = await authClient().signOut();
          setBusy(false);
          if (failed) return setError(authErrorMessage(failed));
          // drop what the signed-in person could see, not just mark it stale
          await queryClient.resetQueries();
          router.push("/admin");
        }}
      >
        {busy ? "Signing out…" : "Sign out"}
      </button>
      {error && <span role="alert" className="error-text">{error}</span>}
    </>
  );
}
