"use client";

import Link from "next/link";
import { Fragment, useEffect, useRef } from "react";
import { formatWhen } from "@/lib/format";
import { type StmFilter, stmHref, turnsLabel } from "@/lib/stm-view";
import type { RouterOutputs } from "@/trpc/types";
import styles from "../stm.module.css";

type Scope = RouterOutputs["stm"]["scopes"]["items"][number];

/** Where a key's turns happen: "user alice · server s1 · channel c1 · persona p" (a server key has no user). */
export function ScopeWhere({ scope }: { scope: Pick<Scope, "userId" | "serverId" | "channelId" | "personaId"> }) {
  const parts = [
    scope.userId && `user ${scope.userId}`,
    scope.serverId ? `server ${scope.serverId}` : "direct message",
    `channel ${scope.channelId}`,
    scope.personaId && `persona ${scope.personaId}`,
  ].filter(Boolean);
  return <>{parts.join(" · ")}</>;
}

/** A scope key that wraps after its colons (shortterm:server:guild-1:general), never inside an id. */
export function KeyText({ value }: { value: string }) {
  const parts = value.split(":");
  return parts.map((p, i) => (
    <Fragment key={i}>
      <span className={styles.keyPart}>{i < parts.length - 1 ? `${p}:` : p}</span>
      {i < parts.length - 1 && <wbr />}
    </Fragment>
  ));
}

/** The keys found, newest first; each a link, so a key can be shared or opened in a new tab. */
export function ScopeList({ dataset, filter, items, selected }: { dataset: string; filter: StmFilter; items: Scope[]; selected: string | null }) {
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    // a shared link's key may be far down the list's own scroll: show it there (without moving the page)
    const box = list.current;
    const item = box?.querySelector<HTMLElement>('[aria-current="true"]');
    if (!box || !item) return;
    const top = item.offsetTop - box.offsetTop;
    if (top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top - 8;
  }, [selected, items.length]);
  if (items.length === 0) return null;
  return (
    <ul className={styles.keys} data-testid="stm-keys" ref={list}>
      {items.map((s) => (
        <li key={s.key}>
          <Link href={stmHref(dataset, filter, s.key)} scroll={false} aria-current={s.key === selected ? "true" : undefined}>
            <span className={styles.keyLine}>
              <span className={styles.key}>
                <KeyText value={s.key} />
              </span>
              <span className="badge small">{s.kind}</span>
            </span>
            <span className={styles.meta}>
              <ScopeWhere scope={s} />
            </span>
            <span className={styles.meta}>
              v{s.version} · {s.lastUpgradeAt ? `upgraded ${formatWhen(s.lastUpgradeAt)}, ${turnsLabel(s.turnsSinceUpgrade)} since` : `never upgraded, ${turnsLabel(s.turnsSinceUpgrade)}`}
            </span>
            <span className={styles.meta}>
              {s.cachedMessages} cached · updated {formatWhen(s.updatedAt)}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
