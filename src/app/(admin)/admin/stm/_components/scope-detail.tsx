"use client";

import { useQuery } from "@tanstack/react-query";
import { Fragment, useEffect, useRef } from "react";
import { Empty, ErrorNote, Loading } from "@/app/_components/status";
import { formatWhen } from "@/lib/format";
import { categoryEntries, turnsLabel } from "@/lib/stm-view";
import { useTRPC } from "@/trpc/client";
import styles from "../stm.module.css";
import { HistoryTable } from "./history-table";
import { Messages } from "./messages";
import { ScopeActions } from "./scope-actions";
import { KeyText, ScopeWhere } from "./scope-list";

/** The open key: where it is, its cadence, its messages, what it distilled and every version of it. */
export function ScopeDetail({ dataset, scopeKey, onCleared }: { dataset: string; scopeKey: string; onCleared: (note: string, keys: string[]) => void }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.stm.entry.queryOptions({ dataset, key: scopeKey }));
  const top = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // on a narrow screen the detail is below the list: bring it up when a key is opened
    const el = top.current;
    if (el && el.getBoundingClientRect().top > window.innerHeight * 0.6) el.scrollIntoView({ block: "start" });
  }, []);
  if (q.isPending || q.error) {
    return (
      <div ref={top}>
        <section className="card">{q.error ? <ErrorNote error={q.error} action="show the key" /> : <Loading />}</section>
      </div>
    );
  }
  const s = q.data;
  const categories = categoryEntries(s.categories);
  return (
    <div ref={top} data-testid="stm-entry">
      <section className="card" aria-labelledby="key-title">
        <div className={styles.head}>
          <h2 id="key-title">
            <code data-testid="stm-key">
              <KeyText value={s.key} />
            </code>
          </h2>
          <span className="badge">{s.kind} key</span>
        </div>
        <dl className="facts">
          <dt>Scope</dt>
          <dd>
            <ScopeWhere scope={s} />
          </dd>
          <dt>Writers</dt>
          <dd>{s.writers.length > 0 ? s.writers.join(", ") : <span className="muted">none</span>}</dd>
          <dt>Version</dt>
          <dd data-testid="stm-version">{s.version}</dd>
          <dt>Cadence</dt>
          <dd data-testid="stm-cadence">
            {turnsLabel(s.turnsSinceUpgrade)} since the last upgrade
            {s.lastUpgradeAt ? (
              <span className="muted">
                {" "}
                ({formatWhen(s.lastUpgradeAt)}, turn <code>{s.lastUpgradeTurnId}</code>)
              </span>
            ) : (
              <span className="muted"> (never upgraded)</span>
            )}
          </dd>
          <dt>Updated</dt>
          <dd>{formatWhen(s.updatedAt)}</dd>
        </dl>
        <ScopeActions dataset={dataset} scope={s} onCleared={onCleared} />
      </section>

      <section className="card" aria-labelledby="distilled-title">
        <h2 id="distilled-title">Summary and categories</h2>
        {s.summary ? (
          <p className={styles.summary} data-testid="stm-summary">
            {s.summary}
          </p>
        ) : (
          <Empty>No summary yet.</Empty>
        )}
        {categories.length > 0 ? (
          <dl className={`facts ${styles.categories}`} data-testid="stm-categories">
            {categories.map(([name, value]) => (
              <Fragment key={name}>
                <dt>{name}</dt>
                <dd>{value}</dd>
              </Fragment>
            ))}
          </dl>
        ) : (
          <Empty>No categories yet.</Empty>
        )}
      </section>

      <section className="card" aria-labelledby="messages-title">
        <h2 id="messages-title">Cached messages ({s.messages.length})</h2>
        <p className="muted small">
          The last messages of this key, held in the message cache, not the database: in the server process&apos;s memory, gone
          after a restart, unless the servers share Redis (<code>GB_REDIS_URL</code>). The summary, categories and versions stay.
        </p>
        <Messages messages={s.messages} />
      </section>

      <section className="card" aria-labelledby="history-title">
        <h2 id="history-title">Version history ({s.versions.length})</h2>
        <HistoryTable versions={s.versions} />
      </section>
    </div>
  );
}
