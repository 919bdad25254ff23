import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "../../src/server/db/client";
import { createDataset } from "../../src/server/datasets/datasets";
import { LOCAL_CALLER } from "../../src/server/auth/caller";
import { broaderWords } from "../../src/server/text/broader";

/*
 * A graph of `facts` facts shaped like remember's output, written straight in SQL (remembering
 * 100k facts through the pipeline would take the better part of an hour): one text and chunk per
 * two facts, people and places as entities, a vocabulary of 2,000 words with a skewed
 * distribution so that full text meets common and rare terms, mentions, and the term statistics.
 * With `embeddings` (a size), chunks and facts get embeddings of that size as a semantic provider
 * would store them: each text near its person's direction (a topic), so that neighbours cluster
 * as real ones do.
 */
export async function seedGraph(
  db: Db,
  facts: number,
  opts: { analyze?: boolean; embeddings?: number } = {},
): Promise<{ datasetName: string; datasetId: string; people: number }> {
  const ds = await createDataset({ db, caller: LOCAL_CALLER, input: { name: `bench-q-${randomUUID().slice(0, 8)}` } });
  const texts = Math.ceil(facts / 2);
  const people = Math.max(10, Math.ceil(facts / 20));
  const places = Math.max(10, Math.ceil(facts / 50));
  const id = ds.id;
  const run = randomUUID();
  // word k of the vocabulary: a deterministic pseudo-word; picks skewed towards small k
  const word = (expr: string) => sql.raw(`('w' || lpad(to_hex((((${expr}) * 2654435761) % 4294967296)::bigint % 2000 * ((${expr}) % 7 + 1) / 7), 4, '0'))`);
  await db.execute(sql`
    INSERT INTO gb_entities (dataset_id, id, name, name_key, type, aliases, alias_keys, created_at, created_run_id, updated_at)
    SELECT ${id}, md5(${id} || 'p' || i)::uuid, 'Person' || i, 'person' || i, 'person', '{}', '{}', now(), ${run}, now()
    FROM generate_series(1, ${people}) i`);
  await db.execute(sql`
    INSERT INTO gb_entities (dataset_id, id, name, name_key, type, aliases, alias_keys, created_at, created_run_id, updated_at)
    SELECT ${id}, md5(${id} || 'l' || i)::uuid, 'Place' || i, 'place' || i, 'place', '{}', '{}', now(), ${run}, now()
    FROM generate_series(1, ${places}) i`);
  await db.execute(sql`
    INSERT INTO gb_texts (dataset_id, id, run_id, content, source, series_key, series_position, created_at)
    SELECT ${id}, md5(${id} || 't' || i)::uuid, ${run},
      'Person' || (i % ${people} + 1) || ' likes ' || ${word("i")} || ' and ' || ${word("i * 3 + 1")} || '. Person' || (i % ${people} + 1)
        || ' lives in Place' || (i % ${places} + 1) || ' near ' || ${word("i * 7 + 2")} || '.',
      jsonb_build_object('kind', 'bench', 'id', 't' || i),
      -- chats of 20 turns, as a bot remembers them (the series lists read the neighbours)
      'chat-' || ((i - 1) / 20), (i - 1) % 20 + 1, now()
    FROM generate_series(1, ${texts}) i`);
  await db.execute(sql`
    INSERT INTO gb_chunks (dataset_id, id, text_id, run_id, idx, content, summary, token_count, broader, created_at)
    SELECT dataset_id, md5(id::text || 'c')::uuid, id, run_id, 0, content, content, 24, ${await broaderWords("Person likes and lives in Place near")}, created_at
    FROM gb_texts WHERE dataset_id = ${id}`);
  await db.execute(sql`
    INSERT INTO gb_facts (dataset_id, id, subject_id, predicate, object_id, object_value, sentence, created_at, text_id, chunk_id, created_run_id)
    SELECT t.dataset_id, md5(t.id::text || 'f' || k)::uuid, md5(${id} || 'p' || ((n % ${people}) + 1))::uuid,
      CASE k WHEN 0 THEN 'likes' ELSE 'lives_in' END,
      CASE k WHEN 0 THEN NULL ELSE md5(${id} || 'l' || ((n % ${places}) + 1))::uuid END,
      CASE k WHEN 0 THEN ${word("n")} ELSE NULL END,
      split_part(t.content, '. ', k + 1), now(), t.id, md5(t.id::text || 'c')::uuid, ${run}
    FROM (SELECT *, (row_number() OVER (ORDER BY id))::bigint AS n FROM gb_texts WHERE dataset_id = ${id}) t, generate_series(0, 1) k`);
  if (opts.embeddings) {
    // a person's direction plus a text's own: pseudo-random components, deterministic, of the
    // given size. Sums of a few sinusoids in k (as this was) lie in a space of four dimensions, so
    // their sign bits were far more alike than real embeddings' and the cells without pgvector
    // (db/vector-cells.ts) were measured on rows no model gives. Component k of a seed: a hash of
    // k (hashint8extended, in [-1, 1) once divided), a quarter the time of hashing text in PGlite.
    const dims = Math.trunc(opts.embeddings);
    const component = (seed: string) => `(hashint8extended(k, ${seed})::float8 / 9223372036854775808.0)`;
    // topics' seeds are under 97 in magnitude, a row's own above 900,000: never the same
    const vector = (topic: string, own: string) =>
      sql.raw(`ARRAY(SELECT (${component(`(${topic})`)} + 0.6 * ${component(`(${own}) + 1000000`)})::real FROM generate_series(1, ${dims}) k)`);
    await db.execute(sql`UPDATE gb_chunks c SET embedding = ${vector("hashtext(t.series_key) % 97", "hashtext(c.id::text) % 100000")}
      FROM gb_texts t WHERE c.dataset_id = ${id} AND t.dataset_id = c.dataset_id AND t.id = c.text_id`);
    await db.execute(sql`UPDATE gb_facts f SET embedding = ${vector("hashtext(f.subject_id::text) % 97", "hashtext(f.id::text) % 100000")} WHERE f.dataset_id = ${id}`);
  }
  // every seeded fact is current, so no chunk is retired (the column's default): the chunk
  // retired trigger is left out of this one statement. In a database that has never had
  // statistics, its lookup of each chunk's mentions was planned by the dataset alone, a scan of
  // the dataset's mentions per chunk: 100k facts into a fresh database did not end. The app
  // writes a text's mentions at a time, and autovacuum keeps the statistics. One transaction:
  // the trigger is never left off.
  await db.transaction(async (tx) => {
    await tx.execute(sql`ALTER TABLE gb_mentions DISABLE TRIGGER gb_mentions_retire_insert`);
    await tx.execute(sql`
      INSERT INTO gb_mentions (dataset_id, chunk_id, target_kind, target_id, text_id, run_id)
      SELECT dataset_id, chunk_id, 'fact', id, text_id, created_run_id FROM gb_facts WHERE dataset_id = ${id}`);
    await tx.execute(sql`ALTER TABLE gb_mentions ENABLE TRIGGER gb_mentions_retire_insert`);
  });
  await db.execute(sql`
    INSERT INTO gb_term_stats (dataset_id, lexeme, df)
    SELECT dataset_id, lexeme, count(*) FROM gb_chunks, unnest(tsvector_to_array(search_tsv)) AS lexeme WHERE dataset_id = ${id} GROUP BY dataset_id, lexeme`);
  await db.execute(sql`
    INSERT INTO gb_search_stats (dataset_id, chunks, lexemes)
    SELECT dataset_id, count(*), sum(length(search_tsv)) FROM gb_chunks WHERE dataset_id = ${id} GROUP BY dataset_id`);
  // as autovacuum would have by now: statistics, and the visibility map for index-only scans
  // (analyze: false leaves the statistics as they were, to see plans made without them)
  if (opts.analyze ?? true) await db.execute(sql`VACUUM ANALYZE`);
  return { datasetName: ds.name, datasetId: id, people };
}
