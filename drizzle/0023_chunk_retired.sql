ALTER TABLE "gb_chunks" ADD COLUMN "retired" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- A chunk is retired when it states facts and every one of them has been retired (expired_at; a
-- fact no longer held counts as retired). Recomputed for the chunks given, each looked up by key
-- (LATERAL ... OFFSET 0), so that the cost is that of the chunks given whatever the planner's
-- statistics say: a correlated subquery per chunk was planned as a scan of every fact (quadratic
-- on a bulk insert).
CREATE OR REPLACE FUNCTION gb_chunks_retire(ds uuid[], ids uuid[]) RETURNS void
LANGUAGE sql AS $$
  UPDATE gb_chunks c SET retired = r.retired
  FROM (
    SELECT k.dataset_id, k.chunk_id, coalesce(bool_and(x.expired), false) AS retired
    FROM (SELECT DISTINCT dataset_id, chunk_id FROM unnest(ds, ids) AS u(dataset_id, chunk_id)) k
    LEFT JOIN LATERAL (
      SELECT f.expired_at IS NOT NULL OR f.id IS NULL AS expired
      FROM (SELECT m.dataset_id, m.target_id FROM gb_mentions m
            WHERE m.dataset_id = k.dataset_id AND m.chunk_id = k.chunk_id AND m.target_kind = 'fact' OFFSET 0) m
      LEFT JOIN LATERAL (SELECT f.id, f.expired_at FROM gb_facts f WHERE f.dataset_id = m.dataset_id AND f.id = m.target_id OFFSET 0) f ON true
    ) x ON true
    GROUP BY k.dataset_id, k.chunk_id
  ) r
  WHERE c.dataset_id = r.dataset_id AND c.id = r.chunk_id AND c.retired IS DISTINCT FROM r.retired
$$;
--> statement-breakpoint
-- The chunks whose fact mentions a statement added or removed (its transition table `changed`).
CREATE OR REPLACE FUNCTION gb_mentions_retire() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gb_chunks_retire(array_agg(dataset_id), array_agg(chunk_id)) FROM changed WHERE target_kind = 'fact' HAVING count(*) > 0;
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
  PERFORM gb_chunks_retire(array_agg(m.dataset_id), array_agg(m.chunk_id))
  FROM gb_mentions m WHERE m.dataset_id = NEW.dataset_id AND m.target_kind = 'fact' AND m.target_id = NEW.id HAVING count(*) > 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER gb_facts_retire_update AFTER UPDATE OF expired_at ON gb_facts FOR EACH ROW WHEN (OLD.expired_at IS DISTINCT FROM NEW.expired_at) EXECUTE FUNCTION gb_facts_retire();
--> statement-breakpoint
-- The chunks that state a deleted fact (its mentions are usually deleted first: then none).
CREATE OR REPLACE FUNCTION gb_facts_retire_gone() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM gb_chunks_retire(array_agg(m.dataset_id), array_agg(m.chunk_id))
  FROM gone g CROSS JOIN LATERAL (
    SELECT m.dataset_id, m.chunk_id FROM gb_mentions m WHERE m.dataset_id = g.dataset_id AND m.target_kind = 'fact' AND m.target_id = g.id OFFSET 0
  ) m HAVING count(*) > 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER gb_facts_retire_delete AFTER DELETE ON gb_facts REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION gb_facts_retire_gone();
--> statement-breakpoint
-- what is already stored (hash joins: one pass over the mentions)
UPDATE gb_chunks c SET retired = true
FROM (
  SELECT m.dataset_id, m.chunk_id FROM gb_mentions m
  LEFT JOIN gb_facts f ON f.dataset_id = m.dataset_id AND f.id = m.target_id
  WHERE m.target_kind = 'fact'
  GROUP BY m.dataset_id, m.chunk_id
  HAVING bool_and(f.expired_at IS NOT NULL OR f.id IS NULL)
) r
WHERE c.dataset_id = r.dataset_id AND c.id = r.chunk_id;
