-- include_unknown_datatypes (Debezium's include.unknown.datatypes): columns of
-- types Debezium cannot map, off (their text, a string schema) and on (that
-- text as binary data, in each binary_handling_mode), with nulls, NOT NULL
-- columns, domains and arrays.
SET client_min_messages = warning;
CREATE DOMAIN posbox AS box CHECK (area(VALUE) > 0);
CREATE DOMAIN upint AS integer CHECK (VALUE > 0);
CREATE TABLE unk (id int PRIMARY KEY, bx box, ci circle, ln line, ls lseg,
	pa path, po polygon, tq tsquery, pb posbox, bxs box[], ups upint[],
	req tsquery NOT NULL DEFAULT 'a & b');

SELECT 'init' FROM pg_create_logical_replication_slot('unk_slot', 'cdc_kafka');

INSERT INTO unk VALUES
	(1, '(3,4),(1,2)', '<(1,2),3>', '{1,-1,0}', '[(0,0),(1.5,2.25)]',
	 '[(0,0),(1e8,1e-4)]', '((0,0),(0,1),(1,0))', 'fat & (rat | café)',
	 '(2,2),(0,0)', ARRAY['(1,1),(0,0)'::box, NULL], '{1,2}', 'x'),
	(2, NULL, NULL, NULL, NULL, '((0,0),(3,3))', NULL, NULL, NULL, '{}', NULL, DEFAULT);
DELETE FROM unk WHERE id = 2;

-- off (the default): the text form, a plain string schema
SELECT data::json->'after' AS after FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL,
	'schemas', 'false', 'deterministic', 'true') LIMIT 1;
-- on: bytes (base64 in JSON), hex, base64, base64-url-safe
SELECT data::json->'after' AS after FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL,
	'schemas', 'false', 'include_unknown_datatypes', 'true') LIMIT 1;
SELECT data::json->'after' AS after FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL,
	'schemas', 'false', 'include_unknown_datatypes', 'on',
	'binary_handling_mode', 'hex') LIMIT 1;
SELECT data::json->'after'->>'tq' AS tq, data::json->'after'->>'bx' AS bx
FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL, 'schemas', 'false',
	'include_unknown_datatypes', '1', 'binary_handling_mode', 'base64') LIMIT 1;
SELECT data::json->'after'->>'tq' AS tq FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL,
	'schemas', 'false', 'include_unknown_datatypes', '1',
	'binary_handling_mode', 'base64-url-safe') LIMIT 1;
-- the decoded bytes are Debezium's text: pgjdbc's re-printed shapes, the rest as sent
SELECT key, convert_from(decode(value, 'base64'), 'UTF8') AS text
FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL, 'schemas', 'false',
	'include_unknown_datatypes', 'true') c,
	json_each_text(c.data::json->'after')
WHERE key NOT IN ('id', 'bxs', 'ups') AND value IS NOT NULL AND c.data::json->'after'->>'id' = '1';
-- nulls, a NOT NULL column without a default Debezium can parse, a delete's fallback
SELECT data::json->'after' AS after, data::json->'before' AS before
FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL, 'schemas', 'false',
	'include_unknown_datatypes', 'true', 'binary_handling_mode', 'hex') OFFSET 1;
-- field schemas, off and on (bytes, then hex: strings)
SELECT f AS field
FROM (SELECT data FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL) LIMIT 1) c,
	json_array_elements(c.data::json->'schema'->'fields'->1->'fields') f
WHERE f->>'field' IN ('bx', 'req', 'bxs', 'ups');
SELECT f AS field
FROM (SELECT data FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL,
		'include_unknown_datatypes', 'true') LIMIT 1) c,
	json_array_elements(c.data::json->'schema'->'fields'->1->'fields') f
WHERE f->>'field' IN ('bx', 'pb', 'req', 'bxs', 'ups');
SELECT f AS field
FROM (SELECT data FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL,
		'include_unknown_datatypes', 'true', 'binary_handling_mode', 'hex') LIMIT 1) c,
	json_array_elements(c.data::json->'schema'->'fields'->1->'fields') f
WHERE f->>'field' IN ('bx', 'bxs');

-- bad values
SELECT data FROM pg_logical_slot_peek_changes('unk_slot', NULL, NULL,
	'include_unknown_datatypes', 'maybe');
LOAD 'cdc_kafka';
ALTER SYSTEM SET cdc_kafka.include_unknown_datatypes = 'maybe';
SELECT setting, context FROM pg_settings WHERE name = 'cdc_kafka.include_unknown_datatypes';

SELECT 'stop' FROM pg_drop_replication_slot('unk_slot');
DROP TABLE unk;
DROP DOMAIN posbox;
DROP DOMAIN upint;
