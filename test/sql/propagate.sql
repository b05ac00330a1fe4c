-- column.propagate.source.type / datatype.propagate.source.type (options
-- column_propagate_source_type, datatype_propagate_source_type): the
-- __debezium.source.column.* schema parameters per type, the datatype rule's
-- subject (schema.table.typname), keys left alone, the order of rules, errors.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('pr_slot', 'cdc_kafka');
CREATE DOMAIN pr_dom AS numeric(7,3);
CREATE TABLE pr_t (id int PRIMARY KEY, n numeric(5,1), nu numeric, f real, vc varchar(4),
	c char, ts timestamptz(2), iv interval minute to second(1), a int8[], dm pr_dom,
	"Ünï ""q""" text, b bytea);
INSERT INTO pr_t (id) VALUES (1);

SELECT f->>'field', f->'parameters'
FROM pg_logical_slot_peek_changes('pr_slot', NULL, NULL, 'output_format', 'record',
	'column_propagate_source_type', 'public.pr_t.*'),
	json_array_elements(data::json->'value'->'schema'->'fields'->0->'fields') f;
-- keys keep their schema
SELECT data::json->'key'->'schema' FROM pg_logical_slot_peek_changes('pr_slot', NULL, NULL,
	'output_format', 'record', 'column_propagate_source_type', 'public.pr_t.id');
-- by type: schema.table.typname, case-insensitively; masks come first, hashes after
SELECT f->>'field', f->'parameters'
FROM pg_logical_slot_peek_changes('pr_slot', NULL, NULL, 'output_format', 'record',
	'datatype_propagate_source_type', 'public.pr_t.(NUMERIC|_int8|bytea|text)',
	'column_mask_with_1_chars', 'public.pr_t.b',
	'column_mask_hash_MD5_with_salt_x', 'public.pr_t.Ünï "q"'),
	json_array_elements(data::json->'value'->'schema'->'fields'->0->'fields') f;

-- errors
SELECT data FROM pg_logical_slot_peek_changes('pr_slot', NULL, NULL,
	'column_propagate_source_type', 'public.pr_t.(');
SELECT data FROM pg_logical_slot_peek_changes('pr_slot', NULL, NULL,
	'datatype_propagate_source_type', 'a[');

SELECT 'stop' FROM pg_drop_replication_slot('pr_slot');
DROP TABLE pr_t;
DROP DOMAIN pr_dom;
