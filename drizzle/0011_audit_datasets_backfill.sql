-- Audit events recorded before gb_audit_log.dataset_ids existed: fill it in from what their
-- details say, so a key restricted to some datasets still sees the older events of its own
-- datasets. Anything that cannot be told for sure stays NULL (team-wide: unrestricted callers only).
UPDATE "gb_audit_log" SET "dataset_ids" = ARRAY[("details"->>'datasetId')::uuid]
WHERE "action" IN ('dataset.create', 'dataset.delete') AND "dataset_ids" IS NULL
  AND ("details"->>'datasetId') ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
--> statement-breakpoint
UPDATE "gb_audit_log" a SET "dataset_ids" = k."dataset_ids"
FROM "gb_api_keys" k
WHERE a."action" IN ('key.create', 'key.revoke') AND a."dataset_ids" IS NULL
  AND k."id"::text = a."details"->>'keyId' AND k."dataset_ids" IS NOT NULL;
--> statement-breakpoint
-- a purge names its datasets; only when every name still resolves in the team
UPDATE "gb_audit_log" a SET "dataset_ids" = m."ids"
FROM (
  SELECT l."id", array_agg(d."id") AS "ids", count(d."id") AS "found", jsonb_array_length(l."details"->'datasets') AS "named"
  FROM "gb_audit_log" l
  CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(l."details"->'datasets') = 'array' THEN l."details"->'datasets' ELSE '[]'::jsonb END) AS n("name")
  LEFT JOIN "datasets" d ON d."team_id" = l."team_id" AND d."name" = n."name"
  WHERE l."action" = 'subject.purge' AND l."dataset_ids" IS NULL
  GROUP BY l."id"
) m
WHERE a."id" = m."id" AND m."found" = m."named" AND m."named" > 0;
