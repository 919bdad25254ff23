-- HNSW indexes for embedding search where pgvector exists (PGlite ships it; the test server has
-- none, and there search uses gb_cosine_distance by a scan). Embeddings are real[]; the index is
-- on the cast to vector(256), the size of the builtin embeddings and of GB_EMBEDDING_DIMENSIONS'
-- default, and queries use the same expression (src/server/db/vector.ts). Rows of another size
-- are left out of the index (the WHERE clause) rather than failing the cast.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
    EXECUTE 'CREATE INDEX IF NOT EXISTS gb_entities_embedding_hnsw ON gb_entities USING hnsw ((embedding::vector(256)) vector_cosine_ops) WHERE array_length(embedding, 1) = 256';
    EXECUTE 'CREATE INDEX IF NOT EXISTS gb_facts_embedding_hnsw ON gb_facts USING hnsw ((embedding::vector(256)) vector_cosine_ops) WHERE array_length(embedding, 1) = 256 AND expired_at IS NULL';
    EXECUTE 'CREATE INDEX IF NOT EXISTS gb_chunks_embedding_hnsw ON gb_chunks USING hnsw ((embedding::vector(256)) vector_cosine_ops) WHERE array_length(embedding, 1) = 256';
  END IF;
END
$$;
