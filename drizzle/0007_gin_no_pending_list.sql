-- GIN indexes without a pending list (see noPendingList in src/server/db/schema/graph.ts). ALTER
-- rather than the drop and create drizzle-kit writes: the same index, without rebuilding it.
ALTER INDEX "gb_chunks_tsv_idx" SET (fastupdate = false);--> statement-breakpoint
ALTER INDEX "gb_entities_alias_keys_idx" SET (fastupdate = false);--> statement-breakpoint
ALTER INDEX "gb_entities_name_trgm_idx" SET (fastupdate = false);--> statement-breakpoint
ALTER INDEX "gb_facts_tsv_idx" SET (fastupdate = false);
