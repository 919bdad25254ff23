"use client";

import type { RunDetail } from "./api";
import s from "./run.module.css";
import { Time } from "./time";

/** What ended an attempt, in words. */
const ENDED: Record<RunDetail["attempts"][number]["kind"], string> = {
  abandoned: "its process stopped",
  transient: "an outage, tried again",
  permanent: "failed",
  handed_back: "handed back at shutdown",
};

/**
 * A remember run's earlier attempts: a crash, an outage or a shutdown queues a run again, and
 * the next attempt resumes from the chunks already stored. Nothing for a run that ran once.
 */
export function Attempts({ run }: { run: RunDetail }) {
  if (run.attempts.length === 0) return null;
  const waiting = run.status === "queued" && run.retryAt !== null;
  return (
    <div className={s.attempts} data-testid="run-attempts">
      <p>
        {run.status === "succeeded" && <>Succeeded on attempt {run.attempt}. </>}
        {waiting && (
          <>
            Queued again: the next attempt starts at <Time date={run.retryAt} />.{" "}
          </>
        )}
        {run.status === "queued" && !waiting && <>Queued again: the next attempt starts when its turn comes. </>}
        Earlier attempts:
      </p>
      <ol>
        {run.attempts.map((a) => (
          <li key={a.attempt} data-kind={a.kind}>
            Attempt {a.attempt} · {ENDED[a.kind]} · <Time date={new Date(a.at)} />: <span className={s.attemptError}>{a.error}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}
