-- The vector lists without pgvector (vector-cells.ts) read a question's cells by this index, and rank
-- their rows by id and sign bits: with both in the index, a question reads it alone, not a heap page
-- a row (an index-only scan once VACUUM has marked the pages; 1,371 rows of 16 cells at 100k facts:
-- 1.7 -> 0.25 ms a list).
DROP INDEX "gb_chunks_embedding_cell_idx";--> statement-breakpoint
DROP INDEX "gb_entities_embedding_cell_idx";--> statement-breakpoint
DROP INDEX "gb_facts_embedding_cell_idx";--> statement-breakpoint
CREATE INDEX "gb_chunks_embedding_cell_idx" ON "gb_chunks" USING btree ("dataset_id","embedding_cell","id","embedding_bits");--> statement-breakpoint
CREATE INDEX "gb_entities_embedding_cell_idx" ON "gb_entities" USING btree ("dataset_id","embedding_cell","id","embedding_bits");--> statement-breakpoint
CREATE INDEX "gb_facts_embedding_cell_idx" ON "gb_facts" USING btree ("dataset_id","embedding_cell","id","embedding_bits");