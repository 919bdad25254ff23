CREATE TABLE "short_term_memories" (
	"dataset_id" uuid NOT NULL,
	"key" text NOT NULL,
	"kind" text NOT NULL,
	"user_id" text,
	"server_id" text,
	"channel_id" text NOT NULL,
	"persona_id" text,
	"writers" text[] DEFAULT '{}' NOT NULL,
	"summary" text,
	"categories" jsonb,
	"version" integer DEFAULT 0 NOT NULL,
	"turns_since_upgrade" integer DEFAULT 0 NOT NULL,
	"last_upgrade_at" timestamp with time zone,
	"last_upgrade_turn" text,
	"epoch" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "short_term_memories_dataset_id_key_pk" PRIMARY KEY("dataset_id","key")
);
--> statement-breakpoint
CREATE TABLE "short_term_memory_versions" (
	"dataset_id" uuid NOT NULL,
	"key" text NOT NULL,
	"version" integer NOT NULL,
	"summary" text,
	"categories" jsonb,
	"turn_id" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "short_term_memory_versions_dataset_id_key_version_pk" PRIMARY KEY("dataset_id","key","version")
);
--> statement-breakpoint
ALTER TABLE "short_term_memory_versions" ADD CONSTRAINT "short_term_memory_versions_dataset_id_key_short_term_memories_dataset_id_key_fk" FOREIGN KEY ("dataset_id","key") REFERENCES "public"."short_term_memories"("dataset_id","key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "short_term_memories_user_idx" ON "short_term_memories" USING btree ("dataset_id","user_id");--> statement-breakpoint
CREATE INDEX "short_term_memories_server_idx" ON "short_term_memories" USING btree ("dataset_id","server_id");--> statement-breakpoint
CREATE INDEX "short_term_memories_channel_idx" ON "short_term_memories" USING btree ("dataset_id","channel_id");--> statement-breakpoint
CREATE INDEX "short_term_memories_writers_idx" ON "short_term_memories" USING gin ("writers");