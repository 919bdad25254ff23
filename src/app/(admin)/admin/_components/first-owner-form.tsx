"use client";

import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field } from "@/app/_components/field";
import { authClient, authErrorMessage } from "@/lib/auth-client";
import { NEXT_AFTER_SIGN_IN } from "./after-sign-in";

const MIN_PASSWORD = 8;

/** A new instance has no account: the first one made becomes the owner of the default team. */
export function FirstOwnerForm() {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (password.length < MIN_PASSWORD) return setError(`The password needs at least ${MIN_PASSWORD} characters.`);
    if (password !== confirm) return setError("The two passwords differ.");
    setError(null);
    setBusy(true);
    // sign-up signs the new owner in (autoSignIn), so the keys page opens signed in
    const { error: failed } = await authClient().signUp.email({ name: name.trim(), email: email.trim(), password });
    if (failed) {
      setBusy(false);
      return setError(authErrorMessage(failed));
    }
    // /admin, now signed in, sends the new owner on: to the keys page, to make the first key
    window.sessionStorage.setItem(NEXT_AFTER_SIGN_IN, "/admin/keys");
    await queryClient.invalidateQueries();
  }

  return (
    <form className="card form" onSubmit={submit} aria-labelledby="first-owner-title">
      <h1 id="first-owner-title">Create the first owner</h1>
      <p className="muted">
        This instance has no account yet. The account you make now owns the default team; after it, people join when an admin adds them.
      </p>
      <Field label="Name">
        <input required autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field label="Email">
        <input required type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
      <Field label="Password" hint={<>at least {MIN_PASSWORD} characters</>}>
        <input required type="password" autoComplete="new-password" minLength={MIN_PASSWORD} value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
      <Field label="Confirm password">
        <input required type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
      </Field>
      {error && <p role="alert" className="note error">{error}</p>}
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? "Creating…" : "Create the owner"}
      </button>
    </form>
  );
}
