import { compactJson, formatWhen } from "@/lib/format";
import type { RouterOutputs } from "@/trpc/types";

type Event = RouterOutputs["audit"]["list"]["items"][number];

export function AuditTable({ items }: { items: Event[] }) {
  return (
    <div className="table-wrap">
      <table className="stack" data-testid="audit">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {items.map((e) => {
            const details = compactJson(e.details);
            return (
              <tr key={e.id}>
                <td className="nowrap" data-label="When" title={e.at.toISOString()}>
                  {formatWhen(e.at)}
                </td>
                <td data-label="Who">
                  {e.actorLabel} <span className="muted small">({e.actorKind})</span>
                </td>
                <td data-label="Action">
                  <code>{e.action}</code>
                </td>
                <td data-label="Target">{e.target ?? <span className="muted">—</span>}</td>
                <td className="details" data-label="Details">{details ? <code>{details}</code> : null}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
