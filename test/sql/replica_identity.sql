-- The before images Debezium gives under each REPLICA IDENTITY, and key changes.
SET client_min_messages = warning;
CREATE TABLE ri_default (id int PRIMARY KEY, a text NOT NULL, b int, c int NOT NULL DEFAULT 7);
CREATE TABLE ri_full (id int PRIMARY KEY, a text NOT NULL, b int);
ALTER TABLE ri_full REPLICA IDENTITY FULL;
CREATE TABLE ri_index (id int PRIMARY KEY, code text NOT NULL, b int);
CREATE UNIQUE INDEX ri_index_code ON ri_index (code);
ALTER TABLE ri_index REPLICA IDENTITY USING INDEX ri_index_code;
CREATE TABLE ri_nothing (id int PRIMARY KEY, a text);
ALTER TABLE ri_nothing REPLICA IDENTITY NOTHING;
CREATE TABLE ri_nokey (a int, b text);
ALTER TABLE ri_nokey REPLICA IDENTITY FULL;
CREATE TABLE ri_unique (u int NOT NULL, v text);
CREATE UNIQUE INDEX ri_unique_u ON ri_unique (u);
CREATE TABLE ri_composite (k1 int, k2 text, v text, PRIMARY KEY (k2, k1));

SELECT 'init' FROM pg_create_logical_replication_slot('ri_slot', 'cdc_kafka');

INSERT INTO ri_default VALUES (1, 'a', 1);
UPDATE ri_default SET b = 2 WHERE id = 1;          -- no old tuple: before is null
UPDATE ri_default SET id = 10 WHERE id = 1;        -- key change: d + tombstone + c
DELETE FROM ri_default WHERE id = 10;              -- before has the key, others default/fallback

INSERT INTO ri_full VALUES (1, 'a', 1);
UPDATE ri_full SET b = 2 WHERE id = 1;             -- before is the whole old row
UPDATE ri_full SET id = 2 WHERE id = 1;
DELETE FROM ri_full WHERE id = 2;

INSERT INTO ri_index VALUES (1, 'x', 1);
UPDATE ri_index SET b = 2 WHERE id = 1;            -- index unchanged: no before
UPDATE ri_index SET code = 'y' WHERE id = 1;       -- index changed: before has the index columns
DELETE FROM ri_index WHERE id = 1;

INSERT INTO ri_nothing VALUES (1, 'a');            -- only inserts can be published

INSERT INTO ri_nokey VALUES (1, 'a');
UPDATE ri_nokey SET b = 'b';
DELETE FROM ri_nokey;

INSERT INTO ri_unique VALUES (1, 'a');             -- no primary key: keyed by the unique index
INSERT INTO ri_composite VALUES (1, 'x', 'v');     -- key fields in primary key order

SELECT data FROM pg_logical_slot_peek_changes('ri_slot', NULL, NULL,
	'output_format', 'record', 'schemas', 'false', 'deterministic', 'true');

-- key schemas: composite key in index order, unique-index key
SELECT data::json->'key'->'schema' AS key_schema
FROM pg_logical_slot_peek_changes('ri_slot', NULL, NULL, 'output_format', 'record')
WHERE data::json->>'topic' IN ('contrib_regression.public.ri_unique', 'contrib_regression.public.ri_composite');

SELECT 'drop' FROM pg_drop_replication_slot('ri_slot');
DROP TABLE ri_default, ri_full, ri_index, ri_nothing, ri_nokey, ri_unique, ri_composite;
