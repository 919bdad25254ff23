import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";

/*
 * BM25 weights for full-text retrieval. Postgres's ts_rank knows nothing of how rare a word is
 * in the dataset, so "banker" counts as much as "Henrik" in a chat where every line names Henrik. The
 * dataset's document frequencies (gb_term_stats, kept by store) give each question term its
 * inverse document frequency; a row's score is the sum of the idf of the terms it holds (binary
 * term frequency: chunks and facts are short), with BM25's length norm.
 */

export interface Term {
  lexeme: string;
  /** chunks that say it */
  df: number;
  /** its inverse document frequency: of df, or of df + bdf when no chunk says it */
  idf: number;
  /** chunks whose broader words hold it and whose own words do not (src/server/text/broader.ts) */
  bdf: number;
  /** the inverse document frequency of df + bdf: what a broader word weighs */
  bidf: number;
}

export interface TermWeights {
  terms: Term[];
  chunks: number;
  avgLength: number;
}

export const K1 = 1.2;
export const B = 0.75;
/** terms in more than this share of chunks only score; they do not select rows (cost) */
const COMMON = 0.2;

/** The question's terms are read as the stored texts are ("/" a space: see englishTsv in the schema). */
export async function termWeights(db: Db, datasetId: string, question: string): Promise<TermWeights> {
  const rows = await queryRows<{ lexeme: string; df: number | null; bdf: number | null; chunks: number | null; lexemes: number | null }>(
    db,
    sql`SELECT l.lexeme, s.df, s.bdf, st.chunks, st.lexemes
        FROM unnest(tsvector_to_array(to_tsvector('english', translate(${question}, '/', ' ')))) AS l(lexeme)
        LEFT JOIN gb_term_stats s ON s.dataset_id = ${datasetId} AND s.lexeme = l.lexeme
        LEFT JOIN gb_search_stats st ON st.dataset_id = ${datasetId}`,
  );
  const n = Number(rows[0]?.chunks ?? 0);
  const avgLength = n > 0 ? Number(rows[0]?.lexemes ?? 0) / n : 1;
  const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const terms = rows
    .map((r) => ({ lexeme: r.lexeme, df: Number(r.df ?? 0), bdf: Number(r.bdf ?? 0) }))
    .filter((t) => t.df + t.bdf > 0)
    .map((t) => ({ ...t, idf: idf(t.df > 0 ? t.df : t.bdf), bidf: idf(t.df + t.bdf) }))
    .sort((a, b) => b.idf - a.idf);
  return { terms, chunks: n, avgLength };
}

/** A tsquery literal of lexemes as they are (already stemmed: no to_tsquery). */
export function tsquery(terms: Term[]): string {
  return terms.map((t) => `'${t.lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`).join(" | ");
}

const rareAt = (w: TermWeights) => Math.max(1, w.chunks * COMMON);

/** The terms that select rows: the rare ones, or the three rarest if every term is common. */
export function selecting(w: TermWeights): Term[] {
  const rare = w.terms.filter((t) => t.df <= rareAt(w));
  return rare.length > 0 ? rare : w.terms.slice(0, 3);
}

/** Whether no term of the question is rare, as a word said or as a broader one (nothing it asks is rare). */
export function onlyCommon(w: TermWeights): boolean {
  return !w.terms.some((t) => t.df <= rareAt(w) || (t.bdf > 0 && t.df + t.bdf <= rareAt(w)));
}

/** `column @@ <selecting terms>`: the rows worth scoring. */
export function matches(column: SQL, w: TermWeights): SQL {
  return sql`${column} @@ ${tsquery(selecting(w))}::tsquery`;
}

/**
 * `column @@ <terms>` for a chunk's broader words (broader_tsv): the terms some chunk holds as a
 * broader word, rare counting those too; false when there are none.
 */
export function matchesBroader(column: SQL, w: TermWeights): SQL {
  const rare = w.terms.filter((t) => t.bdf > 0 && t.df + t.bdf <= rareAt(w));
  return rare.length ? sql`${column} @@ ${tsquery(rare)}::tsquery` : sql`false`;
}

/** The BM25 score of `column` (a tsvector), with the length norm when `normalise`. */
export function bm25(column: SQL, w: TermWeights, normalise: boolean): SQL {
  const sum = sql.join(
    w.terms.map((t) => sql`CASE WHEN ${column} @@ ${tsquery([t])}::tsquery THEN ${t.idf}::float8 ELSE 0 END`),
    sql` + `,
  );
  if (!normalise) return sql`((${sum}) * ${K1 + 1}::float8 / ${1 + K1}::float8)`;
  return sql`((${sum}) * ${K1 + 1}::float8 / (1 + ${K1}::float8 * (1 - ${B}::float8 + ${B}::float8 * length(${column}) / ${w.avgLength}::float8)))`;
}
