DROP INDEX "gb_entities_name_trgm_idx";--> statement-breakpoint
CREATE INDEX "gb_entities_name_knn_idx" ON "gb_entities" USING gist ("dataset_id","name_key" gist_trgm_ops);