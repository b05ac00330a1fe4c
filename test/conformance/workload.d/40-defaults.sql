-- 40-defaults.sql: changes of the tables of setup.d/40-defaults.sql.

\set ON_ERROR_STOP 1

-- every column null but the key: each field shows its schema default (or null)
INSERT INTO def_null SELECT (jsonb_populate_record(NULL::def_null, '{"id": 1}')).*;
-- the defaults themselves, evaluated (now() and friends pinned for a deterministic run)
-- (numeric NaN and Infinity as values would stop Debezium in precise mode: given)
INSERT INTO def_null (id, n_nan, n_vnan, n_inf, ts_now, ts_local, tz_now, tz_cur, d_cur, tm_local, u_fn, i4_seq)
    VALUES (2, 0, 0, 0, '2001-02-03 04:05:06', '2001-02-03 04:05:06', '2001-02-03 04:05:06+00',
            '2001-02-03 04:05:06+00', '2001-02-03', '04:05:06', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 7);
DELETE FROM def_null WHERE id = 2;

INSERT INTO def_notnull (id, n_nan, tz_now, ts_now, d_cur, tm_now, i4_seq, u_fn,
        f_bool, f_i2, f_i8, f_f4, f_num, f_m, f_text, f_uuid, f_bytea, f_date, f_time, f_timetz,
        f_ts, f_tstz, f_iv, f_bit, f_json, f_enum, f_h, f_arr)
    VALUES (1, 0, '2001-02-03 04:05:06+00', '2001-02-03 04:05:06', '2001-02-03', '04:05:06', 3,
            'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
            true, 2, 8, 4.5, 1.5, 3.25, 'text', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12', '\x01',
            '2020-01-01', '01:02:03', '01:02:03+02', '2020-01-01 01:02:03', '2020-01-01 01:02:03+00',
            '1 day', B'1010', '{"k": 1}', 'sad', 'a=>b', '{1,2,3}');
DELETE FROM def_notnull WHERE id = 1;

-- TOASTed arrays (each far above 2 kB, stored out of line), then an update of another column
INSERT INTO toast_arrays (id, counter, a_i2, a_i4, a_i8, a_num, a_f4, a_f8, a_bool, a_mood, a_time, a_date,
        a_ts, a_tstz, a_uuid, a_text, a_vc, a_bytea, a_jsonb)
SELECT 1, 0,
       array_agg(((i * 7919) % 32000)::smallint ORDER BY i) || array_fill(7::smallint, ARRAY[1200]),
       array_agg((i * 2654435761 % 2147483647)::integer ORDER BY i),
       array_agg(i::bigint * 15485863001 * (i % 7 + 1) - i * i ORDER BY i),
       array_agg(((i * 7919) % 100000 / 100.0)::numeric(12,2) ORDER BY i),
       array_agg(((i * 7919) % 10000 / 8.0)::real ORDER BY i),
       array_agg(((i * 104729) % 1000000 / 16.0)::double precision ORDER BY i),
       array_agg((i * 7919) % 3 = 0 ORDER BY i) || array_fill(true, ARRAY[3000]),
       array_agg((ARRAY['sad', 'ok', 'happy'])[(i * 7919) % 3 + 1]::mood ORDER BY i),
       array_agg(time '00:00' + ((i * 7919) % 86400) * interval '1 second' ORDER BY i),
       array_agg(date '2000-01-01' + (i * 7919) % 9000 ORDER BY i),
       array_agg(timestamp '2000-01-01' + ((i * 7919) % 90000) * interval '1 minute' ORDER BY i),
       array_agg(timestamptz '2000-01-01 00:00+00' + ((i * 104729) % 90000) * interval '1 second' ORDER BY i),
       array_agg(md5(i::text)::uuid ORDER BY i),
       array_agg(md5(i::text) ORDER BY i),
       array_agg(md5((i * 3)::text)::varchar(40) ORDER BY i),
       array_agg(decode(md5(i::text), 'hex') ORDER BY i),
       array_agg(jsonb_build_object('k', md5(i::text)) ORDER BY i)
FROM generate_series(1, 600) AS i;
UPDATE toast_arrays SET counter = 1 WHERE id = 1;
DELETE FROM toast_arrays WHERE id = 1;
