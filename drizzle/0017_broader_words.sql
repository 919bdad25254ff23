ALTER TABLE "gb_chunks" ADD COLUMN "broader" text;--> statement-breakpoint
ALTER TABLE "gb_chunks" ADD COLUMN "broader_tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', translate(coalesce(broader, ''), '/', ' '))) STORED;--> statement-breakpoint
ALTER TABLE "gb_term_stats" ADD COLUMN "bdf" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "gb_chunks_broader_tsv_idx" ON "gb_chunks" USING gin ("broader_tsv") WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "gb_chunks_broader_todo_idx" ON "gb_chunks" USING btree ("dataset_id") WHERE broader IS NULL;