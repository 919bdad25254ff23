-- Vector search where pgvector is absent (src/server/db/vector-cells.ts): each embedding's sign
-- bits, one per dimension (1 where the component is positive), which Postgres keeps in a generated
-- column; the Hamming distance between two (bit_count(a # b)) ranks neighbours for a fraction of
-- the cost of the cosine, which then ranks the few it chose.
CREATE OR REPLACE FUNCTION gb_sign_bits(a real[]) RETURNS varbit
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT string_agg(CASE WHEN x > 0 THEN '1' ELSE '0' END, '' ORDER BY i)::varbit FROM unnest(a) WITH ORDINALITY AS t(x, i)
$$;
--> statement-breakpoint
CREATE TABLE "gb_vector_pivots" (
	"dataset_id" uuid NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "gb_vector_pivots_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"generation" integer NOT NULL,
	"rows" integer NOT NULL,
	"bits" "varbit" NOT NULL,
	CONSTRAINT "gb_vector_pivots_dataset_id_id_pk" PRIMARY KEY("dataset_id","id")
);
--> statement-breakpoint
ALTER TABLE "gb_chunks" ADD COLUMN "embedding_bits" "varbit" GENERATED ALWAYS AS (gb_sign_bits(embedding)) STORED;--> statement-breakpoint
ALTER TABLE "gb_chunks" ADD COLUMN "embedding_cell" bigint;--> statement-breakpoint
ALTER TABLE "gb_facts" ADD COLUMN "embedding_bits" "varbit" GENERATED ALWAYS AS (gb_sign_bits(embedding)) STORED;--> statement-breakpoint
ALTER TABLE "gb_facts" ADD COLUMN "embedding_cell" bigint;--> statement-breakpoint
CREATE INDEX "gb_vector_pivots_kind_idx" ON "gb_vector_pivots" USING btree ("dataset_id","kind","generation");--> statement-breakpoint
CREATE INDEX "gb_chunks_embedding_cell_idx" ON "gb_chunks" USING btree ("dataset_id","embedding_cell");--> statement-breakpoint
CREATE INDEX "gb_facts_embedding_cell_idx" ON "gb_facts" USING btree ("dataset_id","embedding_cell");