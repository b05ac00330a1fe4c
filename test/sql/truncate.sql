-- TRUNCATE: skipped by default as Debezium does, op "t" records when asked.
SET client_min_messages = warning;
CREATE TABLE tr_a (id int PRIMARY KEY);
CREATE TABLE tr_b (id int PRIMARY KEY, a int REFERENCES tr_a);
SELECT 'init' FROM pg_create_logical_replication_slot('tr_slot', 'cdc_kafka');
INSERT INTO tr_a VALUES (1);
TRUNCATE tr_a CASCADE;

-- default: only the insert
SELECT data::json->>'op' AS op FROM pg_logical_slot_peek_changes('tr_slot', NULL, NULL,
	'schemas', 'false');
-- one record per truncated table, null key, no tombstone
SELECT data FROM pg_logical_slot_peek_changes('tr_slot', NULL, NULL,
	'output_format', 'record', 'schemas', 'false', 'deterministic', 'true',
	'skipped_operations', 'none');

SELECT 'drop' FROM pg_drop_replication_slot('tr_slot');
DROP TABLE tr_b, tr_a;
