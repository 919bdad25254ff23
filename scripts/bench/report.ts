import { readFileSync, writeFileSync } from "node:fs";
import { z } from "zod";

/*
 * What `npm run bench` prints and keeps: each section's table, the targets of PRODUCT.md §10a (and
 * #16) beside the figures they judge, met or not, and, with `--compare BASE.json`, each figure's
 * ratio to the same row of an earlier run (`--out FILE` writes a run's figures for that).
 */

/** A bench table: a header row, then rows of cells (figures printed as numbers). */
export type Rows = string[][];

export interface Section {
  title: string;
  rows: Rows;
}

/** One target: the figure it judges and whether it is met. */
export interface TargetResult {
  name: string;
  figure: string;
  bound: string;
  met: boolean;
}

const BenchFile = z.object({
  version: z.literal(1),
  at: z.string(),
  sections: z.array(z.object({ title: z.string(), rows: z.array(z.array(z.string())) })),
  targets: z.array(z.object({ name: z.string(), figure: z.string(), bound: z.string(), met: z.boolean() })).default([]),
});
export type BenchFile = z.infer<typeof BenchFile>;

/** The columns that say which row a row is (not figures): a row of one run is compared with the row of the other with the same of these. */
const KEY_COLUMNS = new Set(["db", "facts", "clients", "enrichment", "concurrency", "door", "geocoder", "places", "radius km", "runs", "page", "cache", "scopes", "texts", "chunks", "shape", "load", "provider", "size", "stage", "seconds", "server", "question", "part"]);

const isKey = (header: string) => KEY_COLUMNS.has(header.trim().toLowerCase());
const figure = (cell: string | undefined) => (cell !== undefined && /^-?\d+(\.\d+)?$/.test(cell.trim()) ? Number(cell) : null);

/** The row's key: its key columns' cells, by header. */
function rowKey(header: string[], row: string[]): string {
  return header.map((h, i) => (isKey(h) ? `${h}=${row[i] ?? ""}` : "")).filter(Boolean).join("|");
}

/**
 * Each figure of `now` over the same figure of `base` (the row with the same key columns, the
 * column with the same header), as "1.05×"; "-" where either has no figure there. Null when no
 * row of `now` has a row in `base`.
 */
export function compareRows(base: Rows, now: Rows): Rows | null {
  const [bh, ...brows] = base;
  const [nh, ...nrows] = now;
  if (!bh || !nh) return null;
  const byKey = new Map(brows.map((r) => [rowKey(bh, r), r]));
  const figures = nh.map((h, i) => ({ h, i })).filter(({ h, i }) => !isKey(h) && nrows.some((r) => figure(r[i]) !== null));
  const keys = nh.map((h, i) => ({ h, i })).filter(({ h }) => isKey(h));
  const out: Rows = [[...keys.map((k) => k.h), ...figures.map((f) => `${f.h} now/base`)]];
  let matched = 0;
  for (const r of nrows) {
    const b = byKey.get(rowKey(nh, r));
    if (b) matched++;
    out.push([
      ...keys.map((k) => r[k.i] ?? ""),
      ...figures.map(({ h, i }) => {
        const bi = bh.indexOf(h);
        const [x, y] = [figure(r[i]), b && bi >= 0 ? figure(b[bi]) : null];
        return x === null || y === null ? "-" : y === 0 ? (x === 0 ? "1.00×" : "-") : `${(x / y).toFixed(2)}×`;
      }),
    ]);
  }
  return matched ? out : null;
}

export function table(rows: Rows): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ")).join("\n");
}

/** Reads an earlier run's file (`--compare`); a clear error when it is not one. */
export function readBenchFile(path: string): BenchFile {
  const parsed = BenchFile.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) throw new Error(`${path} is not a bench file (npm run bench -- --out FILE writes one): ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

export class BenchReport {
  readonly sections: Section[] = [];
  readonly targets: TargetResult[] = [];

  constructor(
    private readonly base: BenchFile | null = null,
    private readonly print: (text: string) => void = (t) => console.log(t),
  ) {}

  /** Prints a section's table and, with a base run, its ratios to the same section there. */
  section(title: string, rows: Rows): void {
    this.sections.push({ title, rows });
    this.print(`\n${title}\n${table(rows)}`);
    if (!this.base) return;
    const before = this.base.sections.find((s) => s.title === title);
    const ratios = before ? compareRows(before.rows, rows) : null;
    this.print(ratios ? `  compared with the base run (${this.base.at}):\n${indent(table(ratios))}` : "  (no such section or rows in the base run)");
  }

  /** Judges a figure against its target; kept for the summary. `figure` null: not measured. */
  target(name: string, figure: number | null, op: "≤" | "≥", bound: number, unit: string): TargetResult {
    const met = figure !== null && (op === "≤" ? figure <= bound : figure >= bound);
    const t = { name, figure: figure === null ? "not measured" : `${round(figure)} ${unit}`, bound: `${op} ${bound} ${unit}`, met };
    this.targets.push(t);
    return t;
  }

  /** The targets judged so far, one line each, with the base run's verdict beside. */
  summary(): string {
    if (!this.targets.length) return "";
    const rows: Rows = [["target", "figure", "bound", "now", ...(this.base ? ["base run"] : [])]];
    for (const t of this.targets) {
      const b = this.base?.targets.find((x) => x.name === t.name);
      rows.push([t.name, t.figure, t.bound, t.met ? "met" : "NOT met", ...(this.base ? [b ? `${b.figure} (${b.met ? "met" : "not met"})` : "-"] : [])]);
    }
    const met = this.targets.filter((t) => t.met).length;
    return `\ntargets (PRODUCT.md §10a): ${met} of ${this.targets.length} met\n${table(rows)}`;
  }

  toFile(): BenchFile {
    return { version: 1, at: new Date().toISOString(), sections: this.sections, targets: this.targets };
  }

  write(path: string): void {
    writeFileSync(path, `${JSON.stringify(this.toFile(), null, 1)}\n`);
  }
}

const indent = (s: string) =>
  s
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
const round = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(1));

/** A row's figure in the column named `header` (null when absent or not a number). */
export function cell(rows: Rows, row: string[], header: string): number | null {
  const i = rows[0]!.indexOf(header);
  return i < 0 ? null : figure(row[i]);
}
