-- conf_sql_ascii: UTF-8 text, passed on as it is, in values and a message prefix.
SET client_encoding = 'UTF8';

INSERT INTO "tëxt" VALUES
    (1, 'déjà ✓ 😀', 'ünïcode', '{"é": "✓"}', ARRAY['à', '😀']),
    (2, DEFAULT, 'ß', NULL, NULL);
UPDATE "tëxt" SET vc = '東京' WHERE id = 1;
DELETE FROM "tëxt" WHERE id = 2;
INSERT INTO "émoji😀" VALUES (1, '😀😀');
SELECT pg_logical_emit_message(true, 'préfixe', 'contenu é');
