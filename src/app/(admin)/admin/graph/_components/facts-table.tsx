"use client";

import Link from "next/link";
import { Fragment, useEffect } from "react";
import { Empty } from "@/app/_components/status";
import { graphHref, rememberRunHref } from "@/lib/admin-links";
import { predicateLabel } from "@/lib/graph-drawing";
import { spanParts } from "@/lib/time-span";
import type { RouterOutputs } from "@/trpc/types";
import styles from "../graph.module.css";

type Fact = RouterOutputs["graph"]["entity"]["current"][number];

const factAnchor = (id: string) => `fact-${id}`;

/** An end of a fact: the entity as a link (unless it is the one on the page), or the literal value. */
function End({ dataset, here, end, value }: { dataset: string; here: string; end: Fact["object"]; value?: string | null }) {
  if (!end) return <code>{value ?? "?"}</code>;
  if (end.id === here) return <strong>{end.name}</strong>;
  return <Link href={graphHref(dataset, end.id)}>{end.name}</Link>;
}

function RunLink({ dataset, id }: { dataset: string; id: string }) {
  return (
    <Link className="nowrap" href={rememberRunHref(dataset, id)}>
      run {id.slice(0, 8)}
    </Link>
  );
}

/** A span whose ends each stay on one line. */
function Span({ from, to }: { from: Date | null; to: Date | null }) {
  return spanParts(from, to).map((part, i) => (
    <Fragment key={i}>
      {i > 0 && " "}
      <span className="nowrap">{part}</span>
    </Fragment>
  ));
}

/**
 * Facts with both clocks: when they held in the world (valid) and when memory held them
 * (recorded), and the runs that made and retired them. `all` finds a retired fact's successor.
 */
export function FactsTable({
  dataset,
  entityId,
  facts,
  all,
  highlight,
  testId,
  empty,
}: {
  dataset: string;
  entityId: string;
  facts: Fact[];
  all: Fact[];
  highlight: string | null;
  testId: string;
  empty: string;
}) {
  const highlighted = facts.some((f) => f.id === highlight);
  useEffect(() => {
    // a citation led here: bring its fact into view
    if (highlighted && highlight) document.getElementById(factAnchor(highlight))?.scrollIntoView({ block: "center" });
  }, [highlighted, highlight]);
  if (facts.length === 0) return <Empty>{empty}</Empty>;
  return (
    <div className="table-wrap">
      <table className={`stack ${styles.factsTable}`} data-testid={testId}>
        <thead>
          <tr>
            <th scope="col">Fact</th>
            <th scope="col">Valid</th>
            <th scope="col">Recorded</th>
            <th scope="col">Runs</th>
          </tr>
        </thead>
        <tbody>
          {facts.map((f) => {
            const successor = f.invalidatedBy ? all.find((g) => g.id === f.invalidatedBy) : undefined;
            return (
              <tr key={f.id} id={factAnchor(f.id)} className={f.id === highlight ? styles.highlight : undefined} aria-current={f.id === highlight ? "true" : undefined}>
                <td data-label="Fact" className={styles.factCell}>
                  <span className={styles.sentence}>{f.sentence}</span>
                  <span className="sub muted">
                    <End dataset={dataset} here={entityId} end={f.subject} /> · {predicateLabel(f.predicate)} ·{" "}
                    <End dataset={dataset} here={entityId} end={f.object} value={f.objectValue} />
                  </span>
                </td>
                <td data-label="Valid">
                  <Span from={f.validAt} to={f.invalidAt} />
                </td>
                <td data-label="Recorded">
                  <Span from={f.createdAt} to={f.expiredAt} />
                </td>
                <td data-label="Runs">
                  <span className="sub">
                    made by <RunLink dataset={dataset} id={f.createdRunId} />
                  </span>
                  {f.invalidatedRunId && (
                    <span className="sub">
                      retired by <RunLink dataset={dataset} id={f.invalidatedRunId} />
                    </span>
                  )}
                  {successor && (
                    <span className="sub muted">
                      replaced by <a href={`#${factAnchor(successor.id)}`}>{successor.sentence}</a>
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
