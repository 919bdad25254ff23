"use client";

import { useEffect, useRef, useState } from "react";
import { formatDuration, inferenceHref } from "@/lib/runs";
import type { StageStatus } from "@/lib/stages";
import { layoutWaterfall, WATERFALL } from "@/lib/waterfall";
import type { RunDetail, RunTimeline } from "./api";
import s from "./waterfall.module.css";

/** Bar colours by stage status (the badges' hues, stronger for a chart). */
const FILL: Record<StageStatus, string> = {
  succeeded: "#2da44e",
  failed: "#cf222e",
  started: "#2f6feb",
  skipped: "#afb8c1",
  not_started: "#afb8c1",
};
const CALL = "#3d4750";

/** Below this the names go above the bars; below MIN_WIDTH the chart scrolls sideways rather than squeezing. */
const NARROW = 600;
const MIN_WIDTH = 280;

function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(960);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setWidth(Math.max(MIN_WIDTH, Math.floor(el.clientWidth)));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return { ref, width };
}

/**
 * The stage waterfall: a bar per stage on the run's time axis, coloured by status; inside a
 * per-chunk stage its items (chunks) in solid segments, and under each bar the model calls of the
 * stage (each a link to its inference). The layout is layoutWaterfall's; this only draws it.
 */
export function Waterfall({ run, timeline }: { run: RunDetail; timeline: RunTimeline | undefined }) {
  const { ref, width } = useWidth();
  if (!run.startedAt) return null;
  const layout = layoutWaterfall(
    {
      start: run.startedAt,
      end: run.finishedAt,
      now: new Date(),
      stages: run.stages,
      items: timeline?.items ?? [],
      calls: timeline?.inferences ?? [],
    },
    width,
    { labelsAbove: width < NARROW },
  );
  const ran = layout.rows.filter((r) => r.bar).length;
  const withItems = layout.rows.some((r) => r.items.length > 0);
  return (
    <>
      <div className={s.scroll} ref={ref} data-testid="waterfall">
        <svg
          className={s.svg}
          width={layout.width}
          height={layout.height}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          role="img"
          aria-label={`Stage waterfall: ${ran} of ${layout.rows.length} stages ran, over ${formatDuration(layout.totalMs)}. The stage table below has the same times.`}
        >
          {layout.ticks.map((t) => (
            <g key={t.ms}>
              <line className={s.grid} x1={t.x} x2={t.x} y1={WATERFALL.axisHeight - 6} y2={layout.height} />
              <text className={s.tick} x={t.x} y={WATERFALL.axisHeight - 10} textAnchor={t.x < layout.plotStart + 20 ? "start" : t.x > layout.plotEnd - 20 ? "end" : "middle"}>
                {t.label}
              </text>
            </g>
          ))}
          {layout.rows.map((r) => (
            <g key={r.stage} data-stage={r.stage} data-status={r.status}>
              <text className={`${s.label} ${r.bar ? "" : s.labelOff}`} x={4} y={r.labelY}>
                {r.stage}
                {!r.bar && r.barY !== r.y && <tspan className={s.off}> · {r.status === "skipped" ? "skipped" : "not started"}</tspan>}
              </text>
              {!r.bar && r.barY === r.y && (
                <text className={s.off} x={layout.plotStart + 4} y={r.labelY}>
                  {r.status === "skipped" ? "skipped" : "not started"}
                </text>
              )}
              {r.bar && (
                <rect
                  className={r.bar.running ? s.running : undefined}
                  x={r.bar.x}
                  y={r.barY}
                  width={r.bar.width}
                  height={WATERFALL.barHeight}
                  rx={3}
                  fill={FILL[r.status]}
                  fillOpacity={r.items.length > 0 ? 0.28 : 0.9}
                >
                  <title>{`${r.stage}: ${r.status}, from +${formatDuration(r.bar.startMs)} for ${formatDuration(r.bar.endMs - r.bar.startMs)}`}</title>
                </rect>
              )}
              {r.items.map((it, i) => (
                <rect
                  key={`item-${it.index}`}
                  data-item={it.index}
                  x={it.x}
                  y={r.barY + 3}
                  width={Math.max(1, it.width - (it.width > 3 ? 1 : 0))}
                  height={WATERFALL.barHeight - 6}
                  rx={2}
                  fill={FILL[r.status]}
                  fillOpacity={i % 2 === 0 ? 0.95 : 0.7}
                >
                  <title>{`${r.stage} · item ${it.index}: ${formatDuration(it.endMs - it.startMs)}, done at +${formatDuration(it.endMs)}`}</title>
                </rect>
              ))}
              {r.calls.map((c) => (
                <a key={c.id} href={inferenceHref(c.id)} tabIndex={-1} className={s.call}>
                  <rect data-call={c.id} x={c.x} y={c.y} width={c.width} height={WATERFALL.laneHeight} rx={1} fill={c.error ? FILL.failed : CALL}>
                    <title>{`${c.task} call${c.error ? ` (failed: ${c.error})` : ""}: ${formatDuration(c.endMs - c.startMs)} from +${formatDuration(c.startMs)}`}</title>
                  </rect>
                </a>
              ))}
            </g>
          ))}
        </svg>
      </div>
      <ul className={s.legend} aria-label="Legend">
        <li>
          <span className={s.swatch} style={{ background: FILL.succeeded }} /> succeeded
        </li>
        <li>
          <span className={s.swatch} style={{ background: FILL.failed }} /> failed
        </li>
        <li>
          <span className={s.swatch} style={{ background: FILL.started }} /> running
        </li>
        {withItems && (
          <li>
            <span className={s.swatch} style={{ background: FILL.succeeded, opacity: 0.28 }} /> a stage run per chunk: the solid parts are its chunks
          </li>
        )}
        <li>
          <span className={s.swatchThin} style={{ background: CALL }} /> model call (click for its inference)
        </li>
      </ul>
    </>
  );
}
