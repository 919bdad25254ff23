import type { RunStatus, StageStatus } from "@/lib/stages";
import s from "./status.module.css";

const words: Record<StageStatus | RunStatus, string> = {
  queued: "queued",
  started: "started",
  succeeded: "succeeded",
  failed: "failed",
  skipped: "skipped",
  not_started: "not started",
};

/** A run's or a stage's status, in its colour; a started one pulses. */
export function StatusBadge({ status }: { status: RunStatus | StageStatus }) {
  return (
    <span className={`${s.badge} ${s[status]}`} data-status={status}>
      {status === "started" && <span className={s.dot} aria-hidden="true" />}
      {words[status]}
    </span>
  );
}

/** A run that succeeded while a stage failed (advisory, or its output not kept). */
export function FlaggedBadge() {
  return (
    <span className={`${s.badge} ${s.flagged}`} title="Succeeded, but a stage failed (an advisory one, or its output could not be kept): see the stages" data-testid="flagged">
      <span aria-hidden="true">⚑</span> flagged
    </span>
  );
}
