-- Records are UTF-8 whatever the database encoding: names, values, defaults,
-- message prefixes, topics.  The output is read as bytes
-- (pg_logical_slot_peek_binary_changes) and decoded as UTF-8 by convert_from,
-- which fails on anything that is not UTF-8; this file and its output are
-- UTF-8 (\encoding after every \c: pg_regress leaves the client encoding to
-- the locale).
\set regress_db :DBNAME
SET client_min_messages = warning;
CREATE DATABASE cdc_enc_latin1 TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C';
CREATE DATABASE cdc_enc_euc_jp TEMPLATE template0 ENCODING 'EUC_JP' LC_COLLATE 'C' LC_CTYPE 'C';
CREATE DATABASE cdc_enc_sql_ascii TEMPLATE template0 ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C';
CREATE DATABASE cdc_enc_mule TEMPLATE template0 ENCODING 'MULE_INTERNAL' LC_COLLATE 'C' LC_CTYPE 'C';

-- ---- LATIN1: every text-like type, non-ASCII names ----
\c cdc_enc_latin1
\encoding UTF8
SET client_min_messages = warning;
CREATE EXTENSION hstore;
CREATE TYPE "humeur" AS ENUM ('gaieté', 'tristesse');
CREATE SCHEMA "sché";
CREATE TABLE "sché"."café" (
	"clé" text PRIMARY KEY,
	"crème" text DEFAULT 'brûlée',
	vc varchar(20), bp char(6), js json, jb jsonb, x xml, h hstore, e "humeur",
	arr text[], earr "humeur"[], tv tsvector, nm name, ts tsrange);
SELECT 'init' FROM pg_create_logical_replication_slot('enc_slot', 'cdc_kafka');
INSERT INTO "sché"."café" VALUES ('clé°', DEFAULT, 'déjà vu', 'naïve', '{"clé": "é"}',
	'{"ü": ["ß"]}', '<a b="ç">é</a>', 'clé=>"é", "ø"=>NULL', 'gaieté',
	ARRAY['à', NULL, '±'], ARRAY['gaieté'::"humeur"], 'été', 'nôm',
	'["2020-01-01","2020-01-02")');
UPDATE "sché"."café" SET "clé" = 'clé²';
SELECT 'msg' FROM pg_logical_emit_message(true, 'préfixe', 'contenu é');

-- topic, key, value, headers: valid UTF-8 JSON with the right characters
SELECT convert_from(data, 'UTF8')::json AS record
FROM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'deterministic', 'true', 'extended_headers_enabled', 'false');
-- the same bytes as the UTF-8 text: 'é' is 0xC3A9, never 0xE9
SELECT position('\xc3a9'::bytea IN data) > 0 AS utf8, position('\xe9'::bytea IN data) > 0 AS latin1
FROM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL, 'schemas', 'false')
LIMIT 1;
-- the binary frames the streaming worker hands to Kafka carry the same UTF-8 key
SELECT count(*) AS frames_with_utf8_key
FROM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL, 'output_format', 'binary',
	'schemas', 'false')
WHERE position(convert_to('{"clé":"clé²"}', 'UTF8') IN data) > 0;
-- field names, defaults and enum parameters in the schema; the schema names
SELECT f->>'field' AS field, f->'default' AS "default", f->'parameters' AS parameters
FROM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL) c,
	json_array_elements(convert_from(c.data, 'UTF8')::json->'schema'->'fields'->0->'fields') f
LIMIT 15;
SELECT convert_from(data, 'UTF8')::json->'schema'->>'name' AS name
FROM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL) LIMIT 1;
-- hstore as a map; transaction metadata (data_collections, in Java's hash order)
SELECT convert_from(data, 'UTF8')::json->'after'->'h' AS h
FROM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL, 'schemas', 'false',
	'hstore_handling_mode', 'map') LIMIT 1;
SELECT convert_from(data, 'UTF8')::json->'value'->'data_collections' AS collections
FROM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'provide_transaction_metadata', 'true')
WHERE convert_from(data, 'UTF8')::json->'value'->>'status' = 'END';
SELECT 'stop' FROM pg_drop_replication_slot('enc_slot');

-- ---- EUC_JP: multi-byte names and values (JIS X 0208, half-width kana, JIS X 0212) ----
\c cdc_enc_euc_jp
\encoding UTF8
SET client_min_messages = warning;
CREATE TABLE "日本" ("名前" varchar(10) PRIMARY KEY, "値" text DEFAULT '既定', j jsonb);
SELECT 'init' FROM pg_create_logical_replication_slot('enc_slot', 'cdc_kafka');
INSERT INTO "日本" VALUES ('東京', 'ｶﾀｶﾅ丂', '{"鍵": "値"}');
SELECT convert_from(data, 'UTF8')::json AS record
FROM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'deterministic', 'true', 'extended_headers_enabled', 'false');
SELECT f->>'field' AS field, f->'default' AS "default"
FROM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL) c,
	json_array_elements(convert_from(c.data, 'UTF8')::json->'schema'->'fields'->0->'fields') f;
SELECT 'stop' FROM pg_drop_replication_slot('enc_slot');

-- ---- SQL_ASCII: bytes taken as UTF-8, as the server passes them to Debezium;
-- bytes that are not UTF-8 are an error naming table and column (the server
-- fails Debezium's stream there too) ----
\c cdc_enc_sql_ascii
\encoding UTF8
SET client_min_messages = warning;
CREATE TABLE "tëst" (id int PRIMARY KEY, v text);
SELECT 'init' FROM pg_create_logical_replication_slot('enc_slot', 'cdc_kafka');
INSERT INTO "tëst" VALUES (1, 'déjà ✓ 😀');
SELECT convert_from(data, 'UTF8')::json AS record
FROM pg_logical_slot_get_binary_changes('enc_slot', NULL, NULL, 'output_format', 'record',
	'schemas', 'false', 'deterministic', 'true', 'extended_headers_enabled', 'false');
INSERT INTO "tëst" VALUES (2, E'caf\351');
DO $$
DECLARE
	msg text;
	ctx text;
BEGIN
	PERFORM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, ctx = PG_EXCEPTION_CONTEXT;
	RAISE WARNING '%: %', msg, split_part(ctx, E'\n', 1);
END
$$;
SELECT 'stop' FROM pg_drop_replication_slot('enc_slot');

-- ---- an encoding with no conversion to UTF-8: an error naming table and column ----
\c cdc_enc_mule
\encoding SQL_ASCII
SET client_min_messages = warning;
CREATE TABLE t (id int PRIMARY KEY, v text);
SELECT 'init' FROM pg_create_logical_replication_slot('enc_slot', 'cdc_kafka');
INSERT INTO t VALUES (1, 'ascii only'), (2, convert_from('\xe9'::bytea, 'LATIN1'));
-- (the error's message and the first line of its context: the rest has LSNs)
DO $$
DECLARE
	msg text;
	ctx text;
BEGIN
	PERFORM pg_logical_slot_peek_binary_changes('enc_slot', NULL, NULL);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, ctx = PG_EXCEPTION_CONTEXT;
	RAISE WARNING '%: %', msg, split_part(ctx, E'\n', 1);
END
$$;
SELECT 'stop' FROM pg_drop_replication_slot('enc_slot');

\c :regress_db
DROP DATABASE cdc_enc_latin1;
DROP DATABASE cdc_enc_euc_jp;
DROP DATABASE cdc_enc_sql_ascii;
DROP DATABASE cdc_enc_mule;
