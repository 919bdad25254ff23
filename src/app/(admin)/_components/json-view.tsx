"use client";

import { type ReactNode, useState } from "react";
import s from "./json-view.module.css";

/*
 * JSON as a tree to read: objects and arrays fold (native <details>, so the keyboard and screen
 * readers know them), the first levels open. Long arrays and strings show their start and a
 * button for the rest, so a stage output of many chunks stays quick to draw.
 */

const FIRST_ITEMS = 50;
const FIRST_CHARS = 600;

function Str({ value }: { value: string }) {
  const [all, setAll] = useState(false);
  if (value.length <= FIRST_CHARS || all) return <span className={s.string}>&quot;{value}&quot;</span>;
  return (
    <>
      <span className={s.string}>&quot;{value.slice(0, FIRST_CHARS)}…&quot;</span>
      <button type="button" className={s.more} onClick={() => setAll(true)}>
        show all {value.length.toLocaleString()} characters
      </button>
    </>
  );
}

function Leaf({ value }: { value: unknown }): ReactNode {
  if (value === null || value === undefined) return <span className={s.null}>null</span>;
  if (typeof value === "string") return <Str value={value} />;
  if (typeof value === "number") return <span className={s.number}>{String(value)}</span>;
  if (typeof value === "boolean") return <span className={s.bool}>{String(value)}</span>;
  if (value instanceof Date) return <span className={s.string}>&quot;{value.toISOString()}&quot;</span>;
  return <span className={s.string}>{String(value)}</span>;
}

function Node({ name, value, depth, openDepth }: { name: string | null; value: unknown; depth: number; openDepth: number }) {
  const [shown, setShown] = useState(FIRST_ITEMS);
  const key = name !== null && (
    <>
      <span className={s.key}>{name}</span>
      <span className={s.punct}>: </span>
    </>
  );
  if (value === null || typeof value !== "object" || value instanceof Date) {
    return (
      <div className={s.line}>
        {key}
        <Leaf value={value} />
      </div>
    );
  }
  const array = Array.isArray(value);
  const entries: [string, unknown][] = array ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const [open, close] = array ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) {
    return (
      <div className={s.line}>
        {key}
        <span className={s.punct}>
          {open}
          {close}
        </span>
      </div>
    );
  }
  const size = array ? `${entries.length} item${entries.length === 1 ? "" : "s"}` : `${entries.length} key${entries.length === 1 ? "" : "s"}`;
  return (
    <details className={s.node} open={depth < openDepth}>
      <summary>
        {key}
        <span className={s.punct}>{open}</span>
        <span className={s.count}>{size}</span>
        <span className={s.punct}>{close}</span>
      </summary>
      <div className={s.children}>
        {entries.slice(0, shown).map(([k, v]) => (
          <Node key={k} name={k} value={v} depth={depth + 1} openDepth={openDepth} />
        ))}
        {entries.length > shown && (
          <button type="button" className={s.more} onClick={() => setShown(shown + FIRST_ITEMS * 4)}>
            show {Math.min(FIRST_ITEMS * 4, entries.length - shown)} more of {entries.length - shown}
          </button>
        )}
      </div>
    </details>
  );
}

export function JsonView({ value, label, openDepth = 2 }: { value: unknown; label: string; openDepth?: number }) {
  return (
    <div className={s.root} role="group" aria-label={label} data-testid="json">
      <Node name={null} value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}
