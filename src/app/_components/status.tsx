import Link from "next/link";
import type { ReactNode } from "react";
import { errorCode, errorMessage } from "@/trpc/errors";

/** The loading, error and empty states every view shows the same way. */

export function Loading({ children = "Loading…" }: { children?: ReactNode }) {
  return (
    <p className="muted loading" aria-live="polite">
      {children}
    </p>
  );
}

/** An API error, said for what it means to the reader: not signed in, not allowed, or the message. */
export function ErrorNote({ error, action }: { error: unknown; action?: string }) {
  const code = errorCode(error);
  if (code === "UNAUTHORIZED") {
    return (
      <p role="alert" className="note warn">
        You are not signed in. <Link href="/admin">Sign in</Link> to {action ?? "see this page"}.
      </p>
    );
  }
  return (
    <p role="alert" className="note error">
      {code === "FORBIDDEN" ? "Not allowed: " : action ? `Could not ${action}: ` : ""}
      {errorMessage(error)}
      {code === "FORBIDDEN" && ". Ask an admin or owner of your team."}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty muted">{children}</p>;
}
