ALTER TABLE "gb_entities" ADD COLUMN "country" text;--> statement-breakpoint
ALTER TABLE "gb_entities" ADD COLUMN "geo_id" text;--> statement-breakpoint
ALTER TABLE "gb_facts" ADD COLUMN "num_value" double precision;--> statement-breakpoint
ALTER TABLE "gb_facts" ADD COLUMN "unit" text;--> statement-breakpoint
ALTER TABLE "gb_texts" ADD COLUMN "kind" text DEFAULT 'text' NOT NULL;--> statement-breakpoint
ALTER TABLE "gb_texts" ADD COLUMN "derived_from" jsonb;--> statement-breakpoint
CREATE INDEX "gb_entities_geo_idx" ON "gb_entities" USING btree ("dataset_id","lat","lon") WHERE lat IS NOT NULL;