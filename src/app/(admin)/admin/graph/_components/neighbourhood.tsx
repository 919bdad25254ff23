"use client";

import { useQueries } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ErrorNote, Loading } from "@/app/_components/status";
import { graphHref } from "@/lib/admin-links";
import { EMPTY_DRAWING, MAX_NODES, mergeNeighbourhood, toElements } from "@/lib/graph-drawing";
import { useTRPC } from "@/trpc/client";
import styles from "../graph.module.css";
import { GraphCanvas } from "./graph-canvas";

/** facts fetched per expanded node: enough to see its surroundings, few enough to read */
const HOOD_FACTS = 40;

/**
 * The neighbourhood drawing, grown node by node: a click (or the node's Expand button) draws that
 * node's neighbours; a click on a node already expanded opens it. The drawing restarts when another
 * entity is opened (the parent keys this component by entity).
 */
export function Neighbourhood({ dataset, root }: { dataset: string; root: { id: string; name: string } }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [expanded, setExpanded] = useState<string[]>([root.id]);
  const hoods = useQueries({ queries: expanded.map((id) => trpc.graph.neighbourhood.queryOptions({ dataset, id, depth: 1, limit: HOOD_FACTS })) });
  // in expansion order, so the first entities drawn keep their places when the drawing is full
  const drawing = hoods.reduce((d, h) => (h.data ? mergeNeighbourhood(d, h.data) : d), EMPTY_DRAWING);
  const expandedSet = new Set(expanded);
  const elements = toElements(drawing, { selected: root.id, expanded: expandedSet });
  const failed = hoods.find((h) => h.error);
  const busy = hoods.some((h) => h.isFetching);
  const entities = drawing.nodes.filter((n) => n.kind === "entity");

  const expand = (id: string) => setExpanded((xs) => (xs.includes(id) ? xs : [...xs, id]));
  const open = (id: string) => router.push(graphHref(dataset, id));
  const tap = (id: string) => (expandedSet.has(id) ? open(id) : expand(id));

  if (hoods[0]?.isPending) return <Loading>Drawing the neighbourhood…</Loading>;
  return (
    <>
      <p className="muted small">
        Click an entity to draw its neighbours; click it again to open it. The facts below say the same in words.
      </p>
      <GraphCanvas
        elements={elements}
        onNodeTap={tap}
        label={`Drawing of ${root.name}'s neighbourhood: ${entities.length} entities and ${drawing.edges.length} facts. The entities are listed after the drawing and the facts in the tables below.`}
      />
      <div className={styles.drawingNotes} aria-live="polite">
        {busy && <span className="muted small">Drawing…</span>}
        {drawing.omitted.length > 0 && (
          <span className="muted small">
            {drawing.omitted.length} more {drawing.omitted.length === 1 ? "fact is" : "facts are"} not drawn (at most {MAX_NODES} nodes): see the facts
            below, or open another entity.
          </span>
        )}
      </div>
      {failed && <ErrorNote error={failed.error} action="draw the neighbourhood" />}
      <details className={styles.nodeList} open>
        <summary>Entities in the drawing ({entities.length})</summary>
        <ul data-testid="drawn-entities">
          {entities.map((n) => (
            <li key={n.id}>
              <span className={styles.nodeName}>
                {n.id === root.id ? <strong>{n.label}</strong> : n.label}
                <span className="muted small">{n.type}</span>
              </span>
              <span className={styles.nodeActions}>
                {expandedSet.has(n.id) ? (
                  <span className="muted small">expanded</span>
                ) : (
                  <button type="button" className="button small" aria-label={`Expand ${n.label}`} onClick={() => expand(n.id)}>
                    Expand
                  </button>
                )}
                {n.id !== root.id && (
                  <Link className="button small" href={graphHref(dataset, n.id)} aria-label={`Open ${n.label}`}>
                    Open
                  </Link>
                )}
              </span>
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}
