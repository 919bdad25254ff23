import { Empty } from "@/app/_components/status";
import { formatWhen } from "@/lib/format";
import { versionHistory } from "@/lib/stm-view";
import type { RouterOutputs } from "@/trpc/types";
import styles from "../stm.module.css";

type Version = RouterOutputs["stm"]["entry"]["versions"][number];

/** Every upgrade of the key, newest first, each marked with what changed since the one before. */
export function HistoryTable({ versions }: { versions: Version[] }) {
  if (versions.length === 0) return <Empty>Never upgraded: the chat model has not written a summary or categories yet.</Empty>;
  return (
    <div className="table-wrap">
      <table className={`stack ${styles.history}`} data-testid="stm-versions">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Summary</th>
            <th scope="col">Categories</th>
            <th scope="col">Turn</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {versionHistory(versions).map((v) => (
            <tr key={v.version}>
              <td data-label="Version">{v.version}</td>
              <td data-label="Summary" className={styles.historySummary}>
                {v.summary ?? <span className="muted">none</span>}
                {v.summaryChanged && <span className={styles.change}>changed</span>}
              </td>
              <td data-label="Categories">
                {v.lines.length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  <ul className={styles.lines}>
                    {v.lines.map((l) => (
                      <li key={l.name} className={l.change === "removed" ? styles.removed : undefined}>
                        {l.name}: {l.value}
                        {l.change && <span className={styles.change}>{l.change}</span>}
                      </li>
                    ))}
                  </ul>
                )}
              </td>
              <td data-label="Turn">
                <code>{v.turnId}</code>
                <span className="sub muted">by {v.userId}</span>
              </td>
              <td data-label="When" className="nowrap">
                {formatWhen(v.at)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
