-- Column defaults as Debezium 3.6.1 parses them from pg_get_expr()'s text:
-- functions become placeholders, the first quoted literal on one line is taken,
-- Java's parsers decide, and anything they reject gives no default.
SET client_min_messages = warning;
CREATE SEQUENCE df_seq;
CREATE TABLE df (
	id int PRIMARY KEY,
	t_nl text DEFAULT E'line1\nline2',
	t_ls text DEFAULT E'p\u2028q',
	t_tab text DEFAULT E'a\tb',
	t_quote text DEFAULT 'it''s',
	t_fn text DEFAULT md5('x'),
	t_user text DEFAULT CURRENT_USER,
	n_nan numeric(10,2) DEFAULT 'NaN',
	n_inf numeric DEFAULT 'Infinity',
	n_neg numeric(6,2) DEFAULT -1.5,
	n_round numeric(5,2) DEFAULT 1.234,
	n_tiny numeric(12,9) DEFAULT 0.00000001,
	f4_nan real DEFAULT 'NaN',
	f8_ninf double precision DEFAULT '-Infinity',
	i4_cast integer DEFAULT '42'::text::integer,
	i4_bad integer DEFAULT ('x'::text)::integer,
	i4_seq integer DEFAULT nextval('df_seq'),
	i8_min bigint DEFAULT -9223372036854775808,
	d_inf date DEFAULT 'infinity',
	d_ninf date DEFAULT '-infinity',
	d_bc date DEFAULT '0044-03-15 BC',
	d_bad date DEFAULT ('today'::text)::date,
	ts_inf timestamp DEFAULT 'infinity',
	ts3_inf timestamp(3) DEFAULT 'infinity',
	tz_inf timestamptz DEFAULT 'infinity',
	tz_now timestamptz DEFAULT now(),
	tz_off timestamptz DEFAULT '2020-06-01 12:00:00.5+05:30',
	tm_24 time DEFAULT '24:00:00',
	iv_fn interval DEFAULT make_interval(days => 1),
	iv interval DEFAULT '1 year 2 mons -3 days 04:05:06.789',
	u uuid DEFAULT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
	vb varbit(16) DEFAULT B'101',
	bt bit(4) DEFAULT B'0110'
);
CREATE TABLE df_nn (
	id int PRIMARY KEY,
	tz_now timestamptz NOT NULL DEFAULT now(),
	t_nl text NOT NULL DEFAULT E'two\nlines',
	n_nan numeric(10,2) NOT NULL DEFAULT 'NaN',
	ts_inf timestamp NOT NULL DEFAULT 'infinity'
);
SELECT 'init' FROM pg_create_logical_replication_slot('defaults_slot', 'cdc_kafka');
-- every column null but the key (i4_bad's default would fail if evaluated)
INSERT INTO df SELECT (jsonb_populate_record(NULL::df, '{"id": 1}')).*;
INSERT INTO df_nn (id, n_nan) VALUES (1, 1);
DELETE FROM df_nn WHERE id = 1;
-- the same under another session time zone and date style
SET TimeZone = 'America/St_Johns';
SET DateStyle = 'SQL, DMY';

CREATE FUNCTION df_defaults(VARIADIC opts text[])
RETURNS TABLE (field text, "default" json) LANGUAGE sql AS $$
	SELECT f->>'field', f->'default'
	FROM pg_logical_slot_peek_changes('defaults_slot', NULL, NULL, VARIADIC opts) c,
		json_array_elements(c.data::json->'schema'->'fields'->0->'fields') f
	WHERE c.data::json->'payload'->'source'->>'table' = 'df'
$$;

-- precise decimals, adaptive times
SELECT * FROM df_defaults('schemas', 'true');
-- string decimals, connect times, string intervals
SELECT * FROM df_defaults('schemas', 'true', 'decimal_handling_mode', 'string',
	'time_precision_mode', 'connect', 'interval_handling_mode', 'string');

-- a delete's before image: NOT NULL columns get their default, else a fallback
SELECT data::json->'before' AS before
FROM pg_logical_slot_peek_changes('defaults_slot', NULL, NULL, 'schemas', 'false')
WHERE data::json->>'op' = 'd';
SELECT data::json->'before' AS before
FROM pg_logical_slot_peek_changes('defaults_slot', NULL, NULL, 'schemas', 'false',
	'time_precision_mode', 'connect', 'decimal_handling_mode', 'string')
WHERE data::json->>'op' = 'd';

RESET TimeZone;
RESET DateStyle;
SELECT 'dropped' FROM pg_drop_replication_slot('defaults_slot');
DROP TABLE df, df_nn;
DROP FUNCTION df_defaults(text[]);
DROP SEQUENCE df_seq;
