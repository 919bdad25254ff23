CREATE TABLE "gb_api_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"role" text NOT NULL,
	"dataset_ids" uuid[],
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "gb_audit_log" (
	"id" uuid PRIMARY KEY NOT NULL,
	"team_id" text,
	"at" timestamp with time zone NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"actor_label" text NOT NULL,
	"action" text NOT NULL,
	"target" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gb_auth_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"provider_id" text NOT NULL,
	"user_id" text NOT NULL,
	"access_token" text,
	"refresh_token" text,
	"id_token" text,
	"access_token_expires_at" timestamp with time zone,
	"refresh_token_expires_at" timestamp with time zone,
	"scope" text,
	"password" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gb_auth_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"token" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"ip_address" text,
	"user_agent" text,
	"user_id" text NOT NULL,
	CONSTRAINT "gb_auth_sessions_token_unique" UNIQUE("token")
);
--> statement-breakpoint
CREATE TABLE "gb_auth_users" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"email_verified" boolean DEFAULT false NOT NULL,
	"image" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "gb_auth_users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "gb_auth_verifications" (
	"id" text PRIMARY KEY NOT NULL,
	"identifier" text NOT NULL,
	"value" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gb_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gb_team_members" (
	"team_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gb_team_members_team_id_user_id_pk" PRIMARY KEY("team_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "gb_teams" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "datasets_name_key";--> statement-breakpoint
-- hand-edited: the default team exists from the start and owns the datasets made before teams
INSERT INTO "gb_teams" ("id", "name") VALUES ('default', 'Default team');--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "team_id" text NOT NULL DEFAULT 'default';--> statement-breakpoint
ALTER TABLE "datasets" ALTER COLUMN "team_id" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "gb_texts" ADD COLUMN "user_id" text;--> statement-breakpoint
ALTER TABLE "gb_api_keys" ADD CONSTRAINT "gb_api_keys_team_id_gb_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."gb_teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gb_auth_accounts" ADD CONSTRAINT "gb_auth_accounts_user_id_gb_auth_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."gb_auth_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gb_auth_sessions" ADD CONSTRAINT "gb_auth_sessions_user_id_gb_auth_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."gb_auth_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gb_team_members" ADD CONSTRAINT "gb_team_members_team_id_gb_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."gb_teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gb_team_members" ADD CONSTRAINT "gb_team_members_user_id_gb_auth_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."gb_auth_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "gb_api_keys_hash_key" ON "gb_api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "gb_api_keys_team_idx" ON "gb_api_keys" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE INDEX "gb_audit_log_team_at_idx" ON "gb_audit_log" USING btree ("team_id","at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "gb_auth_accounts_user_idx" ON "gb_auth_accounts" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "gb_auth_sessions_user_idx" ON "gb_auth_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "gb_team_members_user_idx" ON "gb_team_members" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_team_id_gb_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."gb_teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "datasets_team_name_key" ON "datasets" USING btree ("team_id","name");--> statement-breakpoint
CREATE INDEX "gb_texts_user_idx" ON "gb_texts" USING btree ("dataset_id","user_id");