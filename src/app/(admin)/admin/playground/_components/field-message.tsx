import type { ReactNode } from "react";
import { fieldError } from "@/trpc/errors";

/** A Field's hint: the server's complaint about that input when there is one (BAD_REQUEST names it), else the usual hint. */
export function fieldHint(error: unknown, field: string, usual?: ReactNode): ReactNode {
  const message = fieldError(error, field);
  if (!message) return usual;
  return (
    <span role="alert" className="error-text">
      {message}
    </span>
  );
}
