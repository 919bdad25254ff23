"use client";

import { useQuery } from "@tanstack/react-query";
import { Empty, ErrorNote, Loading } from "@/app/_components/status";
import { type ReceiptSource, readQueryReceipts } from "@/lib/query-receipts";
import { LIVE_POLL_MS } from "@/lib/runs";
import { useTRPC } from "@/trpc/client";
import s from "./run.module.css";

const ranks = (r: ReceiptSource) =>
  Object.entries(r.ranks)
    .map(([list, n]) => `${list.replace("_", " ")} #${n}`)
    .join(", ");

/** A query run's receipts: the answer, the sources given to the model, and all that was retrieved. */
export function QuerySources({ runId, live }: { runId: string; live: boolean }) {
  const trpc = useTRPC();
  const outputs = useQuery({ ...trpc.runs.query.outputs.queryOptions({ id: runId }), refetchInterval: live ? LIVE_POLL_MS : false });
  if (outputs.isPending) return <Loading>Loading the sources…</Loading>;
  if (outputs.error) return <ErrorNote error={outputs.error} action="load the sources" />;
  const r = readQueryReceipts(outputs.data);
  const given = new Set(r.given.map((g) => g.key));
  const lists = Object.entries(r.lists);
  return (
    <div data-testid="query-sources">
      <div className={s.sectionHead}>
        <h3>Answer</h3>
      </div>
      {r.answer !== null ? <p className={s.answer}>{r.answer}</p> : <p className={s.muted}>No answer was written{r.note ? ` (${r.note})` : ""}.</p>}

      <div className={s.sectionHead}>
        <h3>Given to the model</h3>
        <span className={s.muted}>{r.given.length}</span>
      </div>
      {r.given.length === 0 ? (
        <Empty>No sources were given to the model.</Empty>
      ) : (
        <div className="table-wrap">
          <table className="stack" data-testid="given-sources">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Kind</th>
                <th scope="col">Text</th>
                <th scope="col">Score</th>
                <th scope="col">Cited</th>
              </tr>
            </thead>
            <tbody>
              {r.given.map((g) => (
                <tr key={g.key}>
                  <td data-label="#">[{g.n}]</td>
                  <td data-label="Kind">{g.kind}</td>
                  <td data-label="Text" className={s.srcText}>
                    {g.text}
                  </td>
                  <td data-label="Score" className={s.cellNum}>
                    {g.score.toFixed(4)}
                  </td>
                  <td data-label="Cited">{g.cited ? <span className={s.given}>cited</span> : <span className={s.muted}>no</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <div className={s.sectionHead}>
        <h3>Retrieved</h3>
        <span className={s.muted}>{r.retrieved.length}, fused from the lists below</span>
      </div>
      {lists.length > 0 && (
        <ul className={s.lists} aria-label="Candidates per retrieval list">
          {lists.map(([name, n]) => (
            <li key={name}>
              {name.replace("_", " ")}: {n}
            </li>
          ))}
        </ul>
      )}
      {r.retrieved.length === 0 ? (
        <Empty>{r.note ? `Nothing retrieved: ${r.note}.` : "Nothing retrieved: the dataset knows nothing that matches the question."}</Empty>
      ) : (
        <div className="table-wrap">
          <table className="stack" data-testid="retrieved-sources">
            <thead>
              <tr>
                <th scope="col">Rank</th>
                <th scope="col">Kind</th>
                <th scope="col">Text</th>
                <th scope="col">Score</th>
                <th scope="col">Found by</th>
                <th scope="col">Given</th>
              </tr>
            </thead>
            <tbody>
              {r.retrieved.map((c, i) => (
                <tr key={c.key}>
                  <td data-label="Rank">{i + 1}</td>
                  <td data-label="Kind">{c.kind}</td>
                  <td data-label="Text" className={s.srcText}>
                    {c.text}
                  </td>
                  <td data-label="Score" className={s.cellNum}>
                    {c.score.toFixed(4)}
                  </td>
                  <td data-label="Found by" className="small">
                    {ranks(c)}
                  </td>
                  <td data-label="Given">{given.has(c.key) ? <span className={s.given}>given</span> : <span className={s.muted}>cut</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
