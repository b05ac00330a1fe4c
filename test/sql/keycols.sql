-- message.key.columns (message_key_columns): per-table record key columns in
-- Debezium's syntax, and every way its value can be wrong.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('kc_slot', 'cdc_kafka');

CREATE FUNCTION kc_changes(VARIADIC extra text[] DEFAULT '{}')
RETURNS TABLE (tbl text, key json, op text, keyhdr text)
LANGUAGE sql AS $$
	SELECT split_part(r->>'topic', '.', 3), r->'key',
		coalesce(r->'value'->>'op', 'tombstone'),
		(SELECT string_agg(h.key || '=' || h.value, ' ') FROM json_each_text(r->'headers') h
		 WHERE h.key IN ('__debezium.newkey', '__debezium.oldkey'))
	FROM (SELECT data::json AS r FROM pg_logical_slot_peek_changes('kc_slot', NULL, NULL,
		VARIADIC ARRAY['output_format', 'record', 'schemas', 'false', 'deterministic', 'true']
		|| extra)) s
$$;

CREATE TABLE kc_nopk (id int, code text, "Region" text);
ALTER TABLE kc_nopk REPLICA IDENTITY FULL;
CREATE TABLE kc_pk (id int PRIMARY KEY, code int NOT NULL);
CREATE TABLE kc_parted (id int, code int, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE TABLE kc_parted_1 PARTITION OF kc_parted FOR VALUES FROM (0) TO (100);
ALTER TABLE kc_parted_1 REPLICA IDENTITY FULL;
CREATE PUBLICATION kc_root FOR TABLE kc_parted WITH (publish_via_partition_root = true);

INSERT INTO kc_nopk VALUES (1, 'a', 'eu');
UPDATE kc_nopk SET code = 'b' WHERE id = 1;
INSERT INTO kc_pk VALUES (1, 10);
UPDATE kc_pk SET id = 2 WHERE id = 1;
INSERT INTO kc_parted VALUES (1, 5);
UPDATE kc_parted SET code = 6 WHERE id = 1;

-- without the option: no key for the table without one, the primary key else
SELECT * FROM kc_changes();
-- rules in their order, case-insensitive, regex table parts, trimmed columns;
-- a column two rules name is taken once; a table no rule matches keeps its key
SELECT * FROM kc_changes('message_key_columns',
	'public.kc_nopk:region , code;PUBLIC\.KC_PK:Code,id;public.kc_nopk:code');
-- a partition published via its root takes the root's name
SELECT * FROM kc_changes('publication_names', 'kc_root',
	'message_key_columns', 'public.kc_parted:code');
SELECT * FROM kc_changes('publication_names', 'kc_root',
	'message_key_columns', 'public.kc_parted_1:code');
-- a rule matching no column leaves the key alone; a comma in the table part
-- splits the regex list there, as in Debezium
SELECT * FROM kc_changes('message_key_columns', 'public.kc_pk:nope;x,public.kc_nopk:code');
-- the table regex must match the whole name; a trailing ';' is allowed
SELECT * FROM kc_changes('message_key_columns', 'kc_nopk:code;public.kc_pk:code;');

-- errors
SELECT * FROM kc_changes('message_key_columns', '');
SELECT * FROM kc_changes('message_key_columns', 'public.kc_pk');
SELECT * FROM kc_changes('message_key_columns', 'public.kc_pk:code:id');
SELECT * FROM kc_changes('message_key_columns', ':code');
SELECT * FROM kc_changes('message_key_columns', 'public.kc_pk:code,,id');
SELECT * FROM kc_changes('message_key_columns', 'public.kc_pk:code,');
SELECT * FROM kc_changes('message_key_columns', 'public.kc_pk:code;;public.kc_nopk:code');
SELECT * FROM kc_changes('message_key_columns', 'public.kc_pk(:code');
SELECT * FROM kc_changes('message_key_columns', 'public.kc_pk:[code');

SELECT 'stop' FROM pg_drop_replication_slot('kc_slot');
DROP PUBLICATION kc_root;
DROP TABLE kc_nopk, kc_pk, kc_parted;
DROP FUNCTION kc_changes;
