"use client";

import cytoscape, { type Core, type ElementDefinition } from "cytoscape";
import { useEffect, useRef } from "react";
import styles from "../graph.module.css";
import { graphStyle } from "./graph-style";

const PADDING = 24;
// nodes pushed apart four times cose's default: edges long enough to read their predicate along them
const layout = (randomize: boolean) => ({ name: "cose", animate: false, fit: false, randomize, nodeDimensionsIncludeLabels: true, nodeRepulsion: () => 8000 }) as const;

/** The whole drawing in view, but a small one no larger than 1.4×: any larger and its labels shout. */
function fitDrawing(cy: Core) {
  cy.fit(undefined, PADDING);
  if (cy.zoom() > 1.4) {
    cy.zoom(1.4);
    cy.center();
  }
}

/**
 * Cytoscape, used imperatively: one instance per mount, destroyed on unmount. New elements are
 * added to it (placed at a neighbour they connect to, so they grow out of the node expanded) and
 * the layout runs again from the current positions; nothing is redrawn from scratch.
 */
export function GraphCanvas({ elements, onNodeTap, label }: { elements: ElementDefinition[]; onNodeTap: (id: string) => void; label: string }) {
  const container = useRef<HTMLDivElement>(null);
  const cyRef = useRef<Core | null>(null);
  const tap = useRef(onNodeTap);
  useEffect(() => {
    tap.current = onNodeTap;
  });

  useEffect(() => {
    const cy = cytoscape({
      container: container.current,
      style: graphStyle,
      minZoom: 0.3,
      maxZoom: 3,
      boxSelectionEnabled: false,
    });
    cy.on("tap", "node.entity", (e) => tap.current(e.target.id()));
    cyRef.current = cy;
    // a narrower window (a phone turned) keeps the whole drawing in view
    const resized = new ResizeObserver(() => {
      cy.resize();
      fitDrawing(cy);
    });
    if (container.current) resized.observe(container.current);
    return () => {
      resized.disconnect();
      cyRef.current = null;
      cy.destroy();
    };
  }, []);

  useEffect(() => {
    const cy = cyRef.current;
    if (!cy) return;
    const wanted = new Set(elements.map((e) => e.data.id!));
    const stale = cy.elements().filter((el) => !wanted.has(el.id()));
    const fresh = elements.filter((e) => cy.getElementById(e.data.id!).empty());
    const first = cy.elements().empty();
    cy.batch(() => {
      stale.remove();
      for (const e of elements) {
        const el = cy.getElementById(e.data.id!);
        if (el.nonempty()) el.classes(e.classes ?? []);
      }
      cy.add(fresh.map((e) => ({ ...e, position: e.group === "nodes" ? startAt(cy, e.data.id!, elements) : undefined })));
    });
    if (fresh.length > 0 || stale.nonempty()) {
      const running = cy.layout(layout(first));
      running.one("layoutstop", () => fitDrawing(cy));
      running.run();
    }
  }, [elements]);

  return (
    <div className={styles.canvasWrap}>
      <div ref={container} className={styles.canvas} role="img" aria-label={label} data-testid="graph-canvas" />
      <button type="button" className={`button small ${styles.fit}`} onClick={() => cyRef.current && fitDrawing(cyRef.current)}>
        Fit
      </button>
    </div>
  );
}

/** Where a new node starts: at a drawn node it is joined to, else at the centre. */
function startAt(cy: Core, id: string, elements: ElementDefinition[]) {
  for (const e of elements) {
    if (e.group !== "edges") continue;
    const other = e.data.source === id ? e.data.target : e.data.target === id ? e.data.source : null;
    const node = other ? cy.getElementById(other) : null;
    if (node?.nonempty()) return { ...node.position() };
  }
  return { x: cy.width() / 2, y: cy.height() / 2 };
}
