import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Empty, ErrorNote, Loading } from "@/app/_components/status";
import { useTRPC } from "@/trpc/client";
import styles from "../graph.module.css";
import { seriesHref } from "../search-params";
import { SeriesChart } from "./series-chart";

/** The series view: the dataset's series, and for the chosen one a chart per measure, its observations and its members. */
export function SeriesView({ dataset, selected }: { dataset: string; selected: string | null }) {
  const trpc = useTRPC();
  const keys = useQuery(trpc.graph.seriesKeys.queryOptions({ dataset }));
  const items = keys.data?.items ?? [];
  return (
    <div className={styles.layout}>
      <section className={`card ${styles.side}`} aria-labelledby="series-title">
        <h2 id="series-title">Series</h2>
        {keys.error && <ErrorNote error={keys.error} action="list the series" />}
        {keys.isPending && <Loading />}
        {keys.isSuccess && items.length === 0 && <Empty>No text of this dataset names a series yet (remember.submit&apos;s <code>series</code>).</Empty>}
        <ul className={styles.entities} data-testid="series-keys">
          {items.map((s) => (
            <li key={s.key}>
              <Link href={seriesHref(dataset, s.key)} aria-current={s.key === selected ? "true" : undefined}>
                <span className={styles.entityName}>{s.key}</span>
                <span className="muted small">{s.members}</span>
              </Link>
            </li>
          ))}
        </ul>
      </section>
      <div className={styles.detail}>
        {selected ? (
          <SeriesDetail dataset={dataset} seriesKey={selected} />
        ) : (
          <section className="card">
            <Empty>Choose a series to chart its numbers and read what was observed across it.</Empty>
          </section>
        )}
      </div>
    </div>
  );
}

function SeriesDetail({ dataset, seriesKey }: { dataset: string; seriesKey: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.graph.series.queryOptions({ dataset, key: seriesKey }));
  if (q.error) return <ErrorNote error={q.error} action="read the series" />;
  if (!q.data) return <Loading />;
  const { members, measures, observations } = q.data;
  const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : "—");
  return (
    <>
      <section className="card" aria-labelledby="series-charts">
        <h2 id="series-charts">{seriesKey}</h2>
        <p className="muted small">
          {members.length} texts; a line per measure (subject, predicate and unit) with a number in two texts or more.
        </p>
        {measures.filter((m) => m.points.length >= 2).length === 0 && <Empty>No number recurs across this series.</Empty>}
        {measures
          .filter((m) => m.points.length >= 2)
          .map((m) => (
            <SeriesChart key={m.measure} title={m.measure} unit={m.unit} points={m.points.map((p) => ({ time: p.time, value: p.value, textId: p.textId }))} />
          ))}
      </section>
      <section className="card" aria-labelledby="series-observations">
        <h2 id="series-observations">Observations</h2>
        {observations.length === 0 ? (
          <Empty>Nothing observed across this series yet (observe_series writes here).</Empty>
        ) : (
          <ul className={styles.observations} data-testid="series-observations">
            {observations.map((o) => (
              <li key={o.textId}>
                {o.content} <span className="muted small">{day(o.createdAt)}, from {o.textIds.length} texts</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" aria-labelledby="series-members">
        <h2 id="series-members">Texts</h2>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>#</th>
                <th>Occurred</th>
                <th>Text</th>
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <tr key={m.textId}>
                  <td>{m.position ?? "—"}</td>
                  <td>{day(m.occurredAt ?? m.createdAt)}</td>
                  <td>{m.excerpt}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
