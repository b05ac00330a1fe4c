-- Unchanged TOASTed arrays: Debezium's placeholder depends on the array type.
-- text-like arrays: [placeholder]; integer[], bigint[], date[]: the placeholder's
-- bytes as numbers; uuid[]: its name-based UUID; bytea[]: its bytes (binary mode
-- bytes only); any other array does not fit its schema and is null.
SET client_min_messages = warning;
CREATE TABLE ta (
	id int PRIMARY KEY, counter int,
	a_i2 int2[], a_i4 int4[], a_i8 int8[], a_num numeric[], a_f8 float8[],
	a_bool bool[], a_date date[], a_ts timestamp[], a_uuid uuid[],
	a_text text[], a_vc varchar(40)[], a_bytea bytea[], a_jsonb jsonb[]
);
-- out of line and uncompressed whatever the values
ALTER TABLE ta ALTER a_i2 SET STORAGE EXTERNAL, ALTER a_i4 SET STORAGE EXTERNAL,
	ALTER a_i8 SET STORAGE EXTERNAL, ALTER a_num SET STORAGE EXTERNAL,
	ALTER a_f8 SET STORAGE EXTERNAL, ALTER a_bool SET STORAGE EXTERNAL,
	ALTER a_date SET STORAGE EXTERNAL, ALTER a_ts SET STORAGE EXTERNAL,
	ALTER a_uuid SET STORAGE EXTERNAL, ALTER a_text SET STORAGE EXTERNAL,
	ALTER a_vc SET STORAGE EXTERNAL, ALTER a_bytea SET STORAGE EXTERNAL,
	ALTER a_jsonb SET STORAGE EXTERNAL;
SELECT 'init' FROM pg_create_logical_replication_slot('ta_slot', 'cdc_kafka');
INSERT INTO ta SELECT 1, 0,
	array_agg(i::int2), array_agg(i), array_agg(i::int8), array_agg(i::numeric),
	array_agg(i / 7.0), array_agg(i % 2 = 0), array_agg(date '2000-01-01' + i),
	array_agg(timestamp '2000-01-01' + i * interval '1 hour'), array_agg(md5(i::text)::uuid),
	array_agg(md5(i::text)), array_agg(md5(i::text)::varchar(40)),
	array_agg(decode(md5(i::text), 'hex')), array_agg(to_jsonb(i))
FROM generate_series(1, 3000) i;
UPDATE ta SET counter = 1;

CREATE FUNCTION ta_after(VARIADIC opts text[]) RETURNS SETOF json LANGUAGE sql AS $$
	SELECT c.data::json->'after'
	FROM pg_logical_slot_peek_changes('ta_slot', NULL, NULL,
		VARIADIC opts) c
	WHERE c.data::json->>'op' = 'u'
$$;
SELECT ta_after('schemas', 'false');
SELECT ta_after('schemas', 'false', 'time_precision_mode', 'connect',
	'binary_handling_mode', 'hex');
-- a placeholder of bytes above 0x7f: Java's bytes are signed
SELECT ta_after('schemas', 'false', 'unavailable_value_placeholder', 'hex:c3a9');

SELECT 'dropped' FROM pg_drop_replication_slot('ta_slot');
DROP TABLE ta;
DROP FUNCTION ta_after(text[]);
