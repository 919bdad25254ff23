"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field } from "@/app/_components/field";
import { ErrorNote } from "@/app/_components/status";
import type { Role } from "@/lib/roles";
import { RoleSelect } from "../../../_components/role-select";
import { useTRPC } from "@/trpc/client";
import { useAllDatasets } from "@/trpc/datasets";

export function CreateKeyForm({ myRole, onCreated }: { myRole: Role; onCreated: (key: { name: string; secret: string }) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const datasets = useAllDatasets();
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [only, setOnly] = useState<string[]>([]);
  const create = useMutation(
    trpc.keys.create.mutationOptions({
      onSuccess: ({ key, secret }) => {
        onCreated({ name: key.name, secret });
        setName("");
        setOnly([]);
        void queryClient.invalidateQueries({ queryKey: trpc.keys.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.audit.pathKey() });
      },
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ name: name.trim(), role, datasets: only.length > 0 ? only : undefined });
  }

  return (
    <form className="form" onSubmit={submit}>
      <div className="row">
        <Field label="Name" grow>
          <input required maxLength={100} placeholder="e.g. support bot" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Role">
          {/* a key cannot have more rights than the person who makes it */}
          <RoleSelect value={role} upTo={myRole} onPick={setRole} />
        </Field>
      </div>
      <fieldset className="field">
        <legend>Datasets</legend>
        <p className="muted small">None ticked: the key reaches all datasets of the team, including later ones.</p>
        {datasets.isPending && <span className="muted">Loading datasets…</span>}
        {datasets.error && <ErrorNote error={datasets.error} action="list the datasets" />}
        {datasets.data?.length === 0 && <span className="muted">This team has no datasets yet.</span>}
        <div className="checks">
          {datasets.data?.map((d) => (
            <label key={d.id} className="check">
              <input
                type="checkbox"
                checked={only.includes(d.name)}
                onChange={(e) => setOnly(e.target.checked ? [...only, d.name] : only.filter((n) => n !== d.name))}
              />
              <code>{d.name}</code>
            </label>
          ))}
        </div>
      </fieldset>
      {create.error && <ErrorNote error={create.error} action="create the key" />}
      <button type="submit" className="button primary" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create key"}
      </button>
    </form>
  );
}
