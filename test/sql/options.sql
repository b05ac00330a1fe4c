-- Plugin options: every bad option or value is an ERROR that names it.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('opt_slot', 'cdc_kafka');
CREATE TABLE opt_t (id int PRIMARY KEY);
INSERT INTO opt_t VALUES (1);

-- unknown option, with the list of valid ones
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'no_such_option', '1');
-- bad enumerated values list what is allowed
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'decimal_handling_mode', 'exact');
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'binary_handling_mode', 'base32');
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'time_precision_mode', 'nanoseconds');
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'interval_handling_mode', 'iso');
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'hstore_handling_mode', 'array');
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'output_format', 'xml');
-- booleans
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'schemas', 'maybe');
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'tombstones_on_delete', '2');
-- skipped_operations takes none or a list of c, u, d, t
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'skipped_operations', 'c,x');
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'skipped_operations', '');
-- topic prefixes must be valid in Kafka topic names
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'topic_prefix', 'has space');
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'topic_prefix', '');
-- numbers
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'money_fraction_digits', '-1');
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'money_fraction_digits', 'two');
-- placeholders in hex
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'unavailable_value_placeholder', 'hex:abc');
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'unavailable_value_placeholder', 'hex:zz');
-- a repeated option
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'schemas', 'true', 'schemas', 'false');
-- publications that do not exist (found when the first change is decoded)
\set VERBOSITY terse
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'publication_names', 'nope');
\set VERBOSITY default
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'publication_names', '"unterminated');
-- the binary format needs the binary SQL function
SELECT data FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL, 'output_format', 'binary');

-- valid spellings are accepted, case-insensitively for words
SELECT count(*) FROM pg_logical_slot_peek_changes('opt_slot', NULL, NULL,
	'decimal_handling_mode', 'STRING', 'binary_handling_mode', 'base64-url-safe',
	'time_precision_mode', 'adaptive_time_microseconds', 'interval_handling_mode', 'string',
	'hstore_handling_mode', 'map', 'tombstones_on_delete', 'off', 'skipped_operations', 'none',
	'provide_transaction_metadata', 'on', 'unavailable_value_placeholder', 'hex:00ff',
	'money_fraction_digits', '4', 'topic_prefix', 'srv-1.a_b', 'schemas', '0',
	'deterministic', '1', 'output_format', 'record');

SELECT 'drop' FROM pg_drop_replication_slot('opt_slot');
DROP TABLE opt_t;
