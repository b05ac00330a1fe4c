-- Partitioned tables: with publish_via_partition_root a partition's changes
-- go out as the topmost published ancestor's (topic, column order, keys,
-- row filter, column list, one TRUNCATE event), as pgoutput sends them;
-- without it, as the partition's own.
SET client_min_messages = warning;
CREATE TABLE parts (id int, region text, amount int, note text,
	PRIMARY KEY (region, id)) PARTITION BY LIST (region);
CREATE TABLE parts_eu PARTITION OF parts FOR VALUES IN ('eu') PARTITION BY RANGE (id);
CREATE TABLE parts_eu_low PARTITION OF parts_eu FOR VALUES FROM (MINVALUE) TO (100);
CREATE TABLE parts_eu_high PARTITION OF parts_eu FOR VALUES FROM (100) TO (MAXVALUE);
-- a partition with its columns in another order and a dropped column
CREATE TABLE parts_us (note text, junk int, amount int, region text NOT NULL, id int NOT NULL);
ALTER TABLE parts_us DROP COLUMN junk;
ALTER TABLE parts ATTACH PARTITION parts_us FOR VALUES IN ('us');
CREATE TABLE parts_other PARTITION OF parts DEFAULT;

CREATE PUBLICATION p_root FOR TABLE parts (id, region, amount) WHERE (id < 1000)
	WITH (publish_via_partition_root = true);
CREATE PUBLICATION p_leaves FOR TABLE parts;

SELECT 'init' FROM pg_create_logical_replication_slot('part_slot', 'cdc_kafka');

INSERT INTO parts VALUES (1, 'eu', 10, 'a'), (200, 'eu', 20, 'b'), (2, 'us', 30, 'c'),
	(3, 'ap', 40, 'd'), (1001, 'us', 50, 'outside the row filter');
UPDATE parts SET region = 'us' WHERE id = 1;      -- moves to parts_us
UPDATE parts SET amount = 31 WHERE id = 2;        -- inside parts_us
UPDATE parts SET id = 1002 WHERE id = 3;          -- leaves the root's row filter
DELETE FROM parts WHERE id = 200;
TRUNCATE parts_eu_high;                           -- via the root: nothing
TRUNCATE parts;                                   -- via the root: one event

-- via the root: the root's topic, key, column order, column list and filter
SELECT data::json->>'topic' AS topic, data::json->'value'->>'op' AS op,
	data::json->'key' AS key,
	coalesce(data::json->'value'->'after', data::json->'value'->'before') AS row
FROM pg_logical_slot_peek_changes('part_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'publication_names', 'p_root', 'skipped_operations', 'none',
	'tombstones_on_delete', 'false');

-- the value schema is the root's too
SELECT json_array_elements(data::json->'value'->'schema'->'fields'->1->'fields')->>'field' AS field,
	data::json->'value'->'schema'->>'name' AS name
FROM pg_logical_slot_peek_changes('part_slot', NULL, NULL, 'output_format', 'record',
	'publication_names', 'p_root')
WHERE data::json->'value'->'payload'->'after'->>'id' = '2'
	AND data::json->'value'->'payload'->>'op' = 'c';

-- transaction metadata counts the events under the root
SELECT coalesce(data::json->'value'->>'status', data::json->'value'->>'op') AS what,
	data::json->'value'->'transaction'->>'data_collection_order' AS n,
	data::json->'value'->'data_collections' AS collections
FROM pg_logical_slot_peek_changes('part_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'deterministic', 'true', 'publication_names', 'p_root',
	'provide_transaction_metadata', 'true', 'skipped_operations', 'none',
	'tombstones_on_delete', 'false')
WHERE data::json->>'topic' = 'contrib_regression.transaction'
	OR data::json->'value'->>'op' IS NOT NULL;

-- without root publishing: each partition as itself, in its own column order
SELECT data::json->>'topic' AS topic, data::json->'value'->>'op' AS op,
	coalesce(data::json->'value'->'after', data::json->'value'->'before') AS row
FROM pg_logical_slot_peek_changes('part_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'publication_names', 'p_leaves', 'skipped_operations', 'none',
	'tombstones_on_delete', 'false');
SELECT 'skip' FROM pg_replication_slot_advance('part_slot', pg_current_wal_lsn());

-- mid-stream: the publication's setting, a partition detached and attached
INSERT INTO parts VALUES (4, 'eu', 1, 'e');
ALTER PUBLICATION p_leaves SET (publish_via_partition_root = true);
INSERT INTO parts VALUES (5, 'eu', 2, 'f');
ALTER TABLE parts DETACH PARTITION parts_us;
INSERT INTO parts_us (id, region, amount) VALUES (6, 'us', 3);
ALTER TABLE parts ATTACH PARTITION parts_us FOR VALUES IN ('us');
INSERT INTO parts VALUES (7, 'us', 4, 'g');
ALTER TABLE parts RENAME TO parts_renamed;
INSERT INTO parts_renamed VALUES (8, 'us', 5, 'h');
ALTER PUBLICATION p_leaves SET (publish_via_partition_root = false);
INSERT INTO parts_renamed VALUES (9, 'us', 6, 'i');
SELECT data::json->>'topic' AS topic, data::json->'value'->'source'->>'table' AS tbl,
	data::json->'value'->'after' AS after
FROM pg_logical_slot_get_changes('part_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'publication_names', 'p_leaves');

-- the topmost ancestor across the publications: here a sub-partitioned partition
CREATE PUBLICATION p_mid FOR TABLE parts_eu WITH (publish_via_partition_root = true);
INSERT INTO parts_renamed VALUES (10, 'eu', 7, 'j'), (110, 'eu', 8, 'k'), (11, 'us', 9, 'l');
SELECT data::json->>'topic' AS topic, data::json->'value'->'after' AS after
FROM pg_logical_slot_get_changes('part_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'publication_names', 'p_leaves,p_mid');

-- the streaming worker's binary frames name the root too (table statistics, and the
-- deduplication of the root's incremental snapshots by table and key)
INSERT INTO parts_renamed VALUES (12, 'us', 1, 'm');
SELECT ('x' || encode(substring(data FROM 10 FOR 4), 'hex'))::bit(32)::bigint
		= 'parts_renamed'::regclass::oid::bigint AS names_root
FROM pg_logical_slot_get_binary_changes('part_slot', NULL, NULL, 'output_format', 'binary',
	'publication_names', 'p_root')
WHERE get_byte(data, 0) = ascii('R');

-- without publication_names (as FOR ALL TABLES): partitions, never the root
TRUNCATE parts_renamed;
SELECT data::json->'source'->>'table' AS tbl, data::json->>'op' AS op
FROM pg_logical_slot_get_changes('part_slot', NULL, NULL, 'schemas', 'false',
	'skipped_operations', 'none');

SELECT 'drop' FROM pg_drop_replication_slot('part_slot');
DROP PUBLICATION p_root, p_leaves, p_mid;
DROP TABLE parts_renamed;
