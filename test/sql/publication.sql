-- publication_names: tables, actions, column lists and row filters as pgoutput.
SET client_min_messages = warning;
CREATE SCHEMA pubs;
CREATE TABLE pub_all (id int PRIMARY KEY, v text);
CREATE TABLE pub_cols (id int PRIMARY KEY, keep text, secret text);
CREATE TABLE pub_rows (id int PRIMARY KEY, region text, amount int);
ALTER TABLE pub_rows REPLICA IDENTITY FULL;
CREATE TABLE pub_ins (id int PRIMARY KEY);
CREATE TABLE pub_none (id int PRIMARY KEY);
CREATE TABLE pubs.in_schema (id int PRIMARY KEY);

CREATE PUBLICATION p_main FOR TABLE pub_all, pub_cols (id, keep),
	pub_rows WHERE (region = 'eu');
CREATE PUBLICATION p_inserts FOR TABLE pub_ins WITH (publish = 'insert');
CREATE PUBLICATION p_schema FOR TABLES IN SCHEMA pubs;

SELECT 'init' FROM pg_create_logical_replication_slot('pub_slot', 'cdc_kafka');

INSERT INTO pub_all VALUES (1, 'a');
INSERT INTO pub_cols VALUES (1, 'shown', 'hidden');
INSERT INTO pub_rows VALUES (1, 'eu', 10), (2, 'us', 20);
UPDATE pub_rows SET region = 'us' WHERE id = 1;   -- leaves the filter: a delete
UPDATE pub_rows SET region = 'eu' WHERE id = 2;   -- enters the filter: a create
UPDATE pub_rows SET amount = 30 WHERE id = 2;     -- inside: an update
INSERT INTO pub_ins VALUES (1);
DELETE FROM pub_ins;                              -- not published by p_inserts
INSERT INTO pub_none VALUES (1);                  -- in no publication
INSERT INTO pubs.in_schema VALUES (1);

SELECT data::json->'source'->>'table' AS tbl, data::json->>'op' AS op,
	data::json->'before' AS before, data::json->'after' AS after
FROM pg_logical_slot_peek_changes('pub_slot', NULL, NULL, 'schemas', 'false',
	'publication_names', 'p_main,p_inserts,p_schema', 'tombstones_on_delete', 'false');

-- without publication_names every table is captured
SELECT data::json->'source'->>'table' AS tbl, count(*)
FROM pg_logical_slot_peek_changes('pub_slot', NULL, NULL, 'schemas', 'false',
	'tombstones_on_delete', 'false')
GROUP BY 1 ORDER BY 1;

-- the column list shapes the schema too
SELECT json_array_elements(data::json->'schema'->'fields'->1->'fields')->>'field' AS field
FROM pg_logical_slot_peek_changes('pub_slot', NULL, NULL, 'publication_names', 'p_main')
WHERE data::json->'payload'->'source'->>'table' = 'pub_cols';

-- a publication change mid-stream takes effect at its place in the stream
ALTER PUBLICATION p_main DROP TABLE pub_all;
INSERT INTO pub_all VALUES (2, 'b');
ALTER PUBLICATION p_main ADD TABLE pub_all;
INSERT INTO pub_all VALUES (3, 'c');
SELECT data::json->'after'->>'id' AS id
FROM pg_logical_slot_peek_changes('pub_slot', NULL, NULL, 'schemas', 'false',
	'publication_names', 'p_main')
WHERE data::json->'source'->>'table' = 'pub_all';

SELECT 'drop' FROM pg_drop_replication_slot('pub_slot');
DROP PUBLICATION p_main, p_inserts, p_schema;
DROP TABLE pub_all, pub_cols, pub_rows, pub_ins, pub_none, pubs.in_schema;
DROP SCHEMA pubs;
