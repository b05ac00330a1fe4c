-- column.mask.hash.[v2.]<algorithm>.with.salt.<salt>
-- (column_mask_hash_[v2_]<algorithm>_with_salt_<salt>): v1 digests the salt and
-- the Java-serialized String, v2 the salt and the text; hashes are cut to the
-- column's length; other types keep their values; the option's errors.
\set VERBOSITY default
SET client_min_messages = warning;
SELECT 'init' FROM pg_create_logical_replication_slot('ch_slot', 'cdc_kafka');
CREATE TABLE ch_t (id int PRIMARY KEY, t text, vc varchar(6), c char(3), ch "char", i int);
INSERT INTO ch_t VALUES (1, 'secret', 'abc', 'xy', 'q', 7), (2, NULL, NULL, NULL, NULL, NULL);

-- v1: ObjectOutputStream's bytes (AC ED 00 05, TC_STRING 74, 2-byte length, text)
SELECT (data::json->'after'->>'t') =
	encode(sha256(convert_to('s4lt', 'UTF8') || '\xaced0005740006'::bytea || convert_to('secret', 'UTF8')), 'hex')
	AS v1_matches, data::json->'after'
FROM pg_logical_slot_peek_changes('ch_slot', NULL, NULL, 'schemas', 'false',
	'column_mask_hash_SHA_256_with_salt_s4lt', 'public.ch_t.(t|vc|c|ch|i)');
-- v2: the text's bytes alone; algorithm names in any case, '-' or '_'
SELECT (data::json->'after'->>'t') = md5('s4lt' || 'secret') AS v2_matches, data::json->'after'
FROM pg_logical_slot_peek_changes('ch_slot', NULL, NULL, 'schemas', 'false',
	'column_mask_hash_v2_md5_with_salt_s4lt', 'public.ch_t.(t|vc)');
SELECT length(data::json->'after'->>'t') FROM pg_logical_slot_peek_changes('ch_slot', NULL, NULL,
	'schemas', 'false', 'column_mask_hash_SHA-1_with_salt_x', 'public.ch_t.t',
	'column_mask_hash_sha_384_with_salt_y.z', 'public.ch_t.vc') LIMIT 1;
-- schemas: masked=true; masks come before hashes, v1 hashes before v2
SELECT f->>'field', f->'parameters'
FROM pg_logical_slot_peek_changes('ch_slot', NULL, NULL, 'output_format', 'record',
	'column_mask_hash_v2_SHA_512_with_salt_a', 'public.ch_t.(t|i)'),
	json_array_elements(data::json->'value'->'schema'->'fields'->0->'fields') f
WHERE (data::json->'key'->'payload'->>'id')::int = 1;
SELECT data::json->'after'->>'t', data::json->'after'->>'vc' FROM pg_logical_slot_peek_changes('ch_slot', NULL, NULL,
	'schemas', 'false', 'column_mask_hash_v2_MD5_with_salt_s4lt', 'public.ch_t.(t|vc)',
	'column_mask_hash_MD5_with_salt_s4lt', 'public.ch_t.vc',
	'column_mask_with_2_chars', 'public.ch_t.t') LIMIT 1;

-- errors
SELECT data FROM pg_logical_slot_peek_changes('ch_slot', NULL, NULL, 'column_mask_hash_SHA_256', 'a');
SELECT data FROM pg_logical_slot_peek_changes('ch_slot', NULL, NULL, 'column_mask_hash_SHA_256_with_salt_', 'a');
SELECT data FROM pg_logical_slot_peek_changes('ch_slot', NULL, NULL, 'column_mask_hash_v2_SHA3_256_with_salt_x', 'a');
SELECT data FROM pg_logical_slot_peek_changes('ch_slot', NULL, NULL, 'column_mask_hash_MD5_with_salt_x', 'public.ch_t.(t');

SELECT 'stop' FROM pg_drop_replication_slot('ch_slot');
DROP TABLE ch_t;
