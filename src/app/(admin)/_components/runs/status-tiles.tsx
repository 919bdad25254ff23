"use client";

import { type RunCounts, type RunFilter, statusTiles, type TileKey } from "@/lib/runs";
import s from "./runs.module.css";

const names: Record<TileKey, string> = { queued: "queued", started: "started", succeeded: "succeeded", failed: "failed", flagged: "flagged" };

/** One button per status with its count, and the flagged runs; the pressed one filters the list. */
export function StatusTiles({ counts, filter, onToggle }: { counts: RunCounts | undefined; filter: RunFilter; onToggle: (key: TileKey) => void }) {
  return (
    <div className={s.tiles} role="group" aria-label="Filter the runs by status" data-testid="status-tiles">
      {statusTiles(counts, filter).map((t) => (
        <button
          key={t.key}
          type="button"
          className={`${s.tile} ${s[t.key]}`}
          aria-pressed={t.pressed}
          data-tile={t.key}
          title={t.key === "flagged" ? "Runs that succeeded with a failed stage (an advisory one, or one whose output could not be kept)" : `Show only ${names[t.key]} runs`}
          onClick={() => onToggle(t.key)}
        >
          <span className={s.tileName}>{names[t.key]}</span>
          <span className={s.tileCount}>{counts ? t.count.toLocaleString() : "…"}</span>
        </button>
      ))}
    </div>
  );
}
