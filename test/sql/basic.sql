-- Inserts, updates and deletes of a keyed table, in each output format.
SET client_min_messages = warning;
CREATE TABLE customers (
	id serial PRIMARY KEY,
	name text NOT NULL,
	email varchar(100),
	score numeric(10,2) DEFAULT 1.5,
	active boolean DEFAULT true
);
SELECT 'init' FROM pg_create_logical_replication_slot('basic_slot', 'cdc_kafka');

INSERT INTO customers (name, email, score) VALUES ('Ann', 'ann@example.org', 12.34);
INSERT INTO customers (name) VALUES ('Bob');
UPDATE customers SET email = 'bob@example.org' WHERE name = 'Bob';
DELETE FROM customers WHERE name = 'Ann';

-- default: one row per record, the record's value (tombstone: null)
SELECT data FROM pg_logical_slot_peek_changes('basic_slot', NULL, NULL,
	'schemas', 'false', 'deterministic', 'true');

-- the whole record: topic, key, value, headers
SELECT data FROM pg_logical_slot_peek_changes('basic_slot', NULL, NULL,
	'output_format', 'record', 'schemas', 'false', 'deterministic', 'true');

-- with JsonConverter schemas: the first record, key and value
SELECT data FROM pg_logical_slot_peek_changes('basic_slot', NULL, NULL,
	'output_format', 'record', 'deterministic', 'true') LIMIT 1;

-- a topic prefix of one's own; no tombstones
SELECT data::json->>'topic' AS topic, data::json->'value'->>'op' AS op
FROM pg_logical_slot_peek_changes('basic_slot', NULL, NULL,
	'output_format', 'record', 'schemas', 'false', 'topic_prefix', 'shop',
	'tombstones_on_delete', 'false');

-- skipped operations
SELECT data::json->>'op' AS op FROM pg_logical_slot_peek_changes('basic_slot', NULL, NULL,
	'schemas', 'false', 'skipped_operations', 'c,d');

-- without deterministic, positions and times are real
SELECT (data::json->'source'->>'lsn')::bigint > 0 AS has_lsn,
	(data::json->'source'->>'txId')::bigint > 0 AS has_txid,
	(data::json->'source'->>'ts_ms')::bigint > 1500000000000 AS has_commit_time,
	(data::json->>'ts_ms')::bigint >= (data::json->'source'->>'ts_ms')::bigint AS ts_after_commit,
	data::json->'source'->>'sequence' ~ '^\["[0-9]+","[0-9]+"\]$' AS sequence_shape
FROM pg_logical_slot_peek_changes('basic_slot', NULL, NULL, 'schemas', 'false') LIMIT 1;

-- consuming advances the slot
SELECT count(*) FROM pg_logical_slot_get_changes('basic_slot', NULL, NULL);
SELECT count(*) FROM pg_logical_slot_get_changes('basic_slot', NULL, NULL);

SELECT 'drop' FROM pg_drop_replication_slot('basic_slot');
DROP TABLE customers;
