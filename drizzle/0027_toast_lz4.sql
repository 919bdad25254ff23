-- The run logs' large values (a query's retrieve_graph receipt is about 17 KB of JSON; the model
-- calls' requests and responses, remember's outputs) are compressed as they are stored. pglz, the
-- default, spent about 0.4 ms of the server's CPU on each 20 KB receipt; lz4 about a third of that
-- for much the same size. Only where the server was built with lz4 (PGlite is not): elsewhere the
-- columns keep the default.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE "gb_query_run_stage_outputs" ALTER COLUMN "output" SET COMPRESSION lz4;
    ALTER TABLE "gb_remember_run_stage_outputs" ALTER COLUMN "output" SET COMPRESSION lz4;
    ALTER TABLE "gb_inferences" ALTER COLUMN "request" SET COMPRESSION lz4;
    ALTER TABLE "gb_inferences" ALTER COLUMN "response" SET COMPRESSION lz4;
  END IF;
END $$;
