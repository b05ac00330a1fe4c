-- column.truncate.to.<n>.chars (column_truncate_to_<n>_chars): values cut per
-- type (UTF-16 units, bytes for bytea as bytes), the schema's truncateLength
-- where the column's length exceeds n, defaults and keys left alone, the
-- order of rules (truncation before masks), and the option's errors.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('ct_slot', 'cdc_kafka');
CREATE TABLE ct_t (id int PRIMARY KEY, t text, vc varchar(3), c char(6), i int,
	n numeric(5,1), b bytea, ts timestamptz, a text[], d text DEFAULT 'default');
INSERT INTO ct_t VALUES (1, 'ab😀cd', 'abc', 'xy', 7, 1.5, '\x01020304', '2020-01-02 03:04:05+00', '{long}', 'dd'),
	(2, 'abc😀', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- values
SELECT data::json->'after' FROM pg_logical_slot_peek_changes('ct_slot', NULL, NULL,
	'schemas', 'false', 'column_truncate_to_4_chars', 'public.ct_t.(t|vc|c|i|n|b|ts|a|d|id)');
SELECT data::json->'after' FROM pg_logical_slot_peek_changes('ct_slot', NULL, NULL,
	'schemas', 'false', 'decimal_handling_mode', 'string', 'binary_handling_mode', 'hex',
	'column_truncate_to_2_chars', 'public.ct_t.(n|b)');
-- schemas: truncateLength where the length is above n (varchar(3) is not)
SELECT f->>'field', f->'parameters'
FROM pg_logical_slot_peek_changes('ct_slot', NULL, NULL, 'output_format', 'record',
	'column_truncate_to_3_chars', 'public.ct_t.(vc|c|i|id)'),
	json_array_elements(data::json->'value'->'schema'->'fields'->0->'fields') f
WHERE (data::json->'key'->'payload'->>'id')::int = 1;
SELECT data::json->'key'->'payload' FROM pg_logical_slot_peek_changes('ct_slot', NULL, NULL,
	'output_format', 'record', 'column_truncate_to_0_chars', 'public.ct_t.id') LIMIT 1;
-- truncation is tried before masks, whatever the order of the options
SELECT data::json->'after'->>'t' FROM pg_logical_slot_peek_changes('ct_slot', NULL, NULL,
	'schemas', 'false', 'column_mask_with_1_chars', 'public.ct_t.t',
	'column_truncate_to_2_chars', 'public.ct_t.t') LIMIT 1;

-- errors
SELECT data FROM pg_logical_slot_peek_changes('ct_slot', NULL, NULL, 'column_truncate_to_x_chars', 'a');
SELECT data FROM pg_logical_slot_peek_changes('ct_slot', NULL, NULL, 'column_truncate_to_1234567_chars', 'a');
SELECT data FROM pg_logical_slot_peek_changes('ct_slot', NULL, NULL, 'column_truncate_to_3_chars', 'public.ct_t.(t');

SELECT 'stop' FROM pg_drop_replication_slot('ct_slot');
DROP TABLE ct_t;
