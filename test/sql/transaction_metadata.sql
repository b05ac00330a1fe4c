-- provide_transaction_metadata: BEGIN/END on <prefix>.transaction, blocks per event.
SET client_min_messages = warning;
CREATE TABLE tx_a (id int PRIMARY KEY, v text);
CREATE TABLE tx_b (id int PRIMARY KEY, v text);
SELECT 'init' FROM pg_create_logical_replication_slot('tx_slot', 'cdc_kafka');

BEGIN;
INSERT INTO tx_a VALUES (1, 'a'), (2, 'b');
INSERT INTO tx_b VALUES (1, 'x');
UPDATE tx_a SET v = 'c' WHERE id = 1;
SELECT 'msg' FROM pg_logical_emit_message(true, 'p', 'in txn');
DELETE FROM tx_b WHERE id = 1;
COMMIT;
INSERT INTO tx_a VALUES (3, 'single');

-- the sequence of records: BEGIN, events with their blocks, END with counts
SELECT data::json->>'topic' AS topic,
	coalesce(data::json->'value'->>'status', data::json->'value'->>'op') AS what,
	data::json->'value'->'transaction' AS block,
	data::json->'value'->'event_count' AS events,
	data::json->'value'->'data_collections' AS collections
FROM pg_logical_slot_peek_changes('tx_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'deterministic', 'true', 'provide_transaction_metadata', 'true');

-- the ids are "<xid>:<lsn>": one xid per transaction, the LSN of BEGIN, event and END
SELECT count(DISTINCT split_part(data::json->'key'->>'id', ':', 1)) AS transactions,
	count(DISTINCT data::json->'key'->>'id') AS distinct_ids
FROM pg_logical_slot_peek_changes('tx_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'provide_transaction_metadata', 'true')
WHERE data::json->>'topic' = 'contrib_regression.transaction';

-- the schemas of the metadata records
SELECT data::json->'key'->'schema' AS key_schema, data::json->'value'->'schema' AS value_schema
FROM pg_logical_slot_peek_changes('tx_slot', NULL, NULL, 'output_format', 'record',
	'provide_transaction_metadata', 'true', 'deterministic', 'true')
LIMIT 1;

SELECT 'drop' FROM pg_drop_replication_slot('tx_slot');
DROP TABLE tx_a, tx_b;
