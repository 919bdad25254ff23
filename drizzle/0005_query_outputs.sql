CREATE TABLE "gb_query_run_stage_outputs" (
	"dataset_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"stage" text NOT NULL,
	"item_index" integer NOT NULL,
	"output" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "gb_query_run_stage_outputs_dataset_id_run_id_stage_item_index_pk" PRIMARY KEY("dataset_id","run_id","stage","item_index")
);
