-- 40-defaults.sql: column defaults of every type Debezium parses defaults for, NOT NULL
-- columns whose delete before-images carry defaults or fallbacks, unchanged TOASTed arrays
-- of many element types, and a database whose settings are not the defaults.
--
-- Debezium reads a default as the text pg_get_expr() gives and parses it itself (functions
-- become a fixed placeholder, the first quoted literal is taken, Java's parsers convert it);
-- cdc_kafka must give the same "default" in every field schema and in place of every null.

\set ON_ERROR_STOP 1

-- Both sides read this database: every session of either starts with these settings.
-- Debezium's JDBC connections set DateStyle and TimeZone themselves; cdc_kafka must not be
-- moved by any of these.  extra_float_digits, IntervalStyle and bytea_output are left alone
-- here: Debezium reads values as the walsender prints them, so its own records follow them
-- (floats lose digits, sql_standard intervals are misread, escaped bytea stops the engine);
-- test/sql/settings.sql covers them for cdc_kafka (README, deliberate differences).
ALTER DATABASE conformance SET TimeZone = 'America/St_Johns';
ALTER DATABASE conformance SET DateStyle = 'SQL, DMY';
ALTER DATABASE conformance SET lc_monetary = 'C.utf8';

CREATE SEQUENCE def_seq;

-- nullable columns with defaults: an insert of nulls shows each default
CREATE TABLE def_null (
    id          integer PRIMARY KEY,
    t_nl        text DEFAULT E'line1\nline2',
    t_cr        varchar(20) DEFAULT E'x\ry',
    t_ls        text DEFAULT E'p\u2028q',
    t_nel       text DEFAULT E'p\u0085q',
    t_tab       text DEFAULT E'a\tb',
    t_bs        text DEFAULT E'back\\slash',
    t_quote     text DEFAULT 'it''s',
    t_empty     text DEFAULT '',
    t_concat    text DEFAULT 'a' || 'b',
    t_fn        text DEFAULT md5('x'),
    t_user      text DEFAULT CURRENT_USER,
    t_nullcast  text DEFAULT NULL,
    c_pad       char(5) DEFAULT 'ab',
    n_nan       numeric(10,2) DEFAULT 'NaN',
    n_vnan      numeric DEFAULT 'NaN',
    n_inf       numeric DEFAULT 'Infinity',
    n_neg       numeric(6,2) DEFAULT -1.5,
    n_scale     numeric(12,3) DEFAULT 12345.6,
    n_round     numeric(5,2) DEFAULT 1.234,
    n_plain     numeric DEFAULT 7.50,
    n_int       numeric(8,0) DEFAULT 42,
    f4_nan      real DEFAULT 'NaN',
    f4_tenth    real DEFAULT 0.1,
    f4_inf      real DEFAULT 'Infinity',
    f8_ninf     double precision DEFAULT '-Infinity',
    f8_exp      double precision DEFAULT 1e300,
    f8_neg      double precision DEFAULT -2.5,
    f8_third    double precision DEFAULT 1.0 / 3,
    i2_min      smallint DEFAULT -32768,
    i4_min      integer DEFAULT -2147483648,
    i8_max      bigint DEFAULT 9223372036854775807,
    i4_expr     integer DEFAULT 1 + 2,
    i4_cast     integer DEFAULT '42'::text::integer,
    i4_seq      integer DEFAULT nextval('def_seq'),
    b_null      boolean DEFAULT NULL,
    b_false     boolean DEFAULT false,
    b_expr      boolean DEFAULT (1 = 1),
    d_inf       date DEFAULT 'infinity',
    d_ninf      date DEFAULT '-infinity',
    d_cur       date DEFAULT CURRENT_DATE,
    d_bc        date DEFAULT '0044-03-15 BC',
    d_expr      date DEFAULT '2020-01-01'::date + 1,
    ts_inf      timestamp DEFAULT 'infinity',
    ts_ninf     timestamp DEFAULT '-infinity',
    ts_now      timestamp DEFAULT now(),
    ts_local    timestamp DEFAULT LOCALTIMESTAMP,
    ts_ms       timestamp(3) DEFAULT '2020-01-01 12:00:00.123',
    ts3_inf     timestamp(3) DEFAULT 'infinity',
    n_tiny      numeric(12,9) DEFAULT 0.00000001,
    n_tinyv     numeric DEFAULT 0.0000001,
    n_zero      numeric(6,3) DEFAULT 0,
    tz_inf      timestamptz DEFAULT 'infinity',
    tz_ninf     timestamptz DEFAULT '-infinity',
    tz_now      timestamptz DEFAULT now(),
    tz_cur      timestamptz DEFAULT CURRENT_TIMESTAMP,
    tz_off      timestamptz DEFAULT '2020-06-01 12:00:00.5+05:30',
    tm          time DEFAULT '23:59:59.999999',
    tm_local    time DEFAULT LOCALTIME,
    tm_ms       time(3) DEFAULT '01:02:03.456',
    tm_24       time DEFAULT '24:00:00',
    iv          interval DEFAULT '1 year 2 mons 3 days 04:05:06.789',
    iv_neg      interval DEFAULT '-1 day',
    iv_fn       interval DEFAULT make_interval(days => 1),
    u_fn        uuid DEFAULT gen_random_uuid(),
    u_lit       uuid DEFAULT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
    bit1        bit DEFAULT B'1',
    bit8        bit(8) DEFAULT B'10100000',
    vb          varbit(16) DEFAULT B'101',
    vb1         varbit(1) DEFAULT B'1',
    js          json DEFAULT '{"a": 1}',
    jb          jsonb DEFAULT '[1, 2]',
    x           xml DEFAULT '<a/>',
    e           mood DEFAULT 'happy',
    m           money DEFAULT 1.5,
    h           hstore DEFAULT 'a=>1',
    arr         integer[] DEFAULT '{1,2}'
);

-- NOT NULL columns: a delete's before image (REPLICA IDENTITY DEFAULT) has the key and,
-- for every other NOT NULL column, its default or else Debezium's fallback
CREATE TABLE def_notnull (
    id          integer PRIMARY KEY,
    tz_now      timestamptz NOT NULL DEFAULT now(),
    ts_now      timestamp NOT NULL DEFAULT now(),
    d_cur       date NOT NULL DEFAULT CURRENT_DATE,
    tm_now      time NOT NULL DEFAULT LOCALTIME,
    d_inf       date NOT NULL DEFAULT 'infinity',
    ts_inf      timestamp NOT NULL DEFAULT 'infinity',
    t_nl        text NOT NULL DEFAULT E'two\nlines',
    n_nan       numeric(10,2) NOT NULL DEFAULT 'NaN',
    n_neg       numeric(6,2) NOT NULL DEFAULT -1.5,
    i4_seq      integer NOT NULL DEFAULT nextval('def_seq'),
    iv_fn       interval NOT NULL DEFAULT make_interval(hours => 2),
    u_fn        uuid NOT NULL DEFAULT gen_random_uuid(),
    -- fallbacks: no default
    f_bool      boolean NOT NULL,
    f_i2        smallint NOT NULL,
    f_i8        bigint NOT NULL,
    f_f4        real NOT NULL,
    f_num       numeric(7,3) NOT NULL,
    f_m         money NOT NULL,
    f_text      text NOT NULL,
    f_uuid      uuid NOT NULL,
    f_bytea     bytea NOT NULL,
    f_date      date NOT NULL,
    f_time      time NOT NULL,
    f_timetz    timetz NOT NULL,
    f_ts        timestamp NOT NULL,
    f_tstz      timestamptz NOT NULL,
    f_iv        interval NOT NULL,
    f_bit       bit(4) NOT NULL,
    f_json      jsonb NOT NULL,
    f_enum      mood NOT NULL,
    f_h         hstore NOT NULL,
    f_arr       integer[] NOT NULL
);

-- unchanged TOASTed arrays: stored out of line without compression, then another column
-- changes, so pgoutput sends them as unchanged ('u')
CREATE TABLE toast_arrays (
    id          integer PRIMARY KEY,
    counter     integer,
    a_i2        smallint[],
    a_i4        integer[],
    a_i8        bigint[],
    a_num       numeric(12,2)[],
    a_f4        real[],
    a_f8        double precision[],
    a_bool      boolean[],
    a_mood      mood[],
    a_time      time[],
    a_date      date[],
    a_ts        timestamp[],
    a_tstz      timestamptz[],
    a_uuid      uuid[],
    a_text      text[],
    a_vc        varchar(40)[],
    a_bytea     bytea[],
    a_jsonb     jsonb[]
);
ALTER TABLE toast_arrays
    ALTER COLUMN a_i2 SET STORAGE EXTERNAL, ALTER COLUMN a_i4 SET STORAGE EXTERNAL,
    ALTER COLUMN a_i8 SET STORAGE EXTERNAL, ALTER COLUMN a_num SET STORAGE EXTERNAL,
    ALTER COLUMN a_f4 SET STORAGE EXTERNAL, ALTER COLUMN a_f8 SET STORAGE EXTERNAL,
    ALTER COLUMN a_bool SET STORAGE EXTERNAL, ALTER COLUMN a_mood SET STORAGE EXTERNAL,
    ALTER COLUMN a_time SET STORAGE EXTERNAL, ALTER COLUMN a_date SET STORAGE EXTERNAL,
    ALTER COLUMN a_ts SET STORAGE EXTERNAL, ALTER COLUMN a_tstz SET STORAGE EXTERNAL,
    ALTER COLUMN a_uuid SET STORAGE EXTERNAL, ALTER COLUMN a_text SET STORAGE EXTERNAL,
    ALTER COLUMN a_vc SET STORAGE EXTERNAL, ALTER COLUMN a_bytea SET STORAGE EXTERNAL,
    ALTER COLUMN a_jsonb SET STORAGE EXTERNAL;
