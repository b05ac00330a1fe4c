-- The outbox transform (Debezium's outbox EventRouter): option errors and events.
\set VERBOSITY default
-- no CONTEXT lines: they carry LSNs, which differ between PostgreSQL versions
\set SHOW_CONTEXT never
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('outbox_slot', 'cdc_kafka');
CREATE TABLE outbox (
	id uuid PRIMARY KEY,
	aggregatetype varchar(255) NOT NULL,
	aggregateid varchar(255) NOT NULL,
	type varchar(255) NOT NULL,
	payload jsonb,
	created timestamp(6),
	created_ms timestamp(3),
	created_tz timestamptz,
	version int,
	part int,
	tenant text DEFAULT 'acme',
	small smallint
);
CREATE PUBLICATION outbox_pub FOR TABLE outbox;
INSERT INTO outbox VALUES
	('00000000-0000-0000-0000-000000000001', 'Order', 'o-1', 'OrderCreated',
	 '{"id":1,"lines":[{"sku":"a","qty":2},{"sku":"b","qty":1,"note":null}],"total":12.5,"paid":false}',
	 '2024-03-01 10:00:00.123456', '2024-03-01 10:00:00.123', '2024-03-01 10:00:00+00', 1, 0, DEFAULT, 1),
	('00000000-0000-0000-0000-000000000002', 'Customer', 'c-7', 'CustomerMoved',
	 '{"id":7,"city":"Paris"}', NULL, NULL, NULL, 1, NULL, 'other', NULL),
	('00000000-0000-0000-0000-000000000003', 'Order', 'o-2', 'OrderVoided', NULL,
	 '2024-03-02 00:00:00', NULL, NULL, 2, 1, NULL, NULL),
	('00000000-0000-0000-0000-000000000004', 'Order', 'o-3', 'OrderNoted', '"  "',
	 NULL, NULL, NULL, 2, NULL, NULL, NULL),
	('00000000-0000-0000-0000-000000000005', 'Order', 'o-4', 'OrderText', '"not {json"',
	 NULL, NULL, NULL, 2, NULL, NULL, NULL);
UPDATE outbox SET type = 'changed' WHERE aggregateid = 'o-1';
DELETE FROM outbox WHERE aggregateid = 'o-1';

-- option errors
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'transforms', 'outbox,route');
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'outbox_table_fields_additional_placement', 'a:b:c:d');
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'outbox_table_fields_additional_placement', 'a:value');
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'outbox_table_field_additional_missing', 'skip');
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'outbox_table_op_invalid_behavior', 'panic');
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'outbox_table_json_payload_null_behavior', 'bytes');
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'outbox_table_expand_json_payload', 'sure');
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'outbox_route_topic_regex', '(?<x>');
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'transforms', 'outbox',
	'outbox_route_topic_replacement', 'events.${nope}');
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'outbox_tracing_span_context_field', 'tracingspancontext');

-- defaults: topic outbox.event.<aggregatetype>, key aggregateid, value the payload with its
-- schema, header "id"; the update is skipped with a warning, the delete dropped
SET client_min_messages = notice;
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'extended_headers_enabled', 'false', 'publication_names', 'outbox_pub',
	'transforms', 'outbox');
-- fatal: the update stops decoding
SELECT count(*) FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'publication_names', 'outbox_pub',
	'transforms', 'outbox', 'outbox_table_op_invalid_behavior', 'fatal');
SET client_min_messages = warning;

-- envelope, header and partition placements, the event timestamp, a schema version, a
-- routing regex of its own; without schemas too
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'publication_names', 'outbox_pub', 'transforms', 'outbox',
	'outbox_table_fields_additional_placement', 'type:header:eventType,type:envelope:eventType,part:partition,tenant:envelope,nosuch:header',
	'outbox_table_field_additional_missing', 'ignore',
	'outbox_table_field_event_timestamp', 'created', 'outbox_table_field_event_schema_version', 'version',
	'outbox_route_topic_regex', '(?<agg>Order|Customer)', 'outbox_route_topic_replacement', '${agg}s',
	'outbox_route_by_field', 'aggregatetype', 'outbox_table_field_event_key', 'id')
	WHERE data NOT LIKE '%"topic":"contrib_regression%';
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'publication_names', 'outbox_pub', 'transforms', 'outbox', 'schemas', 'false',
	'extended_headers_enabled', 'false',
	'outbox_table_fields_additional_placement', 'type:envelope', 'outbox_table_field_event_timestamp', 'created_ms',
	'outbox_route_tombstone_on_empty_payload', 'true');

-- expanded JSON payloads (a payload that is no JSON object stays a string, with a warning)
SET client_min_messages = notice;
SELECT data FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'extended_headers_enabled', 'false', 'publication_names', 'outbox_pub',
	'transforms', 'outbox', 'outbox_table_expand_json_payload', 'true',
	'outbox_table_json_payload_null_behavior', 'optional_bytes');
SET client_min_messages = warning;

-- columns that cannot be what the options name them for, tables that are no outbox
SELECT count(*) FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'publication_names', 'outbox_pub',
	'transforms', 'outbox', 'outbox_table_field_event_timestamp', 'created_tz');
SELECT count(*) FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'publication_names', 'outbox_pub',
	'transforms', 'outbox', 'outbox_table_fields_additional_placement', 'small:partition');
SELECT count(*) FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'publication_names', 'outbox_pub',
	'transforms', 'outbox', 'outbox_route_by_field', 'version');
SELECT count(*) FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'publication_names', 'outbox_pub',
	'transforms', 'outbox', 'outbox_table_fields_additional_placement', 'nosuch:envelope');
CREATE TABLE not_outbox (id int PRIMARY KEY, v text);
INSERT INTO not_outbox VALUES (1, 'x');
SELECT count(*) FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'transforms', 'outbox');
TRUNCATE outbox;
SELECT count(*) FROM pg_logical_slot_peek_changes('outbox_slot', NULL, NULL, 'publication_names', 'outbox_pub',
	'transforms', 'outbox', 'skipped_operations', 'none');

-- settings are checked when set
ALTER SYSTEM SET cdc_kafka.transforms = 'outbox,unwrap';
ALTER SYSTEM SET cdc_kafka.outbox_table_fields_additional_placement = 'type';
ALTER SYSTEM SET cdc_kafka.outbox_route_topic_regex = '(?<x';
ALTER SYSTEM SET cdc_kafka.outbox_table_op_invalid_behavior = 'panic';

SELECT pg_drop_replication_slot('outbox_slot');
DROP PUBLICATION outbox_pub;
DROP TABLE outbox, not_outbox;
