-- schema_name_adjustment_mode / field_name_adjustment_mode: none (default),
-- avro, avro_unicode; bad values are errors listing them.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('nadj_slot', 'cdc_kafka');
CREATE TABLE "nadj-t" ("1id" int PRIMARY KEY, "my col" text, _u int);
INSERT INTO "nadj-t" VALUES (1, 'a', 2);

SELECT data::json->'schema'->>'name' AS envelope,
	json_agg(f->>'field') AS fields, data::json->'payload'->'after' AS after
FROM pg_logical_slot_peek_changes('nadj_slot', NULL, NULL, 'topic_prefix', 'p',
	'schema_name_adjustment_mode', 'avro', 'field_name_adjustment_mode', 'avro'),
	json_array_elements(data::json->'schema'->'fields'->0->'fields') f
GROUP BY data;
SELECT data::json->'schema'->>'name' AS envelope, data::json->'payload'->'after' AS after
FROM pg_logical_slot_peek_changes('nadj_slot', NULL, NULL, 'topic_prefix', 'p',
	'schema_name_adjustment_mode', 'avro_unicode', 'field_name_adjustment_mode', 'AVRO_UNICODE');
SELECT data::json->'schema'->>'name' AS envelope, data::json->'payload'->'after' AS after
FROM pg_logical_slot_peek_changes('nadj_slot', NULL, NULL, 'topic_prefix', 'p');

SELECT data FROM pg_logical_slot_peek_changes('nadj_slot', NULL, NULL,
	'schema_name_adjustment_mode', 'avro-unicode');
SELECT data FROM pg_logical_slot_peek_changes('nadj_slot', NULL, NULL,
	'field_name_adjustment_mode', 'yes');
LOAD 'cdc_kafka';
ALTER SYSTEM SET cdc_kafka.field_name_adjustment_mode = 'unicode';

SELECT 'stop' FROM pg_drop_replication_slot('nadj_slot');
DROP TABLE "nadj-t";
