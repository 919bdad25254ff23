DROP INDEX "gb_chunks_text_idx";--> statement-breakpoint
ALTER TABLE "gb_query_runs" ADD COLUMN "embed_question_status" text DEFAULT 'not_started' NOT NULL;--> statement-breakpoint
ALTER TABLE "gb_query_runs" ADD COLUMN "embed_question_error" text;--> statement-breakpoint
ALTER TABLE "gb_query_runs" ADD COLUMN "embed_question_started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "gb_query_runs" ADD COLUMN "embed_question_finished_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "gb_query_runs" ADD COLUMN "embed_question_inference_ids" uuid[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "gb_remember_runs" ADD COLUMN "lease_lock" bigint;--> statement-breakpoint
ALTER TABLE "gb_remember_runs" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "gb_remember_runs" ADD COLUMN "failed_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "gb_remember_runs" ADD COLUMN "attempt_errors" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "gb_remember_runs" ADD COLUMN "retry_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "gb_remember_runs" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "gb_remember_runs" ADD COLUMN "idempotency_hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "gb_remember_runs_idempotency_idx" ON "gb_remember_runs" USING btree ("dataset_id","idempotency_key") WHERE idempotency_key IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "gb_chunks_text_idx" ON "gb_chunks" USING btree ("dataset_id","text_id","idx");