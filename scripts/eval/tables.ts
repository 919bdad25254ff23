import { CATEGORIES } from "./locomo-format";

/*
 * The eval's tables: per category, per conversation (with each category's recall@k), and the
 * ablation table (each run without one list beside the run with all, overall and per
 * conversation, so that a list's worth is seen on each conversation separately).
 */

/** One question's scores, with where it came from. */
export interface Scored {
  sample: string;
  category: number;
  recall: Record<number, number>;
  rr: number;
}

const mean = (xs: number[]) => (xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length) * 100 : 0);
const fixed = (x: number) => x.toFixed(1);
const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;

/** recall@k and MRR of some questions, in percent */
export function summary(scores: Scored[], ks: number[]): { n: number; recall: Record<number, number>; mrr: number } {
  return {
    n: scores.length,
    recall: Object.fromEntries(ks.map((k) => [k, mean(scores.map((s) => s.recall[k] ?? 0))])),
    mrr: mean(scores.map((s) => s.rr)),
  };
}

/** Rows as text, each column padded to its widest cell. */
export function render(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n");
}

const categoriesOf = (scores: Scored[]) => [...new Set(scores.map((s) => s.category))].sort((a, b) => a - b);
const samplesOf = (scores: Scored[]) => [...new Set(scores.map((s) => s.sample))];
const label = (category: number) => `${category} ${CATEGORIES[category] ?? ""}`.trim();

/** category, questions, recall@each k, MRR; then overall */
export function categoryTable(scores: Scored[], ks: number[]): string[][] {
  const rows = [["category", "questions", ...ks.map((k) => `recall@${k}`), "MRR"]];
  const line = (name: string, of: Scored[]) => {
    const s = summary(of, ks);
    rows.push([name, String(s.n), ...ks.map((k) => fixed(s.recall[k]!)), fixed(s.mrr)]);
  };
  for (const c of categoriesOf(scores)) line(label(c), scores.filter((s) => s.category === c));
  line("overall", scores);
  return rows;
}

/** conversation, questions, recall@each k, MRR, then recall@k of each category; then overall */
export function conversationTable(scores: Scored[], ks: number[], k: number): string[][] {
  const categories = categoriesOf(scores);
  const rows = [["conversation", "questions", ...ks.map((x) => `recall@${x}`), "MRR", ...categories.map((c) => `${CATEGORIES[c] ?? c} r@${k}`)]];
  const line = (name: string, of: Scored[]) => {
    const s = summary(of, ks);
    const per = categories.map((c) => {
      const inCategory = of.filter((x) => x.category === c);
      return inCategory.length ? fixed(summary(inCategory, [k]).recall[k]!) : "-";
    });
    rows.push([name, String(s.n), ...ks.map((x) => fixed(s.recall[x]!)), fixed(s.mrr), ...per]);
  };
  for (const sample of samplesOf(scores)) line(sample, scores.filter((s) => s.sample === sample));
  line("overall", scores);
  return rows;
}

/**
 * The run with every list, then each run without one: overall recall@k and MRR, their change
 * from the full run, and the change of recall@k on each conversation.
 */
export function ablationTable(runs: { name: string; scores: Scored[] }[], k: number): string[][] {
  const [full, ...rest] = runs;
  if (!full) return [];
  const samples = samplesOf(full.scores);
  const rows = [["run", `recall@${k}`, "MRR", `Δrecall@${k}`, "ΔMRR", ...samples.map((s) => `Δ ${s}`)]];
  const base = summary(full.scores, [k]);
  const baseOf = new Map(samples.map((s) => [s, summary(full.scores.filter((x) => x.sample === s), [k]).recall[k]!]));
  rows.push([full.name, fixed(base.recall[k]!), fixed(base.mrr), "", "", ...samples.map(() => "")]);
  for (const run of rest) {
    const s = summary(run.scores, [k]);
    const per = samples.map((sample) => signed(summary(run.scores.filter((x) => x.sample === sample), [k]).recall[k]! - baseOf.get(sample)!));
    rows.push([run.name, fixed(s.recall[k]!), fixed(s.mrr), signed(s.recall[k]! - base.recall[k]!), signed(s.mrr - base.mrr), ...per]);
  }
  return rows;
}
