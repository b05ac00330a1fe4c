-- Records depend on the data alone: the same changes decoded under the default
-- settings and under odd TimeZone, DateStyle, IntervalStyle, extra_float_digits,
-- bytea_output, lc_monetary and a search_path with hostile look-alikes (session,
-- database and role settings) give byte-identical records, in every mode option.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hstore;
CREATE TYPE st_mood AS ENUM ('low', 'high');
CREATE TYPE st_pair AS (f double precision, b bytea, t timestamptz, i interval);
CREATE SEQUENCE st_seq;
CREATE TABLE st_types (
	id int PRIMARY KEY,
	b bool, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
	n numeric(12,4), nv numeric, m money, t text, vc varchar(9), c char(3),
	u uuid, by bytea, d date, tm time, tmz timetz, ts timestamp, tsz timestamptz,
	iv interval, bt bit(3), vb varbit(8), j json, jb jsonb, x xml, e st_mood,
	h hstore, pt point, a_f8 float8[], a_ts timestamptz[], a_iv interval[],
	r tstzrange, bx box, cp st_pair, rc regclass, o oid,
	-- defaults: each is printed and parsed by cdc_kafka
	dtz timestamptz NOT NULL DEFAULT now(),
	dts timestamp NOT NULL DEFAULT '2021-03-04 05:06:07.891',
	dd date NOT NULL DEFAULT '2021-03-04',
	dtm time NOT NULL DEFAULT '05:06:07.5',
	div interval NOT NULL DEFAULT '1 year 2 mons 3 days 04:05:06.5',
	df4 float4 NOT NULL DEFAULT 0.1,
	df8 float8 NOT NULL DEFAULT 1.0e-7,
	dn numeric(8,3) NOT NULL DEFAULT 2.5,
	dseq int NOT NULL DEFAULT nextval('st_seq'),
	de st_mood NOT NULL DEFAULT 'high',
	dtzl timestamptz NOT NULL DEFAULT '2021-03-04 05:06:07+02'
);
SELECT 'init' FROM pg_create_logical_replication_slot('settings_slot', 'cdc_kafka');
INSERT INTO st_types VALUES (1, true, -2, 40000, 5000000000, 0.1, 1.0/3,
	-12.3456, 123.456, 12.34, E'line\nbreak', 'varchar', 'ab',
	'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\x00ff10', '2020-02-29', '23:59:59.123456',
	'10:00:00+05:30', '1999-12-31 23:59:59.5', '2020-06-01 12:00:00+02',
	'-1 year 2 mons -3 days 04:05:06.789', B'101', B'1101', '{"a": [1, 2.50]}',
	'{"b": 1e3}', '<x>y</x>', 'low', 'k=>v, n=>NULL', '(1.5,-2.25)',
	ARRAY[0.1, 1e300, 'NaN'], ARRAY['2020-01-01 00:00+00'::timestamptz, 'infinity'],
	ARRAY['1 day 01:00'::interval, '-00:00:01.5'], '[2020-01-01 00:00+00,2020-02-01 00:00+00)',
	'((0.1,0.2),(3.3,4.4))', ROW(0.1, '\xdead', '2020-01-01 00:00+00', '1 day 02:00'),
	'st_types', 42);
INSERT INTO st_types (id) VALUES (2);
UPDATE st_types SET f8 = 2.5e-10, tsz = '2000-01-01 00:00+00' WHERE id = 1;
DELETE FROM st_types WHERE id = 2;

-- the outputs of every mode option under the default settings
-- (unlogged: not decoded themselves)
CREATE UNLOGGED TABLE st_expected (opts int, n bigint, data text);
CREATE UNLOGGED TABLE st_modes (opts int, o text[]);
INSERT INTO st_modes VALUES
	(1, ARRAY['schemas', 'true']),
	(2, ARRAY['decimal_handling_mode', 'string', 'binary_handling_mode', 'hex',
	          'time_precision_mode', 'connect', 'interval_handling_mode', 'string',
	          'hstore_handling_mode', 'map']),
	(3, ARRAY['decimal_handling_mode', 'double', 'binary_handling_mode', 'base64',
	          'time_precision_mode', 'adaptive_time_microseconds']),
	(4, ARRAY['binary_handling_mode', 'base64-url-safe', 'output_format', 'record']);
-- (the helpers pin their own search_path: the look-alikes below include "=")
CREATE FUNCTION st_decode(mode int) RETURNS TABLE (n bigint, data text)
LANGUAGE sql SET search_path = pg_catalog, public AS $$
	SELECT row_number() OVER (), c.data
	FROM public.st_modes m,
		pg_logical_slot_peek_changes('settings_slot', NULL, NULL,
			VARIADIC m.o || ARRAY['deterministic', 'true']) c
	WHERE m.opts = mode
$$;
INSERT INTO st_expected SELECT m.opts, d.n, d.data FROM st_modes m, public.st_decode(m.opts) d;
SELECT opts, count(*) FROM st_expected GROUP BY opts ORDER BY opts;
CREATE FUNCTION st_differences() RETURNS bigint
LANGUAGE sql SET search_path = pg_catalog, public AS $$
	SELECT count(*) FROM public.st_expected e
	FULL JOIN (SELECT m.opts, d.n, d.data FROM public.st_modes m, public.st_decode(m.opts) d) a
		ON a.opts = e.opts AND a.n = e.n
	WHERE a.data IS DISTINCT FROM e.data
$$;

-- the values that moved before: defaults read in the session's zone, floats,
-- bytea and names in text forms
SELECT data::json->'payload'->'before'->>'dtz' AS dtz_fallback,
	data::json->'payload'->'after'->>'bx' AS bx, data::json->'payload'->'after'->>'cp' AS cp,
	data::json->'payload'->'after'->>'rc' AS rc
FROM st_expected WHERE opts = 1 AND data::json->'payload'->>'op' IN ('d', 'u');

-- a schema of look-alikes first in the path
CREATE SCHEMA hostile;
CREATE DOMAIN hostile.text AS pg_catalog.text CHECK (VALUE <> '');
CREATE TYPE hostile.st_mood AS ENUM ('evil');
CREATE FUNCTION hostile.now() RETURNS timestamptz LANGUAGE sql AS $$ SELECT 'epoch'::timestamptz $$;
CREATE FUNCTION hostile.nextval(regclass) RETURNS bigint LANGUAGE sql AS $$ SELECT 666::bigint $$;
CREATE FUNCTION hostile.int4eq_evil(int, int) RETURNS bool LANGUAGE sql AS $$ SELECT false $$;
CREATE OPERATOR hostile.= (FUNCTION = hostile.int4eq_evil, LEFTARG = int, RIGHTARG = int);
CREATE TABLE hostile.st_types (id int);

-- session settings
SET TimeZone = 'America/St_Johns';
SET DateStyle = 'SQL, DMY';
SET IntervalStyle = 'sql_standard';
SET extra_float_digits = -3;
SET bytea_output = 'escape';
SET lc_monetary = 'ja_JP.UTF-8';	-- no fraction digits (install-deps.sh makes it)
SET standard_conforming_strings = off;
SET quote_all_identifiers = on;
SET search_path = hostile, pg_catalog;
SELECT public.st_differences() AS session_differences;
RESET ALL;

-- database and role settings, seen by a new session
SELECT format('ALTER DATABASE %I SET TimeZone = %L', current_database(), 'Asia/Kathmandu'),
	format('ALTER DATABASE %I SET DateStyle = %L', current_database(), 'German'),
	format('ALTER DATABASE %I SET IntervalStyle = %L', current_database(), 'iso_8601'),
	format('ALTER DATABASE %I SET search_path = hostile, pg_catalog, public', current_database())
\gexec
ALTER ROLE CURRENT_USER SET extra_float_digits = 0;
ALTER ROLE CURRENT_USER SET bytea_output = 'escape';
ALTER ROLE CURRENT_USER SET quote_all_identifiers = on;
-- (pg_regress sets PGTZ and PGDATESTYLE, which would override the database's)
\setenv PGTZ
\setenv PGDATESTYLE
\c
SHOW TimeZone;
SHOW DateStyle;
SHOW search_path;
SELECT public.st_differences() AS database_role_differences;
SELECT format('ALTER DATABASE %I RESET ALL', current_database())
\gexec
ALTER ROLE CURRENT_USER RESET ALL;
\c

SELECT 'dropped' FROM pg_drop_replication_slot('settings_slot');
DROP SCHEMA hostile CASCADE;
DROP TABLE st_types, st_expected, st_modes;
DROP FUNCTION st_decode(int), st_differences();
DROP TYPE st_mood, st_pair;
DROP SEQUENCE st_seq;
