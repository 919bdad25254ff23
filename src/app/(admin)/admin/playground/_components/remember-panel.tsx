"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field } from "@/app/_components/field";
import { ErrorNote } from "@/app/_components/status";
import { useTRPC } from "@/trpc/client";
import { fieldError } from "@/trpc/errors";
import { useSession } from "@/trpc/session";
import styles from "../playground.module.css";
import { fieldHint } from "./field-message";
import { RunFollow } from "./run-follow";

/** the inputs of the form, by the names the server gives them in BAD_REQUEST's `field` */
const FIELDS = ["text", "source.speaker", "series", "occurredAt", "userId"] as const;
const ADVANCED: readonly string[] = FIELDS.slice(1);

/** Remember a text without waiting, then follow its run live. */
export function RememberPanel({ dataset }: { dataset: string }) {
  const trpc = useTRPC();
  const { me } = useSession();
  const [text, setText] = useState("");
  const [speaker, setSpeaker] = useState("");
  const [series, setSeries] = useState("");
  const [occurredAt, setOccurredAt] = useState("");
  const [userId, setUserId] = useState("");
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const [runId, setRunId] = useState<string | null>(null);
  const submit = useMutation(trpc.remember.submit.mutationOptions({ onSuccess: (r) => setRunId(r.rememberRunId) }));

  const errorAt = (field: string) => fieldError(submit.error, field);
  const fieldFailed = FIELDS.find((f) => errorAt(f) !== null);
  const advancedFailed = fieldFailed !== undefined && ADVANCED.includes(fieldFailed);

  function send(e: FormEvent) {
    e.preventDefault();
    submit.mutate({
      dataset,
      text,
      source: speaker.trim() ? { speaker: speaker.trim() } : undefined,
      series: series.trim() || undefined,
      // datetime-local is the reader's local time; the Date carries it over (superjson)
      occurredAt: occurredAt ? new Date(occurredAt) : undefined,
      userId: userId.trim() || undefined,
    });
  }

  return (
    <section className="card" aria-labelledby="remember-title">
      <h2 id="remember-title">Remember</h2>
      <p className="muted small">
        The text is queued and distilled into facts by the remember pipeline; its run is followed below.
        {me.data?.role === "viewer" && " Your role is viewer: you can ask, but remembering needs a member."}
      </p>
      <form className="form" onSubmit={send}>
        <Field label="Text" hint={fieldHint(submit.error, "text")}>
          <textarea
            required
            rows={4}
            className={styles.textarea}
            placeholder="e.g. Alice lives in Paris. Alice works at Acme."
            value={text}
            aria-invalid={errorAt("text") ? true : undefined}
            onChange={(e) => setText(e.target.value)}
          />
        </Field>
        <details className={styles.advanced} open={advancedOpen || advancedFailed} onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}>
          <summary>Source, series, time and person</summary>
          <div className="row">
            <Field label="Speaker" hint={fieldHint(submit.error, "source.speaker", "who said or wrote it")} grow>
              <input maxLength={200} value={speaker} aria-invalid={errorAt("source.speaker") ? true : undefined} onChange={(e) => setSpeaker(e.target.value)} />
            </Field>
            <Field label="Series" hint={fieldHint(submit.error, "series", "a chat session, a feed…")} grow>
              <input maxLength={200} value={series} aria-invalid={errorAt("series") ? true : undefined} onChange={(e) => setSeries(e.target.value)} />
            </Field>
          </div>
          <div className="row">
            <Field label="Occurred at" hint={fieldHint(submit.error, "occurredAt", "relative dates in the text are read against it")} grow>
              <input type="datetime-local" value={occurredAt} aria-invalid={errorAt("occurredAt") ? true : undefined} onChange={(e) => setOccurredAt(e.target.value)} />
            </Field>
            <Field label="User id" hint={fieldHint(submit.error, "userId", "the person the text is about, as your app names them")} grow>
              <input maxLength={200} value={userId} aria-invalid={errorAt("userId") ? true : undefined} onChange={(e) => setUserId(e.target.value)} />
            </Field>
          </div>
        </details>
        {submit.error && !fieldFailed && <ErrorNote error={submit.error} action="remember the text" />}
        <button type="submit" className="button primary" disabled={submit.isPending}>
          {submit.isPending ? "Queuing…" : "Remember"}
        </button>
      </form>
      {runId && <RunFollow key={runId} dataset={dataset} id={runId} />}
    </section>
  );
}
