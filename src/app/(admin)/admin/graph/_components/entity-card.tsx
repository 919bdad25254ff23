import Link from "next/link";
import { rememberRunHref } from "@/lib/admin-links";
import { formatWhen } from "@/lib/format";
import type { RouterOutputs } from "@/trpc/types";
import styles from "../graph.module.css";

type Entity = RouterOutputs["graph"]["entity"]["entity"];

export function EntityCard({ dataset, entity }: { dataset: string; entity: Entity }) {
  return (
    <section className="card" aria-labelledby="entity-title">
      <div className={styles.entityHead}>
        <h2 id="entity-title" data-testid="entity-name">
          {entity.name}
        </h2>
        <span className="badge">{entity.type}</span>
      </div>
      {entity.summary && <p className={styles.summary}>{entity.summary}</p>}
      <dl className="facts">
        <dt>Aliases</dt>
        <dd>{entity.aliases.length > 0 ? entity.aliases.join(", ") : <span className="muted">none</span>}</dd>
        <dt>First remembered</dt>
        <dd>
          {formatWhen(entity.createdAt)}
          {entity.createdRunId && (
            <>
              {" "}
              by <Link href={rememberRunHref(dataset, entity.createdRunId)}>run {entity.createdRunId.slice(0, 8)}</Link>
            </>
          )}
        </dd>
        {entity.lat !== null && entity.lon !== null && (
          <>
            <dt>Place</dt>
            <dd data-testid="entity-place">
              {entity.lat.toFixed(4)}, {entity.lon.toFixed(4)}
              {entity.country ? ` · ${entity.country}` : ""}
              {entity.geoId ? ` · ${entity.geoId}` : ""}
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
