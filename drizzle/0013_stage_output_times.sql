-- Each stage output keeps when its stage began and ended on the item (the waterfall's item bars,
-- runs.*.timeline), instead of the waterfall inferring it from when outputs were written. The
-- outputs kept before have no such times: they get their write time for both (drawn as an instant).
ALTER TABLE "gb_query_run_stage_outputs" ADD COLUMN "started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "gb_query_run_stage_outputs" ADD COLUMN "finished_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "gb_remember_run_stage_outputs" ADD COLUMN "started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "gb_remember_run_stage_outputs" ADD COLUMN "finished_at" timestamp with time zone;--> statement-breakpoint
UPDATE "gb_query_run_stage_outputs" SET "started_at" = "created_at", "finished_at" = "created_at";--> statement-breakpoint
UPDATE "gb_remember_run_stage_outputs" SET "started_at" = "created_at", "finished_at" = "created_at";--> statement-breakpoint
ALTER TABLE "gb_query_run_stage_outputs" ALTER COLUMN "started_at" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "gb_query_run_stage_outputs" ALTER COLUMN "finished_at" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "gb_remember_run_stage_outputs" ALTER COLUMN "started_at" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "gb_remember_run_stage_outputs" ALTER COLUMN "finished_at" SET NOT NULL;
