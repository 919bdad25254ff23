"use client";

import { useState } from "react";

/**
 * A destructive action in two steps: the button asks, then "Yes" does it. Keyboard focus moves
 * to the confirming button, so Enter twice is a deliberate act and Escape backs out.
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  busy,
  onConfirm,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="button small danger-outline" onClick={() => setAsking(true)} disabled={busy}>
        {busy ? "Working…" : label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question} onKeyDown={(e) => e.key === "Escape" && setAsking(false)}>
      <span>{question}</span>
      <button
        type="button"
        className="button small danger"
        autoFocus
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="button small" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
