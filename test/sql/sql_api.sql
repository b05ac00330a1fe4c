-- Every SQL function of cdc_kafka refuses a null, dangling or wrong-kind
-- argument with an error, before it changes anything or needs the worker.
-- (The worker is not preloaded here: a function that needs it reaches the
-- error "not loaded at server start" only with good arguments.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS cdc_kafka;
RESET client_min_messages;
\set SHOW_CONTEXT never

CREATE TABLE api_ok (id int PRIMARY KEY, v text);
CREATE TABLE api_other (id int PRIMARY KEY);
CREATE VIEW api_view AS SELECT * FROM api_ok;
CREATE MATERIALIZED VIEW api_matview AS SELECT * FROM api_ok;
CREATE INDEX api_index ON api_ok (v);
CREATE SEQUENCE api_seq;
CREATE TYPE api_type AS (a int);
CREATE FOREIGN DATA WRAPPER api_fdw;
CREATE SERVER api_server FOREIGN DATA WRAPPER api_fdw;
CREATE FOREIGN TABLE api_foreign (id int) SERVER api_server;
CREATE TABLE api_parted (id int PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE api_part1 PARTITION OF api_parted FOR VALUES FROM (0) TO (100);
CREATE TABLE api_part2 PARTITION OF api_parted FOR VALUES FROM (100) TO (200);
CREATE TEMP TABLE api_temp (id int PRIMARY KEY);
CREATE UNLOGGED TABLE api_unlogged (id int PRIMARY KEY);
CREATE SCHEMA api_s;
CREATE TABLE api_s.t (id int PRIMARY KEY);
CREATE PUBLICATION cdc_kafka FOR TABLE api_ok, api_parted, TABLES IN SCHEMA api_s;

-- runs a call, returns its SQLSTATE and message (or its result)
CREATE FUNCTION api_try(call text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	result text;
BEGIN
	EXECUTE call INTO result;
	RETURN 'ok: ' || coalesce(result, 'null');
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, 'pg_temp_\d+', 'pg_temp');
END $$;

CREATE TEMP TABLE api_bad_tables (arg text, ord serial);
INSERT INTO api_bad_tables (arg) VALUES
	('NULL::regclass'), ('VARIADIC NULL::regclass[]'), ($$VARIADIC '{}'::regclass[]$$),
	($$'api_ok', NULL$$), ('999999'), ('0'),
	($$'api_view'$$), ($$'api_matview'$$), ($$'api_index'$$), ($$'api_ok_pkey'$$),
	($$'api_seq'$$), ($$'api_type'$$), ($$'api_foreign'$$),
	($$'api_temp'$$), ($$'api_unlogged'$$),
	($$'pg_class'$$), ($$'pg_toast.pg_toast_1255'$$), ($$'information_schema.sql_features'$$),
	($$'cdc_kafka.snapshots'$$), ($$'cdc_kafka.worker_state'$$);

-- add_tables(), remove_tables(), snapshot(): each bad table argument
SELECT f, arg, api_try(format('SELECT count(*) FROM cdc_kafka.%s(%s)', f, arg)) AS result
  FROM unnest(ARRAY['add_tables', 'remove_tables', 'snapshot']) WITH ORDINALITY AS fs(f, fo),
       api_bad_tables
 ORDER BY fo, ord;

-- snapshot(table, filter): each bad table, then bad filters
SELECT arg, api_try(format($$SELECT cdc_kafka.snapshot(%s, 'id > 0')$$, arg)) AS result
  FROM api_bad_tables WHERE arg NOT LIKE 'VARIADIC%' AND arg NOT LIKE '%,%' ORDER BY ord;
SELECT cdc_kafka.snapshot('api_ok', NULL);
SELECT cdc_kafka.snapshot(NULL, NULL);
SELECT api_try($$SELECT cdc_kafka.snapshot('api_ok', '')$$);

-- the details and hints of a few
SELECT cdc_kafka.add_tables(999999::regclass);
SELECT cdc_kafka.add_tables('api_view');
SELECT cdc_kafka.add_tables('api_unlogged');
SELECT cdc_kafka.snapshot('api_parted');

-- partitions and schemas: what the publication itself names
SELECT cdc_kafka.add_tables('api_ok');
SELECT cdc_kafka.add_tables('api_part1');
SELECT cdc_kafka.remove_tables('api_part1');
SELECT cdc_kafka.remove_tables('api_other');
SELECT cdc_kafka.remove_tables('api_s.t');
-- a bad table after a good one: nothing changes
SELECT cdc_kafka.add_tables('api_other', 'api_view');
SELECT cdc_kafka.remove_tables('api_ok', 'api_other');
SELECT cdc_kafka.snapshot('api_ok', 'api_view');
SELECT * FROM cdc_kafka.tables();
SELECT count(*) AS queued FROM cdc_kafka.snapshots;
-- good calls still work; a table named twice is added once
SELECT * FROM cdc_kafka.add_tables('api_other', 'api_other');
SELECT * FROM cdc_kafka.remove_tables('api_other');
SELECT count(*) FROM cdc_kafka.snapshot('api_part1', 'api_ok', 'api_part1');
SELECT count(*) FROM cdc_kafka.snapshot(VARIADIC ARRAY['api_ok']::regclass[]);

-- cancel_snapshot(): null, an id that was never given
SELECT cdc_kafka.cancel_snapshot(NULL);
SELECT cdc_kafka.cancel_snapshot(-1);
SELECT cdc_kafka.cancel_snapshot(0);
SELECT regexp_replace(api_try(format('SELECT cdc_kafka.cancel_snapshot(%s)', max(id) + 1)),
                      'request \d+', 'request N')
  FROM cdc_kafka.snapshots;
SELECT cdc_kafka.cancel_snapshot(max(id)) FROM cdc_kafka.snapshots;
SELECT cdc_kafka.cancel_snapshot(max(id)) FROM cdc_kafka.snapshots;

-- reset_offsets(), skip_record(): null, 0/0, a position not yet written
SELECT cdc_kafka.reset_offsets(NULL);
SELECT cdc_kafka.reset_offsets('0/0');
SELECT regexp_replace(api_try($$SELECT cdc_kafka.reset_offsets('FFFFFFFF/FFFFFFFF')$$),
                      '> [0-9A-F]+/[0-9A-F]+', '> (flushed)');
SELECT cdc_kafka.reset_offsets(pg_current_wal_flush_lsn());
SELECT cdc_kafka.skip_record(NULL);
SELECT cdc_kafka.skip_record('0/0');
SELECT cdc_kafka.skip_record('0/1');

-- the functions without arguments need the worker's shared memory
SELECT cdc_kafka.start();
SELECT cdc_kafka.stop();
SELECT cdc_kafka.restart();
SELECT cdc_kafka.create_slot();
SELECT cdc_kafka.drop_slot();
SELECT * FROM cdc_kafka.status;
SELECT * FROM cdc_kafka.table_stats;
SELECT enabled FROM cdc_kafka.worker_state;

DELETE FROM cdc_kafka.snapshots;
DROP FUNCTION api_try(text);
DROP PUBLICATION cdc_kafka;
DROP SCHEMA api_s CASCADE;
DROP TABLE api_parted, api_ok, api_other, api_temp, api_unlogged CASCADE;
DROP SEQUENCE api_seq;
DROP TYPE api_type;
DROP SERVER api_server CASCADE;
DROP FOREIGN DATA WRAPPER api_fdw;
