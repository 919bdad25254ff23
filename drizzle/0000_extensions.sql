-- Extensions the schema and queries use. drizzle-kit never writes CREATE EXTENSION, hence this
-- custom migration. pgvector is optional: the Postgres servers we test on have none, and then
-- vector search uses gb_cosine_distance below instead of the HNSW index.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
  END IF;
END
$$;
--> statement-breakpoint
-- Cosine distance over real[] (the form embeddings are stored in, so that both kinds of server
-- can read them): the correct, slower path where pgvector is absent. Same value as pgvector's <=>.
CREATE OR REPLACE FUNCTION gb_cosine_distance(a real[], b real[]) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 1 - sum(x::double precision * y) / nullif(sqrt(sum(x::double precision * x)) * sqrt(sum(y::double precision * y)), 0)
  FROM unnest(a, b) AS t(x, y)
$$;
