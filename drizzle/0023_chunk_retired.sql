ALTER TABLE "gb_chunks" ADD COLUMN "retired" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- A chunk is retired when it states facts and every one of them has been retired (expired_at).
CREATE OR REPLACE FUNCTION gb_chunk_retired(ds uuid, chunk uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM gb_mentions m WHERE m.dataset_id = ds AND m.chunk_id = chunk AND m.target_kind = 'fact')
    AND NOT EXISTS (
      SELECT 1 FROM gb_mentions m JOIN gb_facts f ON f.dataset_id = m.dataset_id AND f.id = m.target_id
      WHERE m.dataset_id = ds AND m.chunk_id = chunk AND m.target_kind = 'fact' AND f.expired_at IS NULL)
$$;
--> statement-breakpoint
-- The chunks whose fact mentions a statement added or removed (its transition table `changed`).
CREATE OR REPLACE FUNCTION gb_mentions_retire() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE gb_chunks c SET retired = NOT c.retired
  FROM (SELECT DISTINCT dataset_id, chunk_id FROM changed WHERE target_kind = 'fact') k
  WHERE c.dataset_id = k.dataset_id AND c.id = k.chunk_id AND c.retired IS DISTINCT FROM gb_chunk_retired(c.dataset_id, c.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER gb_mentions_retire_insert AFTER INSERT ON gb_mentions REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION gb_mentions_retire();
--> statement-breakpoint
CREATE TRIGGER gb_mentions_retire_delete AFTER DELETE ON gb_mentions REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION gb_mentions_retire();
--> statement-breakpoint
-- The chunks that state a fact whose expired_at changed (a row trigger: only such rows fire it).
CREATE OR REPLACE FUNCTION gb_facts_retire() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE gb_chunks c SET retired = NOT c.retired
  FROM gb_mentions m
  WHERE m.dataset_id = NEW.dataset_id AND m.target_kind = 'fact' AND m.target_id = NEW.id
    AND c.dataset_id = m.dataset_id AND c.id = m.chunk_id AND c.retired IS DISTINCT FROM gb_chunk_retired(c.dataset_id, c.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER gb_facts_retire_update AFTER UPDATE OF expired_at ON gb_facts FOR EACH ROW WHEN (OLD.expired_at IS DISTINCT FROM NEW.expired_at) EXECUTE FUNCTION gb_facts_retire();
--> statement-breakpoint
-- The chunks that state a deleted fact (its mentions are usually deleted first: then none).
CREATE OR REPLACE FUNCTION gb_facts_retire_gone() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE gb_chunks c SET retired = NOT c.retired
  FROM (SELECT DISTINCT m.dataset_id, m.chunk_id FROM gone g JOIN gb_mentions m ON m.dataset_id = g.dataset_id AND m.target_kind = 'fact' AND m.target_id = g.id) k
  WHERE c.dataset_id = k.dataset_id AND c.id = k.chunk_id AND c.retired IS DISTINCT FROM gb_chunk_retired(c.dataset_id, c.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER gb_facts_retire_delete AFTER DELETE ON gb_facts REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION gb_facts_retire_gone();
--> statement-breakpoint
UPDATE gb_chunks c SET retired = true WHERE gb_chunk_retired(c.dataset_id, c.id);
