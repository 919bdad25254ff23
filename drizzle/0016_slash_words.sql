-- "/" is read as a space in the full-text columns (#13): PostgreSQL's parser took "artists/bands"
-- or "and/or" for one file-path token. PostgreSQL 15 cannot change a generated column's
-- expression, so each column is dropped (with its index) and added again, which recomputes it.
ALTER TABLE "gb_chunks" drop column "search_tsv";--> statement-breakpoint
ALTER TABLE "gb_chunks" ADD COLUMN "search_tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', translate(coalesce(summary, '') || ' ' || content, '/', ' '))) STORED;--> statement-breakpoint
ALTER TABLE "gb_facts" drop column "sentence_tsv";--> statement-breakpoint
ALTER TABLE "gb_facts" ADD COLUMN "sentence_tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', translate(sentence, '/', ' '))) STORED;--> statement-breakpoint
CREATE INDEX "gb_chunks_tsv_idx" ON "gb_chunks" USING gin ("search_tsv") WITH (fastupdate = false);--> statement-breakpoint
CREATE INDEX "gb_facts_tsv_idx" ON "gb_facts" USING gin ("sentence_tsv") WITH (fastupdate = false);--> statement-breakpoint
-- the BM25 statistics count the chunks' lexemes: counted again from the new column
DELETE FROM "gb_term_stats";--> statement-breakpoint
INSERT INTO "gb_term_stats" ("dataset_id", "lexeme", "df")
  SELECT c.dataset_id, l.lexeme, count(*)::int FROM "gb_chunks" c CROSS JOIN LATERAL unnest(tsvector_to_array(c.search_tsv)) AS l(lexeme)
  GROUP BY c.dataset_id, l.lexeme;--> statement-breakpoint
DELETE FROM "gb_search_stats";--> statement-breakpoint
INSERT INTO "gb_search_stats" ("dataset_id", "chunks", "lexemes")
  SELECT dataset_id, count(*)::int, coalesce(sum(length(search_tsv)), 0)::int FROM "gb_chunks" GROUP BY dataset_id;
