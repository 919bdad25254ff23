"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field } from "@/app/_components/field";
import { ErrorNote } from "@/app/_components/status";
import type { Role } from "@/lib/roles";
import { RoleSelect } from "../../../_components/role-select";
import { useTRPC } from "@/trpc/client";

export function AddMemberForm({ myRole }: { myRole: Role }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [added, setAdded] = useState<string | null>(null);
  const add = useMutation(
    trpc.teams.addMember.mutationOptions({
      onSuccess: (member) => {
        setAdded(member.email);
        setEmail("");
        setName("");
        setPassword("");
        void queryClient.invalidateQueries({ queryKey: trpc.teams.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.audit.pathKey() });
      },
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    setAdded(null);
    // an empty name is left out; the password is asked for every email (the answer does not say
    // whether the email had an account: one that had keeps its own name and password)
    add.mutate({ email: email.trim(), role, name: name.trim() || undefined, password });
  }

  return (
    <form className="form" onSubmit={submit}>
      <div className="row">
        <Field label="Email" grow>
          <input required type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Name" grow>
          <input maxLength={100} autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
      </div>
      <div className="row">
        <Field label="Initial password" grow hint="at least 8 characters; a person who already has an account keeps their own">
          <input required type="password" autoComplete="new-password" minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <Field label="Role">
          <RoleSelect value={role} upTo={myRole} onPick={setRole} />
        </Field>
      </div>
      {add.error && <ErrorNote error={add.error} action="add the member" />}
      {added && (
        <p className="note ok" role="status">
          Added {added}.
        </p>
      )}
      <button type="submit" className="button primary" disabled={add.isPending}>
        {add.isPending ? "Adding…" : "Add member"}
      </button>
    </form>
  );
}
