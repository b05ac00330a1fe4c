-- Unchanged TOASTed values: Debezium's placeholder, or the old value under FULL.
SET client_min_messages = warning;
CREATE TABLE toasty (id int PRIMARY KEY, big text, blob bytea, arr text[], other int);
CREATE TABLE toasty_full (id int PRIMARY KEY, big text, other int);
ALTER TABLE toasty_full REPLICA IDENTITY FULL;
-- incompressible values larger than the TOAST threshold
CREATE FUNCTION noise(n int) RETURNS text LANGUAGE sql AS
	$$ SELECT string_agg(md5(i::text), '') FROM generate_series(1, n) i $$;

SELECT 'init' FROM pg_create_logical_replication_slot('toast_slot', 'cdc_kafka');

INSERT INTO toasty VALUES (1, noise(200), decode(noise(200), 'hex'), ARRAY[noise(200)], 1);
UPDATE toasty SET other = 2 WHERE id = 1;
UPDATE toasty SET big = 'small now', other = 3 WHERE id = 1;
INSERT INTO toasty_full VALUES (1, noise(200), 1);
UPDATE toasty_full SET other = 2 WHERE id = 1;

-- the inserts carry the whole values; show their lengths only
SELECT data::json->>'op' AS op, length(data::json->'after'->>'big') AS big_len,
	length(data::json->'after'->>'blob') AS blob_len, data::json->'after'->>'other' AS other
FROM pg_logical_slot_peek_changes('toast_slot', NULL, NULL, 'schemas', 'false');

-- the update of "other" only: placeholders for big, blob and arr
SELECT data::json->'after' AS after
FROM pg_logical_slot_peek_changes('toast_slot', NULL, NULL, 'schemas', 'false')
WHERE data::json->'source'->>'table' = 'toasty' AND data::json->>'op' = 'u';

-- in hex mode the bytea placeholder is the plain string
SELECT data::json->'after'->'blob' AS blob
FROM pg_logical_slot_peek_changes('toast_slot', NULL, NULL, 'schemas', 'false',
	'binary_handling_mode', 'hex')
WHERE data::json->>'op' = 'u' AND data::json->'source'->>'table' = 'toasty';

-- a placeholder of one's own, as text and as hex bytes
SELECT data::json->'after'->'big' AS big, data::json->'after'->'blob' AS blob
FROM pg_logical_slot_peek_changes('toast_slot', NULL, NULL, 'schemas', 'false',
	'unavailable_value_placeholder', 'N/A')
WHERE data::json->>'op' = 'u' AND data::json->'source'->>'table' = 'toasty';
SELECT data::json->'after'->'blob' AS blob
FROM pg_logical_slot_peek_changes('toast_slot', NULL, NULL, 'schemas', 'false',
	'unavailable_value_placeholder', 'hex:3c3e2a')
WHERE data::json->>'op' = 'u' AND data::json->'source'->>'table' = 'toasty';

-- REPLICA IDENTITY FULL: the old row has the value, so no placeholder
SELECT length(data::json->'after'->>'big') AS after_len,
	length(data::json->'before'->>'big') AS before_len,
	data::json->'after'->>'big' = data::json->'before'->>'big' AS same
FROM pg_logical_slot_peek_changes('toast_slot', NULL, NULL, 'schemas', 'false')
WHERE data::json->>'op' = 'u' AND data::json->'source'->>'table' = 'toasty_full';

SELECT 'drop' FROM pg_drop_replication_slot('toast_slot');
DROP TABLE toasty, toasty_full;
DROP FUNCTION noise(int);
