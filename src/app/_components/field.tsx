"use client";

import { cloneElement, type ReactElement, type ReactNode, useId } from "react";

/**
 * A labelled input with an optional hint. The hint is tied to the input by aria-describedby,
 * outside the label, so the input's accessible name stays just its label.
 */
export function Field({ label, hint, grow, children }: { label: string; hint?: ReactNode; grow?: boolean; children: ReactElement<{ id?: string; "aria-describedby"?: string }> }) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className={grow ? "field grow" : "field"}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id, "aria-describedby": hint ? hintId : undefined })}
      {hint && (
        <small id={hintId} className="muted">
          {hint}
        </small>
      )}
    </div>
  );
}
