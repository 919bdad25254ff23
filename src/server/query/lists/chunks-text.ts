import { type SQL, sql } from "drizzle-orm";
import { B, K1, matches, matchesBroader, tsquery } from "../bm25";
import { type ListQuery, listStatement, type RetrievalList } from "./candidate";
import { chunkCandidate, chunkColumns, chunkRow, chunkTables, chunkTablesById, chunkValidity } from "./chunks";
import { matchOrder, maxScored, sampled } from "./shared";

const LIMIT = 30;
/** the places kept before the validity check (twice what the list keeps) */
const SCORED = 2 * LIMIT;
/**
 * The matched texts (by their own BM25) that lend their terms to the places around them. A
 * neighbour's term counts at most 0.35 of a held one: below the best hundred, what they lend
 * puts no place among the first thirty (200 and 50 chose the same on the LoCoMo dev set).
 */
const LEND_FROM = 100;

/**
 * How much a word of a text counts in the texts one and two places before and after it in its
 * series: a turn of a chat means what it means with the turns around it ("Which one?" — "The
 * red one"). Chosen before measuring (#13's prior); 0.5/0.25 and ±3 places did no better.
 */
export const NEIGHBOUR_WEIGHTS = [0.35, 0.175] as const;

/**
 * How much a word broader than one a chunk says counts in its term frequency ("instrument" in a
 * chunk that says "violin"; src/server/text/broader.ts), against 1 for a word it says: a kind of
 * what it says is worth a neighbour's word (NEIGHBOUR_WEIGHTS[0]), chosen as that prior. As a
 * term of its own, at the idf of every chunk that holds it either way (Term.bidf), LoCoMo dev went
 * 74.2/56.8 -> 74.5/57.4, recall up on each conversation (#13's note).
 */
export const BROADER = 0.35;

/** the places around a text whose words it carries, with their weights */
const WINDOW = NEIGHBOUR_WEIGHTS.flatMap((w, i) => [
  [i + 1, w],
  [-(i + 1), w],
]) as [number, number][];
/** a text in a series is read with its window: its length is its own and its neighbours', weighted */
const WINDOW_SHARE = 2 * NEIGHBOUR_WEIGHTS.reduce((a, w) => a + w, 0);

/**
 * chunks_text: BM25 over chunk summaries and content, each chunk read in its series. A chunk of
 * a text in a series is a document of its own words and those of the texts one and two places
 * before and after (NEIGHBOUR_WEIGHTS): a question term's frequency is 1 if the chunk holds it,
 * plus the weight of each neighbour that does, saturated as BM25 saturates term frequency, and
 * the length norm is that of the weighted window. A text in no series is read alone. So the turn
 * that answers ("Yes, a bowl and two mugs") is found by the words of the turn that asked, and a
 * turn whose neighbours speak of the same thing ranks above a stray mention. A chunk also holds,
 * at BROADER, the words broader than its nouns (its broader_tsv: "instrument" for "violin"), so
 * "which instruments does she play?" finds the turn that says "violin"; a neighbour lends those
 * too, at its weight times BROADER.
 *
 * So that the cost does not grow with the dataset, what a place's window holds is read from the
 * chunks that hold a rare question term (at most maxScored), and of those only the best hundred
 * by their own BM25 (LEND_FROM) lend their terms around them; a place's own length is its text's
 * when it holds a term, else the average, and its neighbours' lengths are taken as the average
 * (a place at the start of its series has fewer of them). Reading the neighbours exactly (a probe
 * per place) scored 74.3 / 57.6 on the LoCoMo dev set against 74.0 / 56.9, at about twice the
 * list's cost: see #13's note.
 */
export const chunksText: RetrievalList = {
  statement: (q) => (q.weights.terms.length ? listStatement({ sql: chunksTextSql(q), decode: chunkRow }, (rows) => rows.map(chunkCandidate)) : null),
};

/** chunks_text's statement (the question has terms). */
export function chunksTextSql(q: ListQuery): SQL {
  const w = q.weights;
  // a term twice when some chunk holds it as a broader word: its own words (kind 0, at the term's
  // idf) and its broader words (kind 1, at the idf of the chunks holding it either way), each a term of BM25
  const rows = w.terms.flatMap((t) => [
    ...(t.df > 0 ? [sql`${tsquery([t])}::tsquery, ${t.idf}::float8, 0`] : []),
    ...(t.bdf > 0 ? [sql`${tsquery([t])}::tsquery, ${t.bidf}::float8, 1`] : []),
  ]);
  const terms = sql.join(
    rows.map((r, i) => sql`(${i + 1}::int, ${r})`),
    sql`, `,
  );
  const window = sql.join(
    WINDOW.map(([off, weight]) => sql`(${off}::int, ${weight}::float8)`),
    sql`, `,
  );
  const avg = w.avgLength;
  /** BM25 of a term (its idf in the row) of frequency `tf` in a document of length `len` whose like average `avgLen` */
  const bm25 = (tf: SQL, len: SQL, avgLen: SQL) =>
    sql`CASE WHEN ${tf} > 0 THEN idf * ${tf} * ${sql.raw(String(K1 + 1))} / (${tf} + ${sql.raw(String(K1))} * (${sql.raw(String(1 - B))} + ${sql.raw(String(B))} * (${len}) / (${avgLen}))) ELSE 0 END`;
  const avgLen = sql`${avg}::float8`;
  /** the weight of the places before the first of a series that a place at x.pos would read */
  const missing = sql.raw(`(${WINDOW.filter(([off]) => off < 0).map(([off, weight]) => `CASE WHEN p.pos + (${off}) < 1 THEN ${weight} ELSE 0 END`).join(" + ")})`);
  return sql`WITH q(i, term, idf, kind) AS (VALUES ${terms}),
        d(off, w) AS (VALUES ${window}),
        m AS (
          SELECT c.id, t.series_key AS sk, t.series_position AS pos, c.search_tsv AS tsv, c.broader_tsv AS btsv FROM ${chunkTables}
          WHERE c.dataset_id = ${q.datasetId} AND ${chunkValidity(q.asOf)} AND ${sampled(w, sql`c`)} AND (${matches(sql`c.search_tsv`, w)} OR ${matchesBroader(sql`c.broader_tsv`, w)})
          ${matchOrder(w, sql`c`)} LIMIT ${maxScored(w)}
        ), mt AS (
          -- each matched chunk's terms: 1 for a word it says, BROADER for one broader than a word it says
          SELECT m.id, m.sk, m.pos, length(m.tsv) AS len, q.i, CASE q.kind WHEN 0 THEN 1 ELSE ${BROADER}::float8 END AS tf
          FROM m JOIN q ON CASE q.kind WHEN 0 THEN m.tsv @@ q.term ELSE m.btsv @@ q.term AND NOT m.tsv @@ q.term END
        ), own AS (
          -- each matched chunk's own BM25, to choose the texts that lend their terms around them,
          -- with its terms (for held: carried here, as joining the best hundred back to mt was a
          -- nested loop of 10,000 pairs in the plan made once for every question)
          SELECT mt.id, min(mt.sk) AS sk, min(mt.pos) AS pos, sum(${bm25(sql`mt.tf`, sql`mt.len`, avgLen)}) AS s,
                 array_agg(mt.i) AS terms, array_agg(mt.tf) AS tfs, max(mt.len) AS len
          FROM mt JOIN q ON q.i = mt.i GROUP BY mt.id
        ), top AS (
          SELECT * FROM own ORDER BY s DESC LIMIT ${LEND_FROM}
        ), held AS (
          -- the terms each of those texts of a series holds, and its length
          SELECT top.sk, top.pos, x.i, max(x.tf) AS tf, max(top.len) AS len
          FROM top CROSS JOIN LATERAL unnest(top.terms, top.tfs) AS x(i, tf) WHERE top.sk IS NOT NULL GROUP BY 1, 2, 3
        ), lent AS (
          -- the terms those texts lend to the places around them, with their weights
          SELECT held.sk, held.pos + d.off AS pos, held.i, sum(d.w * held.tf) AS tf
          FROM held CROSS JOIN d WHERE held.pos + d.off >= 1 GROUP BY 1, 2, 3
        ), scored AS (
          -- a first estimate of the places of a series: the terms their texts hold (a text
          -- beyond the best hundred, or found only through its neighbours, as if it held none)
          -- and those lent to them, lengths taken as the average
          SELECT NULL::uuid AS id, p.sk, p.pos,
                 sum(${bm25(sql`p.tf`, sql`coalesce(p.len, ${avgLen}) + (${sql.raw(String(WINDOW_SHARE))} - ${missing}) * ${avgLen}`, sql`${sql.raw(String(1 + WINDOW_SHARE))} * ${avgLen}`)}) AS s
          FROM (
            -- a place's length: that of its own text where it is one of those held (a window, not a
            -- join: the planner cannot count a CTE's rows and chose a nested loop over them)
            SELECT sk, pos, i, tf, max(len) OVER (PARTITION BY sk, pos) AS len FROM (
              SELECT sk, pos, i, sum(tf) AS tf, max(len) AS len
              FROM (SELECT sk, pos, i, tf, len FROM held UNION ALL SELECT sk, pos, i, tf, NULL FROM lent) x GROUP BY sk, pos, i
            ) y
          ) p JOIN q ON q.i = p.i
          GROUP BY p.sk, p.pos
          UNION ALL
          -- the chunks of texts in no series, by their own terms alone
          SELECT id, NULL, NULL, s FROM top WHERE sk IS NULL
        ), best AS (
          SELECT * FROM scored ORDER BY s DESC LIMIT ${SCORED}
        ), chosen AS (
          SELECT id, s FROM best WHERE id IS NOT NULL
          UNION ALL
          -- each place's text and its chunks by key (LATERAL, as chunkTablesById)
          SELECT c.id, b.s FROM best b
          CROSS JOIN LATERAL (
            SELECT t.id FROM gb_texts t WHERE t.dataset_id = ${q.datasetId} AND t.series_key = b.sk AND t.series_position = b.pos OFFSET 0
          ) t
          CROSS JOIN LATERAL (SELECT c.id FROM gb_chunks c WHERE c.dataset_id = ${q.datasetId} AND c.text_id = t.id OFFSET 0) c
          WHERE b.id IS NULL
        )
        SELECT ${chunkColumns} FROM chosen
        ${chunkTablesById(q.datasetId, sql`chosen.id`)}
        -- a chunk found through its neighbours that is not current context (its facts all retired) is checked only here
        WHERE ${chunkValidity(q.asOf)}
        ORDER BY chosen.s DESC, c.created_at DESC LIMIT ${LIMIT}`;
}
