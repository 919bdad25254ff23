"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field } from "@/app/_components/field";
import { ErrorNote } from "@/app/_components/status";
import { useTRPC } from "@/trpc/client";
import { fieldError } from "@/trpc/errors";
import styles from "../playground.module.css";
import { Answer } from "./answer";
import { fieldHint } from "./field-message";

const FIELDS = ["question", "asOf", "limit"] as const;

/** Ask the dataset a question; the answer comes with the sources it cites. */
export function AskPanel({ dataset }: { dataset: string }) {
  const trpc = useTRPC();
  const [question, setQuestion] = useState("");
  const [asOf, setAsOf] = useState("");
  const [limit, setLimit] = useState("10");
  const ask = useMutation(trpc.query.ask.mutationOptions());
  const fieldFailed = FIELDS.find((f) => fieldError(ask.error, f) !== null);
  const [advancedOpen, setAdvancedOpen] = useState(false);

  function send(e: FormEvent) {
    e.preventDefault();
    ask.mutate({ dataset, question, asOf: asOf ? new Date(asOf) : undefined, limit: limit ? Number(limit) : undefined });
  }

  return (
    <section className="card" aria-labelledby="ask-title">
      <h2 id="ask-title">Ask</h2>
      <p className="muted small">The query pipeline finds the facts and summaries that match and answers from them, citing each as [n].</p>
      <form className="form" onSubmit={send}>
        <div className={styles.askRow}>
          <Field label="Question" hint={fieldHint(ask.error, "question")} grow>
            <input
              required
              maxLength={4000}
              placeholder="e.g. Where does Alice live?"
              value={question}
              aria-invalid={fieldFailed === "question" ? true : undefined}
              onChange={(e) => setQuestion(e.target.value)}
            />
          </Field>
          <button type="submit" className="button primary" disabled={ask.isPending}>
            {ask.isPending ? "Asking…" : "Ask"}
          </button>
        </div>
        <details className={styles.advanced} open={advancedOpen || (fieldFailed !== undefined && fieldFailed !== "question")} onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}>
          <summary>Time and number of sources</summary>
          <div className="row">
            <Field label="As of" hint={fieldHint(ask.error, "asOf", "answer from the facts that held then (empty: now)")} grow>
              <input type="datetime-local" value={asOf} aria-invalid={fieldFailed === "asOf" ? true : undefined} onChange={(e) => setAsOf(e.target.value)} />
            </Field>
            <Field label="Sources" hint={fieldHint(ask.error, "limit", "the most sources given to the model, 1 to 50")}>
              <input type="number" min={1} max={50} value={limit} aria-invalid={fieldFailed === "limit" ? true : undefined} onChange={(e) => setLimit(e.target.value)} />
            </Field>
          </div>
        </details>
        {ask.error && !fieldFailed && <ErrorNote error={ask.error} action="ask" />}
      </form>
      {ask.data && <Answer dataset={dataset} result={ask.data} />}
    </section>
  );
}
