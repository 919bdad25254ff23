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

/** A run that succeeded while an (advisory) stage failed. */
export function FlaggedBadge() {
  return (
    <span className={`${s.badge} ${s.flagged}`} title="Succeeded, but an advisory stage failed: see the stages" data-testid="flagged">
      <span aria-hidden="true">⚑</span> flagged
    </span>
  );
}
