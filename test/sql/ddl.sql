-- Schema changes while changes are pending: each event has the schema of its moment.
SET client_min_messages = warning;
CREATE TABLE ddl_t (id int PRIMARY KEY, a text);
SELECT 'init' FROM pg_create_logical_replication_slot('ddl_slot', 'cdc_kafka');

INSERT INTO ddl_t VALUES (1, 'before any change');
ALTER TABLE ddl_t ADD COLUMN b int DEFAULT 42;
INSERT INTO ddl_t VALUES (2, 'after add column', 7);
ALTER TABLE ddl_t DROP COLUMN a;
INSERT INTO ddl_t VALUES (3, 8);
ALTER TABLE ddl_t ALTER COLUMN b TYPE bigint;
INSERT INTO ddl_t VALUES (4, 9);
BEGIN;
ALTER TABLE ddl_t ADD COLUMN c text;
INSERT INTO ddl_t VALUES (5, 10, 'same transaction');
ALTER TABLE ddl_t RENAME TO ddl_renamed;
INSERT INTO ddl_renamed VALUES (6, 11, 'renamed');
COMMIT;

-- all decoded in one go, after every DDL happened
SELECT data::json->'payload'->'source'->>'table' AS tbl,
	data::json->'payload'->'after' AS after,
	(SELECT string_agg(f->>'field' || ':' || (f->>'type') || coalesce('=' || (f->>'default'), ''), ',')
	 FROM json_array_elements(data::json->'schema'->'fields'->1->'fields') f) AS fields
FROM pg_logical_slot_peek_changes('ddl_slot', NULL, NULL, 'deterministic', 'true');

SELECT 'drop' FROM pg_drop_replication_slot('ddl_slot');
DROP TABLE ddl_renamed;
