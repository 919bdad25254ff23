-- The name key changed (src/server/text/name-key.ts: one key for store, query, graph search,
-- load_candidates and the builtin resolver; "AT&T" = "AT & T", "U.S." = "US", "Acme's" = "Acme").
-- Stored keys are recomputed with the same function in SQL (sqlNameKeyText), so that an entity
-- stored before is found by the new key. Alias keys keep the order of their first alias, without
-- empty keys or repeats, as store writes them.
UPDATE "gb_entities" e SET "name_key" = k."name_key", "alias_keys" = k."alias_keys"
FROM (
  SELECT "dataset_id", "id", regexp_replace(btrim(regexp_replace(replace(regexp_replace(regexp_replace(regexp_replace(lower(regexp_replace(normalize("name", NFKD), '[̀-ͯ᪰-᫿᷀-᷿⃐-⃿︠-︯]', '', 'g')), '[''’]s\y', '', 'g'), '(?<![[:alnum:]])([[:alpha:]])\.', '\1', 'g'), '[''’]', '', 'g'), '&', ' and '), '[^[:alnum:]]+', ' ', 'g')), '^(the|a|an) ', '') AS "name_key",
    coalesce((
      SELECT array_agg(x."key" ORDER BY x."first")
      FROM (
        SELECT regexp_replace(btrim(regexp_replace(replace(regexp_replace(regexp_replace(regexp_replace(lower(regexp_replace(normalize(a."alias", NFKD), '[̀-ͯ᪰-᫿᷀-᷿⃐-⃿︠-︯]', '', 'g')), '[''’]s\y', '', 'g'), '(?<![[:alnum:]])([[:alpha:]])\.', '\1', 'g'), '[''’]', '', 'g'), '&', ' and '), '[^[:alnum:]]+', ' ', 'g')), '^(the|a|an) ', '') AS "key", min(a."n") AS "first"
        FROM unnest("aliases") WITH ORDINALITY AS a("alias", "n")
        GROUP BY 1
      ) x
      WHERE x."key" <> ''
    ), '{}') AS "alias_keys"
  FROM "gb_entities"
) k
WHERE e."dataset_id" = k."dataset_id" AND e."id" = k."id"
  AND (e."name_key" IS DISTINCT FROM k."name_key" OR e."alias_keys" IS DISTINCT FROM k."alias_keys");
