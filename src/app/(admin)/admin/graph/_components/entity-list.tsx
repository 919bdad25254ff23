import Link from "next/link";
import { graphHref } from "@/lib/admin-links";
import type { RouterOutputs } from "@/trpc/types";
import styles from "../graph.module.css";

type Entity = RouterOutputs["graph"]["entities"]["items"][number];

/** The search results: each a link, so an entity can be opened in a new tab or shared. */
export function EntityList({ dataset, items, selected }: { dataset: string; items: Entity[]; selected: string | null }) {
  if (items.length === 0) return null;
  return (
    <ul className={styles.entities} data-testid="entity-results">
      {items.map((e) => (
        <li key={e.id}>
          <Link href={graphHref(dataset, e.id)} aria-current={e.id === selected ? "true" : undefined}>
            <span className={styles.entityName}>{e.name}</span>
            <span className="muted small">{e.type}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
