-- Which index keys a table's records, as Debezium 3.6.1 chooses it (pgjdbc's
-- getPrimaryKeys, else the first of getIndexInfo's unique indexes without
-- expression columns, clustered first, then by name), and NOT NULL domains.
SET client_min_messages = warning;

-- one line per record: table, key, op, before, after, __debezium.newkey/oldkey
CREATE FUNCTION keys_changes(VARIADIC extra text[] DEFAULT '{}')
RETURNS TABLE (tbl text, key json, op text, before json, after json, keyhdr text)
LANGUAGE sql AS $$
	SELECT split_part(r->>'topic', '.', 3), r->'key',
		coalesce(r->'value'->>'op', 'tombstone'), r->'value'->'before', r->'value'->'after',
		(SELECT string_agg(h.key || '=' || h.value, ' ') FROM json_each_text(r->'headers') h
		 WHERE h.key IN ('__debezium.newkey', '__debezium.oldkey'))
	FROM (SELECT data::json AS r FROM pg_logical_slot_peek_changes('keys_slot', NULL, NULL,
		VARIADIC ARRAY['output_format', 'record', 'schemas', 'false', 'deterministic', 'true']
		|| extra)) s
$$;

-- created z then m: OID and column order say (a), name order says (b)
CREATE TABLE k_names (a int NOT NULL, b int NOT NULL, v text);
CREATE UNIQUE INDEX k_names_z ON k_names (a);
CREATE UNIQUE INDEX k_names_m ON k_names (b);
ALTER TABLE k_names REPLICA IDENTITY FULL;

-- expression indexes first in name order are passed over: a function call,
-- an operator, a cast (on which Debezium itself fails), a mix with a column
CREATE TABLE k_expr (id int NOT NULL, t text NOT NULL, n int NOT NULL, v text);
CREATE UNIQUE INDEX k_expr_a ON k_expr (lower(t));
CREATE UNIQUE INDEX k_expr_b ON k_expr ((t || 'x'));
CREATE UNIQUE INDEX k_expr_c ON k_expr ((n::text));
CREATE UNIQUE INDEX k_expr_d ON k_expr (id, upper(t));
CREATE UNIQUE INDEX k_expr_e ON k_expr (id);
ALTER TABLE k_expr REPLICA IDENTITY FULL;

-- a column whose name reads as a function call is taken for an expression too
CREATE TABLE k_fname ("f(x)" int NOT NULL, "a b" int NOT NULL, id int NOT NULL);
CREATE UNIQUE INDEX k_fname_a ON k_fname ("f(x)");
CREATE UNIQUE INDEX k_fname_b ON k_fname ("a b", id);
CREATE UNIQUE INDEX k_fname_c ON k_fname (id);

-- partial indexes count; a clustered index goes first
CREATE TABLE k_partial (id int NOT NULL, code int NOT NULL);
CREATE UNIQUE INDEX k_partial_a ON k_partial (code) WHERE code > 0;
CREATE UNIQUE INDEX k_partial_b ON k_partial (id);
CREATE TABLE k_clustered (a int NOT NULL, b int NOT NULL);
CREATE UNIQUE INDEX k_clustered_a ON k_clustered (a);
CREATE UNIQUE INDEX k_clustered_b ON k_clustered (b);
ALTER TABLE k_clustered CLUSTER ON k_clustered_b;

-- INCLUDE columns: part of a unique index's key, not of a primary key's
CREATE TABLE k_include (a int NOT NULL, b int NOT NULL, v text);
CREATE UNIQUE INDEX k_include_a ON k_include (a) INCLUDE (b);
ALTER TABLE k_include REPLICA IDENTITY FULL;
CREATE TABLE k_pk_include (id int, b int NOT NULL, PRIMARY KEY (id) INCLUDE (b));

-- a deferrable primary key is still the key (it is no replica identity)
CREATE TABLE k_deferrable (id int NOT NULL, u int NOT NULL);
ALTER TABLE k_deferrable ADD CONSTRAINT k_deferrable_zz PRIMARY KEY (id) DEFERRABLE;
CREATE UNIQUE INDEX k_deferrable_aa ON k_deferrable (u);

-- nullable key columns, in index order; NULLS NOT DISTINCT changes nothing
CREATE TABLE k_nullable (a int, b int, v text);
CREATE UNIQUE INDEX k_nullable_ba ON k_nullable (b, a) NULLS NOT DISTINCT;
ALTER TABLE k_nullable REPLICA IDENTITY FULL;

-- the replica identity index is not the key; changing the identity mid-stream
CREATE TABLE k_ri (a int NOT NULL, b int NOT NULL, v text);
CREATE UNIQUE INDEX k_ri_a ON k_ri (a);
CREATE UNIQUE INDEX k_ri_b ON k_ri (b);
ALTER TABLE k_ri REPLICA IDENTITY USING INDEX k_ri_b;

-- a column list leaving key columns out: no other index is tried
CREATE TABLE k_cols (c int NOT NULL, d int NOT NULL, v text);
CREATE UNIQUE INDEX k_cols_c ON k_cols (c);
CREATE UNIQUE INDEX k_cols_d ON k_cols (d);
CREATE TABLE k_cols_pk (a int, b int, v text, PRIMARY KEY (a, b));
CREATE PUBLICATION k_pub FOR TABLE k_cols (d, v), k_cols_pk (a, v);

SELECT 'init' FROM pg_create_logical_replication_slot('keys_slot', 'cdc_kafka');

INSERT INTO k_names VALUES (1, 10, 'x');
UPDATE k_names SET b = 11;                       -- the key: delete + tombstone + create
UPDATE k_names SET a = 2;                        -- not the key: update
INSERT INTO k_expr VALUES (1, 'One', 5, 'x');
UPDATE k_expr SET id = 2;
UPDATE k_expr SET t = 'ONE', n = 6;
INSERT INTO k_fname VALUES (1, 2, 3);
INSERT INTO k_partial VALUES (1, 0);
INSERT INTO k_clustered VALUES (1, 2);
INSERT INTO k_include VALUES (1, 10, 'x');
UPDATE k_include SET b = 11;
INSERT INTO k_pk_include VALUES (1, 10);
UPDATE k_pk_include SET b = 11;
DELETE FROM k_pk_include;
INSERT INTO k_deferrable VALUES (1, 2);
INSERT INTO k_nullable VALUES (NULL, 20, 'x'), (NULL, NULL, 'y');
UPDATE k_nullable SET a = 2 WHERE b = 20;
DELETE FROM k_nullable WHERE b IS NULL;
INSERT INTO k_ri VALUES (1, 10, 'x'), (2, 20, 'y');
UPDATE k_ri SET a = 11 WHERE a = 1;              -- identity unchanged: no old tuple, update
UPDATE k_ri SET b = 21 WHERE a = 2;              -- old tuple has b only: old key a = 0
BEGIN;
ALTER TABLE k_ri REPLICA IDENTITY FULL;
UPDATE k_ri SET a = 12 WHERE a = 11;
ALTER TABLE k_ri REPLICA IDENTITY USING INDEX k_ri_a;
UPDATE k_ri SET a = 13 WHERE a = 12;
DELETE FROM k_ri WHERE a = 2;
COMMIT;
INSERT INTO k_cols VALUES (1, 10, 'x');
INSERT INTO k_cols_pk VALUES (1, 10, 'x');

SELECT * FROM keys_changes();

-- with the column lists
SELECT * FROM keys_changes('publication_names', 'k_pub');

-- key schemas: nullable fields are optional
SELECT data::json->'key'->'schema' AS key_schema
FROM pg_logical_slot_peek_changes('keys_slot', NULL, NULL, 'output_format', 'record')
WHERE data::json->>'topic' LIKE '%.k_nullable' LIMIT 1;
SELECT count(*) > 0 AS consumed FROM pg_logical_slot_get_changes('keys_slot', NULL, NULL);

-- old and new keys compare as Debezium's converted key structs: a NOT NULL
-- column missing from the old tuple holds its fallback, numerics their
-- converted value, and a null stays null though the JSON shows the default
CREATE TABLE k_struct (a int NOT NULL, b int NOT NULL);
CREATE UNIQUE INDEX k_struct_a ON k_struct (a);
CREATE UNIQUE INDEX k_struct_b ON k_struct (b);
ALTER TABLE k_struct REPLICA IDENTITY USING INDEX k_struct_b;
CREATE TABLE k_numeric (k numeric PRIMARY KEY);
CREATE TABLE k_default (c int DEFAULT 5, v text);
CREATE UNIQUE INDEX k_default_c ON k_default (c);
ALTER TABLE k_default REPLICA IDENTITY FULL;

INSERT INTO k_struct VALUES (0, 10), (1, 20);
UPDATE k_struct SET b = 11 WHERE a = 0;          -- old key a = 0 (fallback) = new key
UPDATE k_struct SET b = 21 WHERE a = 1;          -- old key a = 0 (fallback), new a = 1
INSERT INTO k_numeric VALUES (1.0);
UPDATE k_numeric SET k = 1.00;
INSERT INTO k_default VALUES (NULL, 'x');
UPDATE k_default SET c = 5;

SELECT tbl, key, op, keyhdr FROM keys_changes();
SELECT key, op, keyhdr FROM keys_changes('decimal_handling_mode', 'string')
WHERE tbl = 'k_numeric';
SELECT count(*) > 0 AS consumed FROM pg_logical_slot_get_changes('keys_slot', NULL, NULL);

-- NOT NULL domains: required fields, with the type's fallback (never the
-- domain's default) where a delete's before-image has no value
CREATE DOMAIN k_nn_int AS int NOT NULL;
CREATE DOMAIN k_nn_text AS text NOT NULL DEFAULT 'dflt';
CREATE DOMAIN k_over_nn AS k_nn_int;             -- NOT NULL only through its base
CREATE DOMAIN k_dflt AS int DEFAULT 7;
CREATE DOMAIN k_nn_over_dflt AS k_dflt NOT NULL;
CREATE DOMAIN k_nn_num AS numeric(6,2) NOT NULL;
CREATE TABLE k_domains (
	id int PRIMARY KEY,
	d_int k_nn_int,
	d_text k_nn_text,
	d_over k_over_nn,
	d_dflt k_dflt,
	d_nncol k_dflt NOT NULL,
	d_nnod k_nn_over_dflt,
	d_cdef k_nn_int DEFAULT 5,
	d_num k_nn_num
);
CREATE TABLE k_domain_key (k k_nn_int, v text);
CREATE UNIQUE INDEX k_domain_key_k ON k_domain_key (k);
ALTER TABLE k_domain_key REPLICA IDENTITY FULL;

INSERT INTO k_domains (id, d_int, d_over, d_nncol, d_nnod, d_num)
VALUES (1, 5, 6, 8, 9, 12.5);
DELETE FROM k_domains;
INSERT INTO k_domain_key VALUES (1, 'x');
UPDATE k_domain_key SET k = 2;

SELECT * FROM keys_changes();

SELECT f->>'field' AS field, f->>'optional' AS optional, f->'default' AS "default"
FROM pg_logical_slot_peek_changes('keys_slot', NULL, NULL, 'output_format', 'record') c,
	json_array_elements(c.data::json->'value'->'schema'->'fields'->0->'fields') f
WHERE c.data::json->>'topic' LIKE '%.k_domains' AND c.data::json->'value'->'payload'->>'op' = 'c';
SELECT data::json->'key'->'schema' AS key_schema
FROM pg_logical_slot_peek_changes('keys_slot', NULL, NULL, 'output_format', 'record')
WHERE data::json->>'topic' LIKE '%.k_domain_key' LIMIT 1;

SELECT 'drop' FROM pg_drop_replication_slot('keys_slot');
DROP PUBLICATION k_pub;
DROP TABLE k_names, k_expr, k_fname, k_partial, k_clustered, k_include, k_pk_include,
	k_deferrable, k_nullable, k_ri, k_cols, k_cols_pk, k_struct, k_numeric, k_default,
	k_domains, k_domain_key;
DROP DOMAIN k_nn_over_dflt, k_dflt, k_over_nn, k_nn_int, k_nn_text, k_nn_num;
DROP FUNCTION keys_changes(text[]);
