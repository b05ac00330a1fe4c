-- The unwrap transform (Debezium's ExtractNewRecordState): option errors and flattened records.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('unwrap_slot', 'cdc_kafka');
CREATE TABLE unwrap_t (id int PRIMARY KEY, name text, dest text, r real DEFAULT 1.5);
INSERT INTO unwrap_t VALUES (1, 'one', 'elsewhere');
UPDATE unwrap_t SET name = NULL WHERE id = 1;
DELETE FROM unwrap_t;
TRUNCATE unwrap_t;

-- transforms: a list of unwrap, outbox, route; outbox stands alone
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'transforms', 'outbox,unwrap');
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'transforms', 'unwrap,route');
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'transforms', 'flatten');
-- the transform's options
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'unwrap_delete_tombstone_handling_mode', 'rewrite_with_tombstone');
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'unwrap_add_fields', 'op:a:b');
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'unwrap_add_fields', 'after.id');
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'unwrap_add_headers', 'before');
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'unwrap_drop_fields_from_key', 'perhaps');
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'unwrap_drop_fields_keep_schema_compatible', '2');
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'unwrap_replace_null_with_default', 'yes please');
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'unwrap_no_such_property', 'x');

-- defaults: the row (schema not optional), a delete as a null payload, no tombstone, no truncate
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'extended_headers_enabled', 'false', 'skipped_operations', 'none',
	'transforms', 'unwrap');
-- fields and headers added, deletes rewritten and their tombstones kept, without schemas
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'extended_headers_enabled', 'false', 'schemas', 'false',
	'transforms', 'unwrap', 'unwrap_add_fields', 'op, table,source.lsn:pos,nope',
	'unwrap_add_fields_prefix', '_', 'unwrap_add_headers', 'op,db',
	'unwrap_delete_tombstone_handling_mode', 'rewrite-with-tombstone');
-- deletes dropped; the topic from a column (null: the table's own)
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'extended_headers_enabled', 'false', 'schemas', 'false',
	'transforms', 'unwrap', 'unwrap_delete_tombstone_handling_mode', 'drop',
	'unwrap_route_by_field', 'dest');
-- deletes as tombstones
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'extended_headers_enabled', 'false', 'schemas', 'false',
	'transforms', 'unwrap', 'unwrap_delete_tombstone_handling_mode', 'delete-to-tombstone');
-- route.by.field must name a string column
\set VERBOSITY terse
SELECT data FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL, 'transforms', 'unwrap',
	'unwrap_route_by_field', 'id');
\set VERBOSITY default
-- unwrap_* options without the transform change nothing
SELECT count(*) FROM pg_logical_slot_peek_changes('unwrap_slot', NULL, NULL,
	'unwrap_delete_tombstone_handling_mode', 'drop');

-- settings are checked when set
ALTER SYSTEM SET cdc_kafka.transforms = 'outbox';
ALTER SYSTEM SET cdc_kafka.unwrap_add_fields = 'x.y';
ALTER SYSTEM SET cdc_kafka.unwrap_delete_tombstone_handling_mode = 'keep';

SELECT pg_drop_replication_slot('unwrap_slot');
DROP TABLE unwrap_t;
