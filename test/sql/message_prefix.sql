-- message_prefix_include_list / message_prefix_exclude_list: regular
-- expressions matched against a message's whole prefix, ignoring case;
-- bad expressions and both lists are errors naming the options.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('mpx_slot', 'cdc_kafka');
SELECT 'msg' FROM pg_logical_emit_message(false, 'a,b', 'comma');
SELECT 'msg' FROM pg_logical_emit_message(false, 'Keep-1', 'upper case');
SELECT 'msg' FROM pg_logical_emit_message(false, 'keep-12x', 'longer');
SELECT 'msg' FROM pg_logical_emit_message(false, 'drop', 'other');
CREATE TABLE mpx_flush (x int);
DROP TABLE mpx_flush;

SELECT data::json->'message'->>'prefix' AS prefix
FROM pg_logical_slot_peek_changes('mpx_slot', NULL, NULL, 'schemas', 'false',
	'message_prefix_include_list', ' keep-\d+ , a\,b');
SELECT data::json->'message'->>'prefix' AS prefix
FROM pg_logical_slot_peek_changes('mpx_slot', NULL, NULL, 'schemas', 'false',
	'message_prefix_exclude_list', 'KEEP.*');
-- blank: no list
SELECT count(*) FROM pg_logical_slot_peek_changes('mpx_slot', NULL, NULL,
	'message_prefix_include_list', ' ');

SELECT data FROM pg_logical_slot_peek_changes('mpx_slot', NULL, NULL,
	'message_prefix_include_list', 'ok,(unclosed');
SELECT data FROM pg_logical_slot_peek_changes('mpx_slot', NULL, NULL,
	'message_prefix_exclude_list', '*x');
SELECT data FROM pg_logical_slot_peek_changes('mpx_slot', NULL, NULL,
	'message_prefix_include_list', 'a', 'message_prefix_exclude_list', 'b');

LOAD 'cdc_kafka';
ALTER SYSTEM SET cdc_kafka.message_prefix_include_list = 'a[';
ALTER SYSTEM SET cdc_kafka.message_prefix_exclude_list = 'ok, (';

SELECT 'stop' FROM pg_drop_replication_slot('mpx_slot');
