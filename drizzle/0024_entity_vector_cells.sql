-- Remember's load_candidates without pgvector: entities get the sign bits and vector cells that
-- chunks and facts have (0021, src/server/db/vector-cells.ts), so that finding the entities near
-- a chunk entity's embedding reads a few cells, not every entity of the dataset by the cosine.
ALTER TABLE "gb_entities" ADD COLUMN "embedding_bits" "varbit" GENERATED ALWAYS AS (gb_sign_bits(embedding)) STORED;--> statement-breakpoint
ALTER TABLE "gb_entities" ADD COLUMN "embedding_cell" bigint;--> statement-breakpoint
CREATE INDEX "gb_entities_embedding_cell_idx" ON "gb_entities" USING btree ("dataset_id","embedding_cell");--> statement-breakpoint
CREATE INDEX "gb_entities_embedding_todo_idx" ON "gb_entities" USING btree ("dataset_id") WHERE embedding_cell IS NULL AND embedding_bits IS NOT NULL;