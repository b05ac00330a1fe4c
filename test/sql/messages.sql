-- pg_logical_emit_message: op "m" records on <prefix>.message.
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('msg_slot', 'cdc_kafka');
BEGIN;
SELECT 'msg' FROM pg_logical_emit_message(true, 'txn-prefix', 'inside a transaction');
COMMIT;
SELECT 'msg' FROM pg_logical_emit_message(true, 'bytes', '\x00ff10'::bytea);
SELECT 'msg' FROM pg_logical_emit_message(false, 'standalone', 'no transaction');
-- a commit so that the non-transactional message's WAL is flushed
CREATE TABLE msg_flush (x int);
DROP TABLE msg_flush;

SELECT data FROM pg_logical_slot_peek_changes('msg_slot', NULL, NULL,
	'output_format', 'record', 'schemas', 'false', 'deterministic', 'true');
-- the content follows binary_handling_mode
SELECT data::json->'message'->>'content' AS content
FROM pg_logical_slot_peek_changes('msg_slot', NULL, NULL, 'schemas', 'false',
	'binary_handling_mode', 'hex');
SELECT data::json->'message'->>'content' AS content
FROM pg_logical_slot_peek_changes('msg_slot', NULL, NULL, 'schemas', 'false',
	'binary_handling_mode', 'base64-url-safe');
-- the value schema (MessageValue) with schemas on
SELECT data::json->'schema' AS schema FROM pg_logical_slot_peek_changes('msg_slot', NULL, NULL)
LIMIT 1;
-- a non-transactional message has no txId and no transaction block
SELECT data::json->'source'->'txId' AS txid, data::json->'transaction' AS txn
FROM pg_logical_slot_peek_changes('msg_slot', NULL, NULL, 'schemas', 'false',
	'provide_transaction_metadata', 'true')
WHERE data::json->'message'->>'prefix' = 'standalone';

SELECT 'drop' FROM pg_drop_replication_slot('msg_slot');
