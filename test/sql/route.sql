-- The route transform (Debezium's ByLogicalTableRouter): option errors and rerouted records.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('route_slot', 'cdc_kafka');
CREATE TABLE route_x1 (id int PRIMARY KEY, name text);
CREATE TABLE route_x2 (id int, code text);
INSERT INTO route_x1 VALUES (1, 'one');
UPDATE route_x1 SET id = 2;
DELETE FROM route_x1;
INSERT INTO route_x2 VALUES (7, 'seven');

-- the options
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'transforms', 'route');
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'transforms', 'route',
	'route_topic_regex', 'a(b');
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'route_topic_replacement', 'x$');
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'route_topic_replacement', 'x${1name}');
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'transforms', 'route',
	'route_topic_regex', '(a)(b)', 'route_topic_replacement', 'x${name}');
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'route_key_field_replacement', 'x\');
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'transforms', 'route',
	'route_topic_regex', '(a)(b)', 'route_topic_replacement', '$3');
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'transforms', 'route',
	'route_topic_regex', 'a', 'route_key_field_regex', 'b');
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'route_key_enforce_uniqueness', 'maybe');
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'route_schema_name_adjustment_mode', 'strict');
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'route_no_such_property', 'x');

-- rerouted: the topic from groups ($10 is group 1 and a "0" when there is no group 10, \$ a
-- dollar), keys with the old topic (not the key headers), renamed envelopes, a null key kept
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'extended_headers_enabled', 'false', 'skipped_operations', 'none',
	'transforms', 'route', 'route_topic_regex', '(contrib_regression)[.](public)[.]route_x[0-9]',
	'route_topic_replacement', '$10.$2.all\$');
-- unwrap then route: the flattened value keeps its name; the key field from key.field.regex,
-- without schemas
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'extended_headers_enabled', 'false', 'transforms', 'unwrap,route',
	'route_topic_regex', 'contrib_regression[.]public[.]route_x1', 'route_topic_replacement', 'merged',
	'route_key_field_name', 'tbl', 'route_key_field_regex', '.*_(x[0-9])',
	'route_key_field_replacement', 'table-$1');
-- route then unwrap: the flattened value is named after the new topic; uniqueness off
SELECT data FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL, 'output_format', 'record',
	'deterministic', '1', 'extended_headers_enabled', 'false', 'transforms', 'route,unwrap',
	'route_topic_regex', 'contrib_regression[.]public[.]route_x1', 'route_topic_replacement', 'merged',
	'route_key_enforce_uniqueness', 'false');
-- a topic the regex does not match as a whole, or an empty new topic: left alone
SELECT count(*) FILTER (WHERE data LIKE '%"topic":"contrib_regression.public.route_x%') FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL,
	'output_format', 'record', 'transforms', 'route', 'route_topic_regex', 'public[.]route_x1');
SELECT count(*) FILTER (WHERE data LIKE '%"topic":"contrib_regression.public.route_x%') FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL,
	'output_format', 'record', 'transforms', 'route', 'route_topic_regex', 'contrib.*',
	'route_topic_replacement', '');
-- Java's named groups, and [(] in a class is no group
SELECT DISTINCT data::json->>'topic' AS topic FROM pg_logical_slot_peek_changes('route_slot', NULL, NULL,
	'output_format', 'record', 'transforms', 'route',
	'route_topic_regex', '[(]?(?<db>[a-z_]+)[.]public[.](?:route_)(?<t>x[0-9])',
	'route_topic_replacement', '${t}-$1-${db}') ORDER BY 1;

-- settings are checked when set
ALTER SYSTEM SET cdc_kafka.route_topic_regex = '(unclosed';
ALTER SYSTEM SET cdc_kafka.route_topic_replacement = 'a$b';
ALTER SYSTEM SET cdc_kafka.route_schema_name_adjustment_mode = 'strict';

SELECT pg_drop_replication_slot('route_slot');
DROP TABLE route_x1, route_x2;
