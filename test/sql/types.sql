-- Every type in Debezium's mapping, in each handling mode; field schemas too.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hstore;
CREATE EXTENSION IF NOT EXISTS ltree;
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
CREATE DOMAIN shortstr AS varchar(10);

CREATE TABLE t_num (id int PRIMARY KEY, i2 smallint, i4 integer, i8 bigint, o oid,
	f4 real, f8 double precision, n numeric, n72 numeric(7,2), n50 numeric(5,0),
	m money, dom posint);
CREATE TABLE t_text (id int PRIMARY KEY, c char(5), vc varchar(10), t text, nm name,
	u uuid, j json, jb jsonb, x xml, e mood, sd shortstr, ip inet, cid cidr,
	mac macaddr, mac8 macaddr8, l ltree, tv tsvector, h hstore);
CREATE TABLE t_bin (id int PRIMARY KEY, b bytea, b1 bit(1), b8 bit(8), b12 bit(12),
	vb varbit, vb1 varbit(1));
CREATE TABLE t_time (id int PRIMARY KEY, d date, t time, t3 time(3), t0 time(0),
	tz timetz, ts timestamp, ts3 timestamp(3), tstz timestamptz, tstz0 timestamptz(0),
	tstz3 timestamptz(3), iv interval);
CREATE TABLE t_other (id int PRIMARY KEY, p point, r4 int4range, r8 int8range,
	rn numrange, rts tsrange, rtz tstzrange, rd daterange,
	a_int int[], a_text text[], a_num numeric(5,1)[], a_date date[], a_tstz timestamptz[],
	a_uuid uuid[], a_jsonb jsonb[], a_mood mood[], tq tsquery, bx box);

SELECT 'init' FROM pg_create_logical_replication_slot('types_slot', 'cdc_kafka');

INSERT INTO t_num VALUES
	(1, -32768, 2147483647, -9223372036854775808, 4294967295, 3.14159, 2.718281828459045,
	 12345.678900, 12345.67, 99999, 1234.56, 7),
	(2, 0, 0, 0, 0, 'NaN', 'Infinity', 0, -0.01, -1, -0.99, 1),
	(3, NULL, NULL, NULL, NULL, '-Infinity', '-Infinity', 1e-10, NULL, NULL, NULL, NULL),
	(4, 1, 1, 1, 1, 1e20, 1e-5, 123456789012345678901234567890.123456789, 0.5, 100, 0, 2);
INSERT INTO t_text VALUES
	(1, 'ab', 'hello', E'tab\there "quoted" back\\slash \u00e9\u20ac\U0001F600 ctl\x01',
	 'a_name', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1, "b": [1, 2]}',
	 '{"b": [1, 2], "a": {"c": null}}', '<a x="1">y</a>', 'happy', 'short',
	 '192.168.0.1/24', '10.0.0.0/8', '08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05',
	 'Top.Science.Astronomy', 'a fat cat sat on a mat', 'a=>1, "b c"=>NULL, "q\"x"=>"v\\w"'),
	(2, NULL, '', '', 'x', NULL, 'null', '[]', NULL, 'sad', NULL, '::1', NULL, NULL, NULL,
	 NULL, '', '');
INSERT INTO t_bin VALUES
	(1, '\xdeadbeef00', B'1', B'10101010', B'101000000001', B'101', B'1'),
	(2, '', B'0', B'00000000', B'000000000000', B'', B'0');
INSERT INTO t_time VALUES
	(1, '2016-11-04', '11:22:33.456789', '11:22:33.456', '11:22:33', '11:22:33.5+05:30',
	 '2018-06-20 15:13:16.945104', '2018-06-20 15:13:16.945', '2016-11-04 11:51:30.123456+02',
	 '2016-11-04 11:51:30.6+02', '2016-11-04 11:51:30.123+02', '1 year 2 mons 3 days 04:05:06.78'),
	(2, '1969-12-31', '00:00:00', '23:59:59.999', '24:00:00', '00:00:00-01',
	 '1960-01-01 00:00:00.5', '1969-12-31 23:59:59.999', '10000-01-01 00:00:00+00',
	 '0001-01-01 00:00:00+00 BC', '2000-02-29 12:00:00+00', '-1 years -2 mons +3 days -04:05:06.78'),
	(3, 'infinity', NULL, NULL, NULL, NULL, 'infinity', '-infinity', 'infinity', '-infinity',
	 NULL, '0'),
	(4, '4713-01-01 BC', '24:00:00', NULL, NULL, '24:00:00+00', '294276-12-31 23:59:59.999999',
	 NULL, '4714-11-24 00:00:00+00 BC', NULL, NULL, '178000000 years');
INSERT INTO t_other VALUES
	(1, '(1.5,-2)', '[1,5)', '(,10]', '[1.5,2.5]', '[2020-01-01 00:00,2020-01-02 00:00)',
	 '[2020-01-01 00:00+00,)', '[2020-01-01,2020-02-01)', '{1,NULL,3}', '{"a","b c",NULL}',
	 '{1.5,-2.0}', '{2016-11-04}', '{"2016-11-04 11:51:30+00"}',
	 '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', ARRAY['{"k": 1}'::jsonb], '{sad,happy}',
	 'fat & rat', '((0,0),(1,1))'),
	(2, NULL, 'empty', NULL, NULL, NULL, NULL, NULL, '{}', '{}', NULL, NULL, NULL, NULL, NULL,
	 NULL, NULL, NULL);

-- Debezium's defaults: precise decimals, bytes, adaptive time, numeric intervals, JSON hstore
SELECT data::json->'after' AS after FROM pg_logical_slot_peek_changes('types_slot', NULL, NULL,
	'schemas', 'false', 'deterministic', 'true');

-- strings, hex, connect time, ISO intervals, hstore as map
SELECT data::json->'after' AS after FROM pg_logical_slot_peek_changes('types_slot', NULL, NULL,
	'schemas', 'false', 'deterministic', 'true', 'decimal_handling_mode', 'string',
	'binary_handling_mode', 'hex', 'time_precision_mode', 'connect',
	'interval_handling_mode', 'string', 'hstore_handling_mode', 'map');

-- doubles, base64, microsecond times, three money fraction digits
SELECT data::json->'after' AS after FROM pg_logical_slot_peek_changes('types_slot', NULL, NULL,
	'schemas', 'false', 'deterministic', 'true', 'decimal_handling_mode', 'double',
	'binary_handling_mode', 'base64', 'time_precision_mode', 'adaptive_time_microseconds',
	'money_fraction_digits', '3')
WHERE data::json->'source'->>'table' IN ('t_num', 't_bin', 't_time');

-- URL-safe base64
SELECT data::json->'after'->>'b' AS b FROM pg_logical_slot_peek_changes('types_slot', NULL, NULL,
	'schemas', 'false', 'binary_handling_mode', 'base64-url-safe')
WHERE data::json->'source'->>'table' = 't_bin';

-- the field schemas of every table, in each mode
SELECT s.table, json_array_elements(s.fields) AS field
FROM (SELECT DISTINCT ON (data::json->'payload'->'source'->>'table')
		data::json->'payload'->'source'->>'table' AS table,
		data::json->'schema'->'fields'->1->'fields' AS fields
	FROM pg_logical_slot_peek_changes('types_slot', NULL, NULL, 'deterministic', 'true',
		'decimal_handling_mode', 'string')
	ORDER BY data::json->'payload'->'source'->>'table') s;
SELECT s.table, json_array_elements(s.fields) AS field
FROM (SELECT DISTINCT ON (data::json->'payload'->'source'->>'table')
		data::json->'payload'->'source'->>'table' AS table,
		data::json->'schema'->'fields'->1->'fields' AS fields
	FROM pg_logical_slot_peek_changes('types_slot', NULL, NULL, 'deterministic', 'true',
		'time_precision_mode', 'connect', 'binary_handling_mode', 'hex',
		'interval_handling_mode', 'string', 'hstore_handling_mode', 'map')
	WHERE data::json->'payload'->'source'->>'table' IN ('t_time', 't_bin', 't_text')
	ORDER BY data::json->'payload'->'source'->>'table') s;

-- numeric NaN and infinities: strings and doubles can carry them, precise mode
-- cannot and stops with an error naming the column, table and position
SELECT count(*) FROM pg_logical_slot_get_changes('types_slot', NULL, NULL);
INSERT INTO t_num (id, n, n72) VALUES (5, 'NaN', 'NaN'), (6, '-Infinity', NULL),
	(7, 'Infinity', NULL);
SELECT data::json->'after'->'n' AS n, data::json->'after'->'n72' AS n72
FROM pg_logical_slot_peek_changes('types_slot', NULL, NULL,
	'schemas', 'false', 'decimal_handling_mode', 'string');
SELECT data::json->'after'->'n' AS n, data::json->'after'->'n72' AS n72
FROM pg_logical_slot_peek_changes('types_slot', NULL, NULL,
	'schemas', 'false', 'decimal_handling_mode', 'double');
\set VERBOSITY terse
SELECT data FROM pg_logical_slot_peek_changes('types_slot', NULL, NULL, 'schemas', 'false');
\set VERBOSITY default

SELECT 'drop' FROM pg_drop_replication_slot('types_slot');
DROP TABLE t_num, t_text, t_bin, t_time, t_other;
DROP TYPE mood;
DROP DOMAIN posint, shortstr;
