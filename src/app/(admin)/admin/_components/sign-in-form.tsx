"use client";

import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field } from "@/app/_components/field";
import { authClient, authErrorMessage } from "@/lib/auth-client";

export function SignInForm() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setBusy(true);
    const { error: failed } = await authClient().signIn.email({ email: email.trim(), password });
    if (failed) {
      setBusy(false);
      setPassword("");
      return setError(failed.status === 401 ? "Wrong email or password." : authErrorMessage(failed));
    }
    // the session cookie is set: everything on the page is asked for again, as this person
    await queryClient.invalidateQueries();
    setBusy(false);
  }

  return (
    <form className="card form" onSubmit={submit} aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <p className="muted">Sign in to manage this team&apos;s API keys, members and audit log.</p>
      <Field label="Email">
        <input required type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
      <Field label="Password">
        <input required type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
      {error && <p role="alert" className="note error">{error}</p>}
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
      <p className="muted small">No account? An admin of your team adds people from the Members page.</p>
    </form>
  );
}
