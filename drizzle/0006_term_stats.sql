CREATE TABLE "gb_search_stats" (
	"dataset_id" uuid PRIMARY KEY NOT NULL,
	"chunks" integer NOT NULL,
	"lexemes" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gb_term_stats" (
	"dataset_id" uuid NOT NULL,
	"lexeme" text NOT NULL,
	"df" integer NOT NULL,
	CONSTRAINT "gb_term_stats_dataset_id_lexeme_pk" PRIMARY KEY("dataset_id","lexeme")
);
