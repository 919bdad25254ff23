import styles from "../graph.module.css";
import { chartGeometry, shortNumber, type ChartPoint } from "./series-chart-geometry";

const WIDTH = 640;
const HEIGHT = 220;

/** One measure of a series as an SVG line chart: its points, the line through them, both axes. */
export function SeriesChart({ title, unit, points }: { title: string; unit: string | null; points: (ChartPoint & { textId: string })[] }) {
  const g = chartGeometry(points, WIDTH, HEIGHT);
  return (
    <figure className={styles.chart}>
      <figcaption>
        <strong>{title}</strong> <span className="muted small">{points.length} points</span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${title}: ${points.map((p) => shortNumber(p.value)).join(", ")}`}>
        <g className={styles.axis}>
          <line x1={g.plot.left} x2={g.plot.left} y1={g.plot.top} y2={g.plot.bottom} />
          <line x1={g.plot.left} x2={g.plot.right} y1={g.plot.bottom} y2={g.plot.bottom} />
          {g.yTicks.map((t) => (
            <g key={`y${t.label}`}>
              <line className={styles.grid} x1={g.plot.left} x2={g.plot.right} y1={t.y} y2={t.y} />
              <text x={g.plot.left - 6} y={t.y} dy="0.32em" textAnchor="end">
                {t.label}
              </text>
            </g>
          ))}
          {g.xTicks.map((t) => (
            <text key={`x${t.label}`} x={t.x} y={g.plot.bottom + 18} textAnchor="middle">
              {t.label}
            </text>
          ))}
          {unit && (
            <text x={g.plot.left - 6} y={g.plot.top - 2} textAnchor="end" className={styles.unit}>
              {unit}
            </text>
          )}
        </g>
        <path className={styles.line} d={g.path} />
        {g.dots.map((d) => (
          <circle key={`${d.point.textId}${d.x}`} className={styles.dot} cx={d.x} cy={d.y} r={4}>
            <title>{`${d.point.time.toISOString().slice(0, 10)}: ${d.point.value.toLocaleString("en")}${unit ? ` ${unit}` : ""}`}</title>
          </circle>
        ))}
      </svg>
    </figure>
  );
}
