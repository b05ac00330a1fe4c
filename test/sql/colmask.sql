-- column.mask.with.<n>.chars (column_mask_with_<n>_chars): which types are
-- masked (the character types, null values too), which only get the schema
-- parameter, keys left alone, and the option's errors.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('cm_slot', 'cdc_kafka');
CREATE TABLE cm_t (id int PRIMARY KEY, t text, vc varchar(3), c char(2), ch "char",
	nm name, i int, j jsonb, b bytea);
INSERT INTO cm_t VALUES (1, 'secret', 'abc', 'xy', 'q', 'nm', 7, '{}', '\x01'),
	(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- values
SELECT data::json->'after' FROM pg_logical_slot_peek_changes('cm_slot', NULL, NULL,
	'schemas', 'false', 'column_mask_with_3_chars', 'public.cm_t.(t|vc|c|ch|nm|i|j|b|id)');
-- schemas: masked=true on every matching column, merged into a type's own
-- parameters; the key keeps its own
SELECT f->>'field', f->'parameters'
FROM pg_logical_slot_peek_changes('cm_slot', NULL, NULL, 'output_format', 'record',
	'column_mask_with_0_chars', 'PUBLIC.CM_T.vc, public.cm_t.id'),
	json_array_elements(data::json->'value'->'schema'->'fields'->0->'fields') f
WHERE (data::json->'key'->'payload'->>'id')::int = 1;
SELECT data::json->'key' FROM pg_logical_slot_peek_changes('cm_slot', NULL, NULL,
	'output_format', 'record', 'column_mask_with_4_chars', 'public.cm_t.id') LIMIT 1;
-- the first option that matches a column applies
SELECT data::json->'payload'->'after'->>'t' FROM pg_logical_slot_peek_changes('cm_slot', NULL, NULL,
	'column_mask_with_1_chars', 'public.cm_t.t', 'column_mask_with_2_chars', 'public.cm_t.t') LIMIT 1;

-- errors
SELECT data FROM pg_logical_slot_peek_changes('cm_slot', NULL, NULL, 'column_mask_with_x_chars', 'a');
SELECT data FROM pg_logical_slot_peek_changes('cm_slot', NULL, NULL, 'column_mask_with__chars', 'a');
SELECT data FROM pg_logical_slot_peek_changes('cm_slot', NULL, NULL, 'column_mask_with_1234567_chars', 'a');
SELECT data FROM pg_logical_slot_peek_changes('cm_slot', NULL, NULL, 'column_mask_with_3', 'a');
SELECT data FROM pg_logical_slot_peek_changes('cm_slot', NULL, NULL, 'column_mask_with_3_chars', 'public.cm_t.(t');

SELECT 'stop' FROM pg_drop_replication_slot('cm_slot');
DROP TABLE cm_t;
