-- topic.delimiter, topic.transaction and topic.heartbeat.prefix: the topics
-- cdc_kafka builds follow them; bad values are errors naming the option.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('topt_slot', 'cdc_kafka');
CREATE TABLE "topt T" (id int PRIMARY KEY);
INSERT INTO "topt T" VALUES (1);
SELECT 'msg' FROM pg_logical_emit_message(false, 'topt', 'standalone');
CREATE TABLE topt_flush (x int);
DROP TABLE topt_flush;

-- table topics and their schema names use the delimiter (then sanitised);
-- the transaction topic is <prefix><delimiter><topic.transaction>; messages
-- keep ".message"
SELECT data::json->>'topic' AS topic, data::json->'value'->'schema'->>'name' AS value_schema
FROM pg_logical_slot_peek_changes('topt_slot', NULL, NULL, 'output_format', 'record',
	'topic_prefix', 'p', 'topic_delimiter', '-', 'topic_transaction', 'tx',
	'provide_transaction_metadata', 'true');
-- the defaults
SELECT DISTINCT data::json->>'topic' AS topic
FROM pg_logical_slot_peek_changes('topt_slot', NULL, NULL, 'output_format', 'record',
	'topic_prefix', 'p', 'provide_transaction_metadata', 'true')
ORDER BY 1;

-- bad values: 1 or more of Kafka's topic name characters
SELECT data FROM pg_logical_slot_peek_changes('topt_slot', NULL, NULL, 'topic_delimiter', '/');
SELECT data FROM pg_logical_slot_peek_changes('topt_slot', NULL, NULL, 'topic_delimiter', '');
SELECT data FROM pg_logical_slot_peek_changes('topt_slot', NULL, NULL, 'topic_transaction', 'tx n');
SELECT data FROM pg_logical_slot_peek_changes('topt_slot', NULL, NULL, 'topic_heartbeat_prefix', 'hb:');

-- the settings refuse the same values, naming themselves
LOAD 'cdc_kafka';
ALTER SYSTEM SET cdc_kafka.topic_delimiter = '/';
ALTER SYSTEM SET cdc_kafka.topic_transaction = '';
ALTER SYSTEM SET cdc_kafka.topic_heartbeat_prefix = 'a b';

SELECT 'stop' FROM pg_drop_replication_slot('topt_slot');
DROP TABLE "topt T";
