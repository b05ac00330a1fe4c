-- conf_latin1: changes with non-ASCII keys and values, a key change (headers), a delete
-- (tombstone), logical decoding messages with non-ASCII prefixes.
SET client_encoding = 'UTF8';

INSERT INTO "sché"."café" VALUES
    ('clé°', DEFAULT, DEFAULT, 'naïve', '{"clé": "é"}', '{"ü": ["ß", "±"]}',
     '<a b="ç">é</a>', 'clé=>"é", "ø"=>NULL, "à"=>"ÿ"', 'gaieté', ARRAY['à', NULL, '±'],
     ARRAY['gaieté', 'colère']::"humeur"[], 'été à Noël'),
    ('¿qué?', 'crêpe', NULL, '', '"¡"', '"¶"', '<p/>', '"µ"=>"¼"', 'colère', '{}', '{}', '');
UPDATE "sché"."café" SET "crème" = 'île flottante', h = 'Ä=>Ö' WHERE "clé" = 'clé°';
UPDATE "sché"."café" SET "clé" = 'clé²' WHERE "clé" = 'clé°';
DELETE FROM "sché"."café" WHERE "clé" = '¿qué?';
INSERT INTO "façade" VALUES (1, 'Ångström'), (2, NULL);

BEGIN;
UPDATE "façade" SET "âme" = 'Þórr' WHERE id = 2;
SELECT pg_logical_emit_message(true, 'préfixe', 'contenu é');
COMMIT;
SELECT pg_logical_emit_message(false, 'préfixe¹', 'ü');
