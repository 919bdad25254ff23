-- btree_gist: GiST indexes that start with dataset_id (a uuid), such as the similar-name index
-- of gb_entities (dataset_id, name_key gist_trgm_ops), whose nearest-first scan finds a name's
-- five most similar without reading every entity that shares a trigram with it. Trusted, in
-- PostgreSQL's contrib like pg_trgm; PGlite loads it (src/server/db/pglite-worker.ts).
CREATE EXTENSION IF NOT EXISTS btree_gist;
