-- workload.sql: the row changes both Debezium and cdc_kafka decode (run after the start sentinel).
--
-- Statements are deterministic (no random(); the one now() is the column default of
-- defaults_table.c_now), so two runs produce the same rows; LSNs, xids and commit times differ
-- between runs, never between the two sides of one run. No DDL: schema changes in the
-- middle of the stream are tested elsewhere. Each block touches the table of setup.sql it names.

\set ON_ERROR_STOP 1

-- ------------------------------------------------------------------ numbers

-- Debezium's INSERT_NUMERIC_TYPES_STMT values (NaN/Infinity for real/double go to float_special)
INSERT INTO numeric_types (si, i, bi, r, dp, r_int, dp_int, b, o)
VALUES (1, 123456, 1234567890123, 3.3, 4.44, 3, 4, true, 4000000000);
INSERT INTO numeric_types (si, i, bi, r, dp, r_int, dp_int, b, o)
VALUES (-32768, -2147483648, -9223372036854775808, -1.5e-30, -2.2250738585072014e-308, 0, 0, false, 0);
INSERT INTO numeric_types (si, i, bi, r, dp, r_int, dp_int, b, o)
VALUES (32767, 2147483647, 9223372036854775807, 3.4028235e38, 1.7976931348623157e308, 1e7, 1e7, true, 4294967295);
INSERT INTO numeric_types (si, i, bi, r, dp, r_int, dp_int, b, o)
VALUES (0, 0, 0, 0.1, 0.1, -0.0, -0.0, NULL, NULL);
INSERT INTO numeric_types (ss, bs) VALUES (5, 6);   -- all nullable columns NULL
UPDATE numeric_types SET dp = 1.0 / 3, r = 1.0 / 3 WHERE id = 1;
DELETE FROM numeric_types WHERE id = 4;

INSERT INTO float_special (id, r, dp) VALUES
    (1, 'NaN', 'NaN'),
    (2, 'Infinity', 'Infinity'),
    (3, '-Infinity', '-Infinity'),
    (4, 1.17549435e-38, 4.9e-324),
    (5, 123456789, 123456789012345678);

-- Debezium's INSERT_NUMERIC_DECIMAL_TYPES_STMT_NO_NAN values, then edge cases
INSERT INTO decimal_types (d, dzs, n, nbig, dvs, d_nn, d_int, dvs_int)
VALUES (1.1, 10, 22.22, 1234567890123456789012345678.0123456789, 10.1111, 3.30, 1, 10);
INSERT INTO decimal_types (d, dzs, n, nbig, dvs, d_nn, d_int, dvs_int)
VALUES (-9.99, -9999, -0.0001, -0.0000000001, -123456789.000000001, 0, 0, 0);
INSERT INTO decimal_types (d, dzs, n, nbig, dvs, d_nn, d_int, dvs_int)
VALUES (0.01, 1, 12.5, 1e27, 1e20, 9.99, -1, 1.500);
INSERT INTO decimal_types (d_nn) VALUES (1.00);
UPDATE decimal_types SET dvs = 0.00000000000000000001 WHERE id = 1;
DELETE FROM decimal_types WHERE id = 2;

-- Debezium's cash values; lc_monetary is C (initdb --no-locale)
INSERT INTO money_types (m) VALUES ('$1234.11');
INSERT INTO money_types (m) VALUES ('($1234.11)');
INSERT INTO money_types (m) VALUES ('-92233720368547758.08');
INSERT INTO money_types (m) VALUES (0.005);
INSERT INTO money_types (m) VALUES (NULL);
UPDATE money_types SET m = 99.99 WHERE id = 5;

INSERT INTO special.decimal_special (id, dfix, dvs) VALUES
    (1, 'NaN', 'NaN'),
    (2, 1.5, 'Infinity'),
    (3, NULL, '-Infinity'),
    (4, 2.25, 3.5);
UPDATE special.decimal_special SET dvs = 'NaN' WHERE id = 4;

-- ------------------------------------------------------------------ strings and binary

INSERT INTO string_types (vc, vcv, ch, c, t, vu, ct, b, bnn)
VALUES (E'\u017E\u0161', 'bb', 'cdef', 'abc', 'some text', 'unbounded', 'Hello World',
        E'\\000\\001\\002'::bytea, E'\\003\\004\\005'::bytea);
INSERT INTO string_types (vc, vcv, ch, c, t, vu, ct, b, bnn)
VALUES ('a', '', 'ab', '', '', ' lead and trail ', 'MiXeD', '\x'::bytea, '\xff00ff'::bytea);
INSERT INTO string_types (bnn) VALUES ('\x00'::bytea);   -- all nullable columns NULL
UPDATE string_types SET t = 'changed', b = '\xdeadbeefcafebabe'::bytea WHERE id = 1;
DELETE FROM string_types WHERE id = 2;

INSERT INTO text_types (j, jb, x, u)
VALUES ('{"bar": "baz"}'::json, '{"bar": "baz"}'::jsonb, '<foo>bar</foo><foo>bar</foo>'::xml,
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid);
INSERT INTO text_types (j, jb, x, u)
VALUES ('  {"b": 1,   "a": [1, 2.50, null], "c": "\u00e9"}  ', '{"b": 1, "a": [1, 2.50, null], "c": "\u00e9", "aa": {}}',
        '<?xml version="1.0"?><r a="1">t &amp; &lt;x&gt;</r>', '00000000-0000-0000-0000-000000000000');
INSERT INTO text_types (j, jb, x, u) VALUES ('[]', 'null', '', NULL);
INSERT INTO text_types (j) VALUES (NULL);
UPDATE text_types SET jb = '{"k": [true, false]}' WHERE id = 1;

INSERT INTO unicode_text (id, label, val) VALUES
    (1, 'two-byte', E'\u017E\u0161 caf\u00e9 \u00fc\u00df'),
    (2, 'three-byte', E'\u4e2d\u6587 \u20ac \u2028 \u2029 \ufeff'),
    (3, 'four-byte', E'\U0001F600 \U0001F680 \U00010348'),
    (4, 'controls', E'tab\there nl\nhere cr\rhere bs\bhere ff\fhere \x01\x02\x1f\x7f end'),
    (5, 'json-significant', E'quote " backslash \\ slash / <script> & \u00a0'),
    (6, 'empty', ''),
    (7, 'null', NULL),
    (8, 'combining', E'e\u0301 n\u0303 \u0915\u094d\u0937');
UPDATE unicode_text SET val = E'updated \U0001F600' WHERE id = 6;
DELETE FROM unicode_text WHERE id = 7;

-- ------------------------------------------------------------------ time

-- Debezium's INSERT_DATE_TIME_TYPES_STMT values
INSERT INTO temporal_types (ts, tsneg, ts_ms, ts_us, ts0, tz, tz0, tz3, dt, ti, tip, ti0, ttf, ttz, tptz,
                            ts_large, ts_large_us, ts_large_ms, tz_large, ts_max, ts_min, tz_max, tz_min, tz_zero)
VALUES ('2016-11-04T13:51:30.123456'::timestamp, '1936-10-25T22:10:12.608'::timestamp,
        '2016-11-04T13:51:30.123456'::timestamp, '2016-11-04T13:51:30.123456'::timestamp,
        '2016-11-04T13:51:30.5'::timestamp,
        '2016-11-04T13:51:30.123456+02:00'::timestamptz, '2016-11-04T13:51:30.6+02:00'::timestamptz,
        '2016-11-04T13:51:30.1239+02:00'::timestamptz,
        '2016-11-04'::date, '13:51:30'::time, '13:51:30.123'::time, '13:51:30.7'::time, '24:00:00'::time,
        '13:51:30.123789+02:00'::timetz, '13:51:30.123+02:00'::timetz,
        '21016-11-04T13:51:30.123456'::timestamp, '21016-11-04T13:51:30.123457'::timestamp,
        '21016-11-04T13:51:30.124'::timestamp, '21016-11-04T13:51:30.123456+07:00'::timestamptz,
        '294247-01-01T23:59:59.999999'::timestamp, '4713-12-31T23:59:59.999999 BC'::timestamp,
        '294247-01-01T23:59:59.999999+00:00'::timestamptz, '4714-12-31T23:59:59.999999Z BC'::timestamptz,
        '21016-11-04T13:51:30.000000+07:00'::timestamptz);
INSERT INTO temporal_types (ts, tsneg, ts_ms, ts_us, ts0, tz, tz0, tz3, dt, ti, tip, ti0, ttf, ttz, tptz)
VALUES ('1970-01-01 00:00:00', '1969-12-31 23:59:59.999999', '1900-01-01 00:00:00.001', '2000-02-29 12:00:00.000001',
        '2038-01-19 03:14:08', '1970-01-01 00:00:00+00', '2016-11-04 13:51:30-11:30', '1999-12-31 23:59:59.999+14',
        '1970-01-01', '00:00:00', '23:59:59.999', '00:00:01', '00:00:00.000001',
        '00:00:00+00', '23:59:59.999-12');
INSERT INTO temporal_types DEFAULT VALUES;   -- all NULL
UPDATE temporal_types SET ts = '2020-06-15 08:00:00' WHERE id = 2;
DELETE FROM temporal_types WHERE id = 3;

INSERT INTO temporal_edge (id, dt, ts, ts3, tz, tz0) VALUES
    (1, 'infinity', 'infinity', 'infinity', 'infinity', 'infinity'),
    (2, '-infinity', '-infinity', '-infinity', '-infinity', '-infinity'),
    (3, '0044-03-15 BC', '0044-03-15 12:00:00 BC', '0001-01-01 00:00:00.001 BC', '0001-12-31 23:59:59.5+00 BC', '0100-06-30 12:00:00+00 BC'),
    (4, '10000-01-01', '10000-01-01 00:00:00', '12345-06-07 08:09:10.111', '10000-01-01 00:00:00+00', '99999-12-31 23:59:59+00'),
    (5, '0001-01-01', '0001-01-01 00:00:00', '1582-10-04 23:59:59.999', '1582-10-15 00:00:00+00', '0001-01-01 00:00:00+00');

INSERT INTO interval_types (id, label, iv) VALUES
    (1, 'debezium test value', 'P1Y2M3DT4H5M6.78S'),
    (2, 'positive', '1 year 2 months 3 days 04:05:06.789012'),
    (3, 'negative', '-1 year -2 months -3 days -04:05:06.5'),
    (4, 'mixed signs', '1 mon -2 days 03:00:00'),
    (5, 'mixed signs 2', '-1 year +13 months -00:00:00.000001'),
    (6, 'zero', '0'),
    (7, 'microseconds', '00:00:00.000001'),
    (8, 'large', '100 years 11 months 30 days 23:59:59.999999'),
    (9, 'hours only', '1000 hours'),
    (10, 'null', NULL);

-- ------------------------------------------------------------------ other scalar types

-- Debezium's INSERT_BIN_TYPES_STMT bit values
INSERT INTO bit_types (bol, bol2, bs, bs7, b8, bv1, bv, bv2, bvl, bvu1, bvu2)
VALUES ('0'::bit(1), '1'::bit(1), '11'::bit(2), '1'::bit(7), '10100101', '1'::bit varying(1), '00'::bit(2),
        '000000110000001000000001'::bit(24),
        '1000000000000000000000000000000000000000000000000000000000000000'::bit(64),
        '101', '111011010001000110000001000000001');
INSERT INTO bit_types (bol, bol2, bs, bs7, b8, bv1, bv, bv2, bvl, bvu1, bvu2)
VALUES ('1', '0', '01', '1000000', '00000000', '0', '1', '1', '0', '', '1111111111111111');
INSERT INTO bit_types DEFAULT VALUES;

INSERT INTO network_types (i, c, m, m8) VALUES
    ('192.168.2.0/12', '192.168.100.128/25', '08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05'),
    ('::1', '2001:db8::/32', '08-00-2b-01-02-03', '0800.2b01.0203.0405'),
    ('10.0.0.1', '10.0.0.0/8', 'ffffffffffff', '08002b:0102030405'),
    (NULL, NULL, NULL, NULL);

-- Debezium's INSERT_RANGE_TYPES_STMT values
INSERT INTO range_types (unbounded_exclusive_tsrange, bounded_inclusive_tsrange, unbounded_exclusive_tstzrange,
                         bounded_inclusive_tstzrange, unbounded_exclusive_daterange, bounded_exclusive_daterange,
                         int4_number_range, numerange, int8_number_range, empty_range)
VALUES ('[2019-03-31 15:30:00, infinity)', '[2019-03-31 15:30:00, 2019-04-30 15:30:00]',
        '[2017-06-05 11:29:12.549426+00,)', '[2017-06-05 11:29:12.549426+00, 2017-06-05 12:34:56.789012+00]',
        '[2019-03-31, infinity)', '[2019-03-31, 2019-04-30)', '[1000,6000)', '[5.3,6.3)', '[1000000,6000000)', 'empty');
INSERT INTO range_types (int4_number_range, numerange, empty_range) VALUES ('(,)', '(-1.5,]', '[3,3)');
INSERT INTO range_types DEFAULT VALUES;

INSERT INTO custom_types (hs, lt, isb, tsv, p, e, dom_int, dom_str) VALUES
    ('"key" => "val"', 'Top.Collections.Pictures.Astronomy.Galaxies', '978-0-393-04002-9',
     'a fat cat sat on a mat and ate a fat rat', '(1,1)', 'happy', 7, 'short'),
    ('"key1" => "val1", "key2" => NULL, "key_#1" => "val 1", "key 2" => " ##123 78", "q\"uote" => "b\\s"',
     'a', '0-306-40615-2', 'fat:2,4 cat:3B rat:5A', '(-1.5,2.25e10)', 'sad', 2147483647, ''),
    ('', 'x.y', NULL, '', '(0,0)', 'ok', NULL, NULL),
    (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE custom_types SET e = 'ok', hs = '"k" => "v"' WHERE id = 1;


-- ------------------------------------------------------------------ arrays

-- Debezium's INSERT_ARRAY_TYPES_STMT values where they apply
INSERT INTO array_types (int_array, smallint_array, bigint_array, text_array, char_array, varchar_array, bool_array,
                         float4_array, float8_array, numeric_array, varnumeric_array, date_array, time_array,
                         timestamp_array, timestamptz_array, uuid_array, json_array, jsonb_array, enum_array,
                         citext_array, inet_array, cidr_array, macaddr_array, int4range_array, tsrange_array,
                         ltree_array, bytea_array, oid_array)
VALUES ('{1,2,3}', '{-1,0,1}', '{1550166368505037572}', '{"one","two","three"}', '{"cone","ctwo","cthree"}',
        '{"vcone","vctwo","vcthree"}', '{true,false}', '{1.5,-2.25}', '{3.14159,1e100}', '{1.2,3.4,5.6}',
        '{1.1,2.22,3.333}', '{2016-11-04,2016-11-05,2016-11-06}', '{13:51:30,00:00:00.5}',
        '{"2016-11-04 13:51:30.123456","1969-12-31 23:59:59"}',
        '{"2016-11-04 13:51:30.123456+02","1970-01-01 00:00:00+00"}',
        '{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","f0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}',
        array['{"bar": "baz"}','{"foo": "qux"}']::json[], array['{"bar": "baz"}','{"foo": "qux"}']::jsonb[],
        '{happy,sad}', '{"four","five","six"}', '{"192.168.2.0/12","192.168.1.1","192.168.0.2/1"}',
        '{"192.168.100.128/25","192.168.0.0/25","192.168.1.0/24"}',
        '{"08:00:2b:01:02:03","08-00-2b-01-02-03","08002b:010203"}', '{"[1,6)","[1,4)"}',
        '{"[2019-03-31 15:30:00, infinity)","[2019-03-31 15:30:00, 2019-04-30 15:30:00]"}',
        '{"Ship.Frigate","Ship.Destroyer"}', array['\x000102'::bytea, '\x030405'::bytea], '{3,4000000000}');
-- empty arrays and NULL elements
INSERT INTO array_types (int_array, smallint_array, bigint_array, text_array, char_array, varchar_array, bool_array,
                         float4_array, float8_array, numeric_array, varnumeric_array, date_array, time_array,
                         timestamp_array, timestamptz_array, uuid_array, json_array, jsonb_array, enum_array,
                         citext_array, inet_array, cidr_array, macaddr_array, int4range_array, tsrange_array,
                         ltree_array, bytea_array, oid_array)
VALUES ('{}', '{NULL}', '{1,NULL}', '{"",NULL,"with,comma","with \"quote\"","NULL"}', '{}', '{"a",NULL}', '{NULL,true}',
        '{NULL}', '{NULL,0}', '{NULL,1}', '{NULL,0.000}', '{NULL,2020-01-01}', '{}', '{}', '{NULL}', '{NULL}',
        '{}', array[NULL,'[]']::jsonb[], '{NULL,ok}', '{}', '{NULL}', '{}', '{}', '{NULL,empty}', '{}', '{}',
        array[NULL,'\x'::bytea], '{}');
INSERT INTO array_types DEFAULT VALUES;   -- all NULL
UPDATE array_types SET int_array = '{4,5,6}', enum_array = '{ok}' WHERE id = 1;

-- ------------------------------------------------------------------ keys and replica identity

INSERT INTO ri_default (id, val, n) VALUES (1, 'one', 1), (2, 'two', 2), (3, NULL, 3);
UPDATE ri_default SET val = 'uno' WHERE id = 1;
UPDATE ri_default SET val = NULL, n = 20 WHERE id = 2;
DELETE FROM ri_default WHERE id = 3;

INSERT INTO ri_full (id, val, n) VALUES (1, 'one', 1), (2, 'two', NULL);
UPDATE ri_full SET val = 'uno' WHERE id = 1;
UPDATE ri_full SET n = 2 WHERE id = 2;
DELETE FROM ri_full WHERE id = 1;

INSERT INTO ri_index (id, code, val) VALUES (1, 'A', 'one'), (2, 'B', 'two');
UPDATE ri_index SET val = 'uno' WHERE id = 1;           -- identity unchanged: no old tuple
UPDATE ri_index SET code = 'BB' WHERE id = 2;           -- identity changed: old tuple has code only
DELETE FROM ri_index WHERE id = 1;

INSERT INTO ri_nothing (id, val) VALUES (1, 'one'), (2, 'two');   -- inserts only: UPDATE/DELETE would fail

INSERT INTO no_pk (a, b) VALUES (1, 'one'), (2, 'two'), (2, 'two');
UPDATE no_pk SET b = 'uno' WHERE a = 1;
DELETE FROM no_pk WHERE a = 2;

INSERT INTO pk_change (id, val) VALUES (1, 'one'), (2, 'two');
UPDATE pk_change SET id = 10 WHERE id = 1;               -- delete + tombstone + create, key headers
UPDATE pk_change SET id = 20, val = 'twenty' WHERE id = 2;

INSERT INTO composite_pk (a, b, val) VALUES (1, 'x', 'one'), (2, 'y', 'two');
UPDATE composite_pk SET val = 'uno' WHERE a = 1;
UPDATE composite_pk SET b = 'z' WHERE a = 2;             -- key change on one key column
DELETE FROM composite_pk WHERE a = 1;

-- ------------------------------------------------------------------ transactions

-- several tables and operations in one transaction, with a transactional message in between
BEGIN;
INSERT INTO inventory.products (id, name, price) VALUES (1, 'hammer', 9.99), (2, 'nails', 0.05);
INSERT INTO ri_default (id, val) VALUES (10, 'in tx');
SELECT pg_logical_emit_message(true, 'workload', 'transactional message');
UPDATE inventory.products SET price = 10.49 WHERE id = 1;
DELETE FROM inventory.products WHERE id = 2;
UPDATE ri_default SET n = 100 WHERE id = 10;
COMMIT;

-- many rows in one statement
INSERT INTO inventory.products (id, name, price)
SELECT i, 'bulk ' || i, i * 1.25 FROM generate_series(100, 149) AS i;
UPDATE inventory.products SET price = price * 2 WHERE id BETWEEN 100 AND 109;
DELETE FROM inventory.products WHERE id BETWEEN 140 AND 149;

-- a rolled-back transaction emits nothing (its transactional message neither)
BEGIN;
INSERT INTO inventory.products (id, name, price) VALUES (999, 'rolled back', 1);
SELECT pg_logical_emit_message(true, 'workload', 'rolled back');
ROLLBACK;

-- a subtransaction rolled back inside a committed transaction
BEGIN;
INSERT INTO inventory.products (id, name, price) VALUES (3, 'kept', 3);
SAVEPOINT s1;
INSERT INTO inventory.products (id, name, price) VALUES (4, 'undone', 4);
ROLLBACK TO SAVEPOINT s1;
INSERT INTO inventory.products (id, name, price) VALUES (5, 'kept too', 5);
COMMIT;

-- ------------------------------------------------------------------ logical decoding messages

SELECT pg_logical_emit_message(false, 'workload', 'non-transactional message');
SELECT pg_logical_emit_message(false, 'workload', '\x00ff10'::bytea);
SELECT pg_logical_emit_message(false, '', 'empty prefix');
SELECT pg_logical_emit_message(false, 'workload', '');
SELECT pg_logical_emit_message(true, 'workload', E'transactional alone \u00e9');

-- ------------------------------------------------------------------ TOAST

-- ~100 kB values (md5 text is hard to compress) stored out of line
INSERT INTO toast_default (id, counter, big_text, big_bytea, big_array, big_json)
SELECT 1, 0,
       (SELECT string_agg(md5(i::text), '' ORDER BY i) FROM generate_series(1, 3200) AS i),
       (SELECT decode(string_agg(md5(i::text), '' ORDER BY i), 'hex') FROM generate_series(1, 3200) AS i),
       (SELECT array_agg(md5(i::text) ORDER BY i) FROM generate_series(1, 3000) AS i),
       (SELECT jsonb_object_agg(i::text, md5(i::text)) FROM generate_series(1, 2500) AS i);
INSERT INTO toast_default (id, counter, big_text) VALUES (2, 0, 'small');
UPDATE toast_default SET counter = 1 WHERE id = 1;       -- TOASTed columns unchanged: placeholders
UPDATE toast_default SET counter = 2, big_text = 'now small' WHERE id = 1;
UPDATE toast_default SET counter = 1 WHERE id = 2;
DELETE FROM toast_default WHERE id = 1;

INSERT INTO toast_full (id, counter, big_text)
SELECT 1, 0, (SELECT string_agg(md5((-i)::text), '' ORDER BY i) FROM generate_series(1, 3200) AS i);
UPDATE toast_full SET counter = 1 WHERE id = 1;          -- FULL identity: old tuple carries the value
DELETE FROM toast_full WHERE id = 1;

-- ------------------------------------------------------------------ defaults

INSERT INTO defaults_table DEFAULT VALUES;
INSERT INTO defaults_table (c_int, c_text, c_now) VALUES (NULL, NULL, '2001-02-03 04:05:06+00');
UPDATE defaults_table SET c_int = 43 WHERE id = 1;
DELETE FROM defaults_table WHERE id = 2;

-- ------------------------------------------------------------------ names

INSERT INTO "MixedCaseTable" ("Id", "CamelCol", lower_col) VALUES (1, 'Camel', 'lower');
UPDATE "MixedCaseTable" SET "CamelCol" = 'Hump' WHERE "Id" = 1;
DELETE FROM "MixedCaseTable" WHERE "Id" = 1;

INSERT INTO "tablé_ñame" (id, "kolonne_ø", "列") VALUES (1, 'blåbær', '值');
UPDATE "tablé_ñame" SET "列" = '新值' WHERE id = 1;

INSERT INTO "Quoted_"" . Schema"."Quoted_"" . Table" ("Quoted_"" . Text_Column") VALUES ('some text');
DELETE FROM "Quoted_"" . Schema"."Quoted_"" . Table";

-- ------------------------------------------------------------------ TRUNCATE (seen with skipped.operations=none)

INSERT INTO truncate_a (id, val) VALUES (1, 'a');
INSERT INTO truncate_b (id, val) VALUES (1, 'b');
TRUNCATE truncate_a;
TRUNCATE truncate_a, truncate_b;
INSERT INTO truncate_a (id, val) VALUES (2, 'after truncate');

-- ------------------------------------------------------------------ row filters, column lists
-- (only profile "filtered" applies the filter and the list; the others see every change)
INSERT INTO filt_rows VALUES (1, 'eu', 10), (2, 'us', 20);
UPDATE filt_rows SET region = 'us' WHERE id = 1;   -- leaves the filter: a delete
UPDATE filt_rows SET region = 'eu' WHERE id = 2;   -- enters the filter: a create
UPDATE filt_rows SET amount = 30 WHERE id = 2;     -- inside the filter: an update
DELETE FROM filt_rows WHERE id = 2;
INSERT INTO filt_cols VALUES (1, 'shown', 'hidden');
UPDATE filt_cols SET keep = 'changed', secret = 'changed too';
DELETE FROM filt_cols;

-- ------------------------------------------------------------------ DDL while streaming
INSERT INTO ddl_live VALUES (1, 'before');
ALTER TABLE ddl_live ADD COLUMN b integer;
INSERT INTO ddl_live VALUES (2, 'after add', 2);
UPDATE ddl_live SET b = 1 WHERE id = 1;
ALTER TABLE ddl_live DROP COLUMN a;
INSERT INTO ddl_live VALUES (3, 3);
ALTER TABLE ddl_live ADD COLUMN c text;
BEGIN;
INSERT INTO ddl_live VALUES (4, 4, 'in one transaction with the DDL');
ALTER TABLE ddl_live ADD COLUMN d boolean;
INSERT INTO ddl_live VALUES (5, 5, 'after', true);
COMMIT;
DELETE FROM ddl_live WHERE id = 3;

