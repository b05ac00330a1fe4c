-- format 'avro': what it needs, and a schema registry that cannot be
-- reached stops decoding with the registry named and consumes nothing.
-- (With a registry: test/t/037_avro_registry.pl.)
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('avro_slot', 'cdc_kafka');
CREATE TABLE avro_t (id int PRIMARY KEY, name text);
INSERT INTO avro_t VALUES (1, 'one');

-- the record format is json or avro
SELECT data FROM pg_logical_slot_peek_changes('avro_slot', NULL, NULL, 'format', 'protobuf');
-- avro needs a registry, and the schemas
SELECT data FROM pg_logical_slot_peek_binary_changes('avro_slot', NULL, NULL, 'format', 'avro');
SELECT data FROM pg_logical_slot_peek_binary_changes('avro_slot', NULL, NULL, 'format', 'avro',
	'schema_registry_url', 'http://127.0.0.1:9', 'schemas', 'false');
SELECT data FROM pg_logical_slot_peek_binary_changes('avro_slot', NULL, NULL, 'format', 'avro',
	'schema_registry_url', 'localhost:8081');
-- Avro values are bytes: the text functions refuse them, the record format
-- (JSON rows) carries them as base64
SELECT data FROM pg_logical_slot_peek_changes('avro_slot', NULL, NULL, 'format', 'avro',
	'schema_registry_url', 'http://127.0.0.1:9');

-- nothing listens on port 9: an ERROR naming the registry and the subject;
-- the changes stay in the slot
DO $$
BEGIN
	PERFORM count(*) FROM pg_logical_slot_get_binary_changes('avro_slot', NULL, NULL,
		'format', 'avro', 'schema_registry_url', 'http://127.0.0.1:9/');
EXCEPTION WHEN connection_failure THEN
	RAISE WARNING '%', regexp_replace(SQLERRM, '(subject "[^"]*").*', '\1');
END
$$;
SELECT count(*) AS still_there FROM pg_logical_slot_peek_changes('avro_slot', NULL, NULL);
SELECT 'dropped' FROM pg_drop_replication_slot('avro_slot');
DROP TABLE avro_t;
