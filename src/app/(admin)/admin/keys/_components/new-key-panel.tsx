"use client";

import { useState } from "react";

/** The one time a key's secret is shown: the server keeps only its hash. */
export function NewKeyPanel({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  return (
    <section className="card new-key" aria-labelledby="new-key-title" role="region">
      <h2 id="new-key-title">New key “{name}”</h2>
      <p>
        <strong>Copy it now: it will not be shown again.</strong> Only a hash of it is kept; if it is lost, revoke it and make another.
      </p>
      <div className="secret-row">
        <code className="secret" data-testid="new-key-secret">
          {secret}
        </code>
        <button
          type="button"
          className="button primary"
          onClick={() =>
            navigator.clipboard.writeText(secret).then(
              () => setCopied("yes"),
              () => setCopied("failed"),
            )
          }
        >
          Copy
        </button>
      </div>
      <p className="muted small" aria-live="polite">
        {copied === "yes" && "Copied to the clipboard."}
        {copied === "failed" && "The browser did not allow copying: select the key and copy it by hand."}
      </p>
      <button type="button" className="button" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}
