-- btree_gin: the full-text indexes of chunks and facts start with dataset_id, so that one index
-- answers "this dataset's rows that say these words". The lists' one statement is planned once
-- for every dataset (a generic plan, #16), and with the full-text index alone that plan ANDed its
-- bitmap with one of every row of the dataset (1.6 ms at 100k facts for a name 60 rows say).
-- Trusted, in PostgreSQL's contrib like btree_gist; PGlite loads it (src/server/db/pglite-worker.ts).
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
DROP INDEX "gb_chunks_tsv_idx";--> statement-breakpoint
DROP INDEX "gb_chunks_broader_tsv_idx";--> statement-breakpoint
DROP INDEX "gb_facts_tsv_idx";--> statement-breakpoint
CREATE INDEX "gb_chunks_tsv_idx" ON "gb_chunks" USING gin ("dataset_id","search_tsv") WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "gb_chunks_broader_tsv_idx" ON "gb_chunks" USING gin ("dataset_id","broader_tsv") WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "gb_facts_tsv_idx" ON "gb_facts" USING gin ("dataset_id","sentence_tsv") WITH (fastupdate=false);