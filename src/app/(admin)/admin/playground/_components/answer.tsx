import Link from "next/link";
import { Empty } from "@/app/_components/status";
import { graphHref, queryRunHref } from "@/lib/admin-links";
import { citationHref, sourceAnchor, splitCitations } from "@/lib/citations";
import { formatSpan } from "@/lib/time-span";
import type { RouterOutputs } from "@/trpc/types";
import styles from "../playground.module.css";

type Result = RouterOutputs["query"]["ask"];
type Source = Result["sources"][number];

/** Where a source came from: who said it, in which text and chunk. */
function Provenance({ source }: { source: Source["source"] }) {
  const said = [source.speaker && `said by ${source.speaker}`, source.kind, source.id].filter(Boolean).join(" · ");
  return (
    <span className="muted small">
      {said && <>{said} · </>}
      {source.url && (
        <>
          <a href={source.url} rel="noreferrer">
            {source.url}
          </a>{" "}
          ·{" "}
        </>
      )}
      text <code>{source.textId.slice(0, 8)}</code> chunk <code>{source.chunkId.slice(0, 8)}</code>
    </span>
  );
}

/** The answer with each [n] a link to its source, the sources with score and provenance, and the query run. */
export function Answer({ dataset, result }: { dataset: string; result: Result }) {
  const byN = new Map(result.sources.map((s) => [s.n, s]));
  const parts = splitCitations(result.answer, byN.keys());
  return (
    <div className={styles.answer} data-testid="answer" aria-live="polite">
      <h3>Answer</h3>
      <p className={styles.answerText} data-testid="answer-text">
        {parts.map((p, i) => {
          if (p.kind === "text") return <span key={i}>{p.text}</span>;
          const s = byN.get(p.n);
          if (!s) return null; // splitCitations yields only the sources it was given
          return (
            <Link key={i} className={styles.cite} href={citationHref(s, dataset)} title={s.text} aria-label={`source ${p.n}: ${s.text}`} data-testid="citation">
              [{p.n}]
            </Link>
          );
        })}
      </p>
      <p className="small">
        <Link href={queryRunHref(dataset, result.queryRunId)} data-testid="query-run-link">
          Open the query run {result.queryRunId.slice(0, 8)}
        </Link>{" "}
        <span className="muted">to see what was retrieved and what the model was given.</span>
      </p>
      <h4>Sources ({result.sources.length})</h4>
      {result.sources.length === 0 ? (
        <Empty>No sources: nothing in this dataset matched the question. Remember a text about it first.</Empty>
      ) : (
        <ol className={styles.sources} data-testid="sources">
          {result.sources.map((s) => (
            <li key={s.n} id={sourceAnchor(s.n)}>
              <span className={styles.sourceN}>[{s.n}]</span>
              <div className={styles.sourceBody}>
                <span className={styles.sourceText}>{s.text}</span>
                <span className={styles.sourceMeta}>
                  <span className="badge">{s.kind}</span>
                  <span className="small">score {s.score.toFixed(3)}</span>
                  {s.distanceKm !== undefined && (
                    <span className="small" data-testid="source-distance">
                      {s.distanceKm < 10 ? s.distanceKm.toFixed(1) : Math.round(s.distanceKm)} km{s.nearEntity ? ` (${s.nearEntity.name})` : ""}
                    </span>
                  )}
                  {(s.validAt || s.invalidAt) && <span className="muted small">valid {formatSpan(s.validAt, s.invalidAt)}</span>}
                  {s.kind === "fact" && s.entityIds[0] && (
                    <Link className="small" href={graphHref(dataset, s.entityIds[0], s.id)}>
                      in the graph
                    </Link>
                  )}
                </span>
                <Provenance source={s.source} />
              </div>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
