import { formatDuration } from "@/lib/runs";
import type { RouterOutputs } from "@/trpc/types";
import { StatusBadge } from "../../../_components/runs/status-badge";
import styles from "../playground.module.css";

type Stage = RouterOutputs["runs"]["remember"]["get"]["stages"][number];

/** A compact view of a run's stages in pipeline order (the run page has the full table); stages not run are dimmed. */
export function StageList({ stages }: { stages: Stage[] }) {
  return (
    <ol className={styles.stages} data-testid="run-stages">
      {stages.map((s) => (
        <li key={s.name} className={s.status === "not_started" || s.status === "skipped" ? styles.idle : undefined}>
          <code>{s.name}</code>
          <StatusBadge status={s.status} />
          <span className={`muted small ${styles.duration}`}>{s.durationMs === null ? "" : formatDuration(s.durationMs)}</span>
          {s.error && <span className={`error-text ${styles.stageError}`}>{s.error}</span>}
        </li>
      ))}
    </ol>
  );
}
