-- Where pgvector is absent, each process keeps a copy of the vector cells it searches in memory
-- (src/server/db/vector-memo.ts). A cell's version is raised in the statement that moves a row into
-- it or out of it (placeInCells), so a copy read with its version holds the cell's rows for as long
-- as the version stays; a question reads a cell whose version moved from the table, as before.
ALTER TABLE "gb_vector_pivots" ADD COLUMN "version" bigint DEFAULT 0 NOT NULL;
