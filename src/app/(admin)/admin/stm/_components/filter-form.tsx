"use client";

import { type FormEvent, useState } from "react";
import { Field } from "@/app/_components/field";
import { filterProblems, NO_FILTER, type StmFilter } from "@/lib/stm-view";
import styles from "../stm.module.css";

const FIELDS: { name: keyof StmFilter; label: string }[] = [
  { name: "userId", label: "User" },
  { name: "serverId", label: "Server" },
  { name: "channelId", label: "Channel" },
];

/** User, server and channel ids, as the chat app names them; all empty lists every key. */
export function FilterForm({ filter, onFind }: { filter: StmFilter; onFind: (filter: StmFilter) => void }) {
  const [typed, setTyped] = useState(filter);
  const [checked, setChecked] = useState(false);
  const problems = checked ? filterProblems(typed) : {};

  function submit(e: FormEvent) {
    e.preventDefault();
    setChecked(true);
    if (Object.keys(filterProblems(typed)).length === 0) onFind(typed);
  }

  return (
    <form className={styles.filter} onSubmit={submit} role="search" aria-label="Find keys">
      {FIELDS.map(({ name, label }) => (
        <Field key={name} label={label} hint={problems[name] && <span className="error-text">{problems[name]}</span>}>
          <input
            value={typed[name]}
            placeholder="any"
            autoComplete="off"
            spellCheck={false}
            aria-invalid={problems[name] ? true : undefined}
            onChange={(e) => setTyped({ ...typed, [name]: e.target.value })}
          />
        </Field>
      ))}
      <div className={styles.filterButtons}>
        <button type="submit" className="button primary">
          Find
        </button>
        <button type="button" className="button" onClick={() => {
            setTyped(NO_FILTER);
            onFind(NO_FILTER);
          }}>
          Clear
        </button>
      </div>
    </form>
  );
}
