CREATE TABLE "gb_chunks" (
	"dataset_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"text_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"idx" integer NOT NULL,
	"content" text NOT NULL,
	"summary" text NOT NULL,
	"token_count" integer NOT NULL,
	"embedding" real[],
	"created_at" timestamp with time zone NOT NULL,
	"search_tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', coalesce(summary, '') || ' ' || content)) STORED,
	CONSTRAINT "gb_chunks_dataset_id_id_pk" PRIMARY KEY("dataset_id","id")
);
--> statement-breakpoint
CREATE TABLE "gb_entities" (
	"dataset_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"type" text NOT NULL,
	"aliases" text[] DEFAULT '{}' NOT NULL,
	"alias_keys" text[] DEFAULT '{}' NOT NULL,
	"summary" text,
	"embedding" real[],
	"lat" double precision,
	"lon" double precision,
	"created_at" timestamp with time zone NOT NULL,
	"created_run_id" uuid,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "gb_entities_dataset_id_id_pk" PRIMARY KEY("dataset_id","id")
);
--> statement-breakpoint
CREATE TABLE "gb_facts" (
	"dataset_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"subject_id" uuid NOT NULL,
	"predicate" text NOT NULL,
	"object_id" uuid,
	"object_value" text,
	"sentence" text NOT NULL,
	"valid_at" timestamp with time zone,
	"invalid_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"expired_at" timestamp with time zone,
	"text_id" uuid NOT NULL,
	"chunk_id" uuid NOT NULL,
	"created_run_id" uuid NOT NULL,
	"invalidated_run_id" uuid,
	"invalidated_by" uuid,
	"embedding" real[],
	"sentence_tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', sentence)) STORED,
	CONSTRAINT "gb_facts_dataset_id_id_pk" PRIMARY KEY("dataset_id","id")
);
--> statement-breakpoint
CREATE TABLE "gb_mentions" (
	"dataset_id" uuid NOT NULL,
	"chunk_id" uuid NOT NULL,
	"target_kind" text NOT NULL,
	"target_id" uuid NOT NULL,
	"text_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	CONSTRAINT "gb_mentions_dataset_id_chunk_id_target_kind_target_id_pk" PRIMARY KEY("dataset_id","chunk_id","target_kind","target_id")
);
--> statement-breakpoint
CREATE TABLE "gb_remember_run_stage_outputs" (
	"dataset_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"stage" text NOT NULL,
	"item_index" integer NOT NULL,
	"output" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "gb_remember_run_stage_outputs_dataset_id_run_id_stage_item_index_pk" PRIMARY KEY("dataset_id","run_id","stage","item_index")
);
--> statement-breakpoint
CREATE TABLE "gb_texts" (
	"dataset_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"content" text NOT NULL,
	"source" jsonb NOT NULL,
	"series_key" text,
	"series_position" integer,
	"occurred_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "gb_texts_dataset_id_id_pk" PRIMARY KEY("dataset_id","id")
);
--> statement-breakpoint
ALTER TABLE "gb_remember_runs" ADD COLUMN "seq" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "gb_remember_runs_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
ALTER TABLE "gb_remember_runs" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "gb_remember_runs" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "gb_chunks_text_idx" ON "gb_chunks" USING btree ("dataset_id","text_id","idx");--> statement-breakpoint
CREATE INDEX "gb_chunks_tsv_idx" ON "gb_chunks" USING gin ("search_tsv");--> statement-breakpoint
CREATE INDEX "gb_entities_name_key_idx" ON "gb_entities" USING btree ("dataset_id","name_key");--> statement-breakpoint
CREATE INDEX "gb_entities_alias_keys_idx" ON "gb_entities" USING gin ("alias_keys");--> statement-breakpoint
CREATE INDEX "gb_entities_name_trgm_idx" ON "gb_entities" USING gin ("name_key" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "gb_entities_name_idx" ON "gb_entities" USING btree ("dataset_id","name");--> statement-breakpoint
CREATE INDEX "gb_entities_run_idx" ON "gb_entities" USING btree ("dataset_id","created_run_id");--> statement-breakpoint
CREATE INDEX "gb_facts_subject_idx" ON "gb_facts" USING btree ("dataset_id","subject_id","predicate") WHERE expired_at IS NULL;--> statement-breakpoint
CREATE INDEX "gb_facts_object_idx" ON "gb_facts" USING btree ("dataset_id","object_id");--> statement-breakpoint
CREATE INDEX "gb_facts_subject_all_idx" ON "gb_facts" USING btree ("dataset_id","subject_id");--> statement-breakpoint
CREATE INDEX "gb_facts_tsv_idx" ON "gb_facts" USING gin ("sentence_tsv");--> statement-breakpoint
CREATE INDEX "gb_facts_created_run_idx" ON "gb_facts" USING btree ("dataset_id","created_run_id");--> statement-breakpoint
CREATE INDEX "gb_facts_invalidated_run_idx" ON "gb_facts" USING btree ("dataset_id","invalidated_run_id");--> statement-breakpoint
CREATE INDEX "gb_mentions_target_idx" ON "gb_mentions" USING btree ("dataset_id","target_kind","target_id");--> statement-breakpoint
CREATE INDEX "gb_texts_run_idx" ON "gb_texts" USING btree ("dataset_id","run_id");--> statement-breakpoint
CREATE INDEX "gb_texts_series_idx" ON "gb_texts" USING btree ("dataset_id","series_key","series_position");--> statement-breakpoint
CREATE INDEX "gb_remember_runs_queued_idx" ON "gb_remember_runs" USING btree ("dataset_id","seq") WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX "gb_remember_runs_started_idx" ON "gb_remember_runs" USING btree ("dataset_id","lease_expires_at") WHERE status = 'started';