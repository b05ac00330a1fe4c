/* cdc_kafka--1.0.sql: SQL interface of the cdc_kafka extension */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION cdc_kafka" to load this file. \quit

-- The functions with arguments are not STRICT: a null argument is an error
-- (raised by the function, like its other argument checks), not a null result.
--
-- As PostgreSQL asks of extension scripts: every function, operator and
-- type in an expression (defaults, checks, views) is named with its schema,
-- so that nothing found through a schema another role can create objects in
-- is bound into the extension's objects.

-- The Debezium release whose record format the output plugin reproduces.
CREATE FUNCTION cdc_kafka.debezium_version()
RETURNS text
AS 'MODULE_PATHNAME', 'cdc_kafka_debezium_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Whether this database's worker streams (cdc_kafka.start() / stop()).
CREATE TABLE cdc_kafka.worker_state (
	enabled boolean NOT NULL DEFAULT true,
	-- cdc_kafka.table_include_list as last applied to the publication: a
	-- changed setting is applied once; add_tables()/remove_tables() last
	include_list_applied text,
	-- the replication slot the worker streams from, once it has had it: if
	-- that slot vanishes (dropped from outside), the worker stops in state
	-- slot_lost rather than silently take a new one; drop_slot() forgets it
	slot_name name,
	one_row boolean PRIMARY KEY DEFAULT true CHECK (one_row)
);
INSERT INTO cdc_kafka.worker_state DEFAULT VALUES;
SELECT pg_catalog.pg_extension_config_dump('cdc_kafka.worker_state', '');

-- ---- streaming ---------------------------------------------------------------

CREATE FUNCTION cdc_kafka.start()
RETURNS text
AS 'MODULE_PATHNAME', 'cdc_kafka_start'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION cdc_kafka.start() IS
	'Start streaming this database to Kafka (and keep streaming across restarts).';

CREATE FUNCTION cdc_kafka.stop()
RETURNS text
AS 'MODULE_PATHNAME', 'cdc_kafka_stop'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION cdc_kafka.stop() IS
	'Stop streaming this database, after what is in flight was acknowledged; the slot keeps its position.';

CREATE FUNCTION cdc_kafka.restart()
RETURNS text
AS 'MODULE_PATHNAME', 'cdc_kafka_restart'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION cdc_kafka.restart() IS
	'End the streaming session of this database and start a new one from the slot''s position.';

-- ---- captured tables (the publication) --------------------------------------------

CREATE FUNCTION cdc_kafka.add_tables(VARIADIC tables regclass[])
RETURNS SETOF regclass
AS 'MODULE_PATHNAME', 'cdc_kafka_add_tables'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION cdc_kafka.add_tables(regclass[]) IS
	'Capture these tables too (adds them to the publication); returns the captured tables.';

CREATE FUNCTION cdc_kafka.remove_tables(VARIADIC tables regclass[])
RETURNS SETOF regclass
AS 'MODULE_PATHNAME', 'cdc_kafka_remove_tables'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION cdc_kafka.remove_tables(regclass[]) IS
	'Stop capturing these tables (drops them from the publication); returns the captured tables.';

CREATE FUNCTION cdc_kafka.tables()
RETURNS SETOF regclass
AS 'MODULE_PATHNAME', 'cdc_kafka_tables'
LANGUAGE C STABLE STRICT;
COMMENT ON FUNCTION cdc_kafka.tables() IS 'The tables whose changes are streamed.';

-- ---- the slot -----------------------------------------------------------------------

CREATE FUNCTION cdc_kafka.create_slot()
RETURNS name
AS 'MODULE_PATHNAME', 'cdc_kafka_create_slot'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION cdc_kafka.create_slot() IS
	'Create this database''s replication slot (cdc_kafka.slot_name) if it does not exist.';

CREATE FUNCTION cdc_kafka.drop_slot()
RETURNS name
AS 'MODULE_PATHNAME', 'cdc_kafka_drop_slot'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION cdc_kafka.drop_slot() IS
	'Drop this database''s replication slot; streaming must be stopped first.';

CREATE FUNCTION cdc_kafka.reset_offsets(lsn pg_lsn)
RETURNS pg_lsn
AS 'MODULE_PATHNAME', 'cdc_kafka_reset_offsets'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION cdc_kafka.reset_offsets(pg_lsn) IS
	'Move the slot forward to this LSN: changes before it are not streamed.';

CREATE FUNCTION cdc_kafka.skip_record(lsn pg_lsn)
RETURNS text
AS 'MODULE_PATHNAME', 'cdc_kafka_skip_record'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION cdc_kafka.skip_record(pg_lsn) IS
	'Leave out the record Kafka refused at this LSN (see cdc_kafka.status) and resume streaming.';

-- ---- snapshots ----------------------------------------------------------------------

-- Requests for incremental snapshots and their progress (the worker's queue).
CREATE TABLE cdc_kafka.snapshots (
	id bigserial PRIMARY KEY,
	table_oid oid NOT NULL,
	table_name text NOT NULL,
	kind text NOT NULL CHECK (kind OPERATOR(pg_catalog.=)
		ANY ('{incremental,initial,resumed,startup}'::pg_catalog.text[])),
	filter text,
	-- the filter as the worker runs it: resolved by cdc_kafka.snapshot() in
	-- the caller's search_path, every name search_path pg_catalog would not
	-- find qualified
	filter_sql text,
	requested_by regrole NOT NULL,
	-- whether requested_by was a superuser when it asked: the worker refuses
	-- a request of a role that became one since (see README, Security)
	requested_by_superuser boolean NOT NULL DEFAULT false,
	state text NOT NULL DEFAULT 'pending'
		CHECK (state OPERATOR(pg_catalog.=)
			ANY ('{pending,running,done,cancelled,failed}'::pg_catalog.text[])),
	last_key text[],
	rows_sent bigint NOT NULL DEFAULT 0,
	rows_estimated bigint,
	requested_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	started_at timestamptz,
	finished_at timestamptz,
	error text
);
COMMENT ON TABLE cdc_kafka.snapshots IS
	'Incremental snapshots: requested by cdc_kafka.snapshot(), the initial snapshot with snapshot_chunked on (initial), an interrupted initial snapshot (resumed) or snapshot_mode always (startup).';
COMMENT ON COLUMN cdc_kafka.snapshots.last_key IS
	'The key of the last row Kafka acknowledged (text of each key column): the next chunk starts after it.';

CREATE FUNCTION cdc_kafka.snapshot(VARIADIC tables regclass[])
RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'cdc_kafka_snapshot'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION cdc_kafka.snapshot(regclass[]) IS
	'Send the current rows of these captured tables as op "r" records while streaming goes on; returns the request ids.';

CREATE FUNCTION cdc_kafka.snapshot(tbl regclass, filter text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'cdc_kafka_snapshot_where'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION cdc_kafka.snapshot(regclass, text) IS
	'Send the current rows of a captured table that satisfy filter (a WHERE condition) as op "r" records; returns the request id.';

CREATE FUNCTION cdc_kafka.cancel_snapshot(id bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'cdc_kafka_cancel_snapshot'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION cdc_kafka.cancel_snapshot(bigint) IS
	'Stop an incremental snapshot that is pending or running; false if it was not, an error if there is no such request.';

CREATE VIEW cdc_kafka.snapshot_progress AS
	SELECT id, table_name, kind, state, filter, rows_sent, rows_estimated,
		CASE WHEN state OPERATOR(pg_catalog.=) 'done' THEN 100
			WHEN rows_estimated OPERATOR(pg_catalog.>) 0 THEN least(99,
				pg_catalog.round(100.0 OPERATOR(pg_catalog.*) rows_sent::pg_catalog.numeric
					OPERATOR(pg_catalog./) rows_estimated::pg_catalog.numeric))
		END AS percent,
		requested_by, requested_at, started_at, finished_at, error
	FROM cdc_kafka.snapshots ORDER BY id;
COMMENT ON VIEW cdc_kafka.snapshot_progress IS 'Incremental snapshots, newest last, with their progress.';

-- ---- views ------------------------------------------------------------------------------

CREATE FUNCTION cdc_kafka.worker_status(
	OUT database name, OUT pid integer, OUT state text, OUT detail text,
	OUT slot_name name, OUT publication name, OUT topic_prefix text,
	OUT confirmed_lsn pg_lsn, OUT read_lsn pg_lsn, OUT lag_seconds double precision,
	OUT records_sent bigint, OUT bytes_sent bigint,
	OUT inflight_records bigint, OUT inflight_bytes bigint,
	OUT retries bigint, OUT last_ack_time timestamptz,
	OUT last_error text, OUT last_error_time timestamptz, OUT broker text,
	OUT blocked_table text, OUT blocked_key text, OUT blocked_lsn pg_lsn,
	OUT snapshot_table text, OUT snapshot_rows bigint, OUT snapshot_rows_estimated bigint,
	OUT snapshot_wait text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'cdc_kafka_worker_status'
LANGUAGE C VOLATILE STRICT;

CREATE VIEW cdc_kafka.status AS
	SELECT database, pid, state, detail, slot_name, publication, topic_prefix,
		confirmed_lsn, read_lsn,
		CASE WHEN confirmed_lsn IS NOT NULL AND NOT pg_catalog.pg_is_in_recovery()
			THEN pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_flush_lsn(),
				confirmed_lsn)::pg_catalog.int8
		END AS lag_bytes,
		lag_seconds, records_sent, bytes_sent, inflight_records, inflight_bytes,
		retries, last_ack_time, last_error, last_error_time, broker,
		blocked_table, blocked_key, blocked_lsn,
		snapshot_table, snapshot_rows, snapshot_rows_estimated, snapshot_wait
	FROM cdc_kafka.worker_status();
COMMENT ON VIEW cdc_kafka.status IS 'One row per streaming worker (per database of cdc_kafka.databases).';

CREATE FUNCTION cdc_kafka.table_counters(
	OUT table_name regclass, OUT records bigint, OUT bytes bigint, OUT last_record_at timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'cdc_kafka_table_counters'
LANGUAGE C VOLATILE STRICT;

CREATE VIEW cdc_kafka.table_stats AS
	SELECT table_name, records, bytes, last_record_at FROM cdc_kafka.table_counters();
COMMENT ON VIEW cdc_kafka.table_stats IS
	'Records and bytes Kafka acknowledged per table of this database since the server started.';

-- ---- privileges ------------------------------------------------------------------------
-- Two roles beside superusers (README: Delegation).  pg_monitor reads the
-- views: USAGE on the schema, SELECT on the views, EXECUTE on the functions
-- they call, nothing else.  cdc_kafka_admin, the extension's own role,
-- manages streaming: EXECUTE on the functions below, which check in C that
-- the caller has its privileges before doing anything, then do the part the
-- role cannot do itself (the publication, the slot, the extension's tables)
-- as the bootstrap superuser.  Roles are cluster-wide and this script runs
-- once per database: the role is created only if missing, and DROP
-- EXTENSION leaves it (it may be used by the extension in other databases).

DO $$
BEGIN
	IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles
				   WHERE rolname OPERATOR(pg_catalog.=) 'cdc_kafka_admin') THEN
		CREATE ROLE cdc_kafka_admin NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE
			NOREPLICATION NOBYPASSRLS;
		COMMENT ON ROLE cdc_kafka_admin IS
			'Members manage cdc_kafka streaming (start, stop, tables, slot, snapshots) in every database with the extension.';
	END IF;
END
$$;

-- The tables are the extension owner's alone: the worker trusts what
-- cdc_kafka.snapshots says (a role, a filter), so nobody else may write it;
-- cdc_kafka.snapshot() and cancel_snapshot() write it on the caller's behalf.

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA cdc_kafka FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cdc_kafka.debezium_version() TO PUBLIC;
REVOKE ALL ON cdc_kafka.worker_state, cdc_kafka.status, cdc_kafka.table_stats,
	cdc_kafka.snapshots, cdc_kafka.snapshot_progress FROM PUBLIC;
REVOKE ALL ON SEQUENCE cdc_kafka.snapshots_id_seq FROM PUBLIC;

GRANT USAGE ON SCHEMA cdc_kafka TO pg_monitor, cdc_kafka_admin;
GRANT SELECT ON cdc_kafka.status, cdc_kafka.table_stats, cdc_kafka.snapshot_progress
	TO pg_monitor, cdc_kafka_admin;
GRANT EXECUTE ON FUNCTION cdc_kafka.worker_status(), cdc_kafka.table_counters()
	TO pg_monitor, cdc_kafka_admin;
GRANT EXECUTE ON FUNCTION cdc_kafka.start(), cdc_kafka.stop(), cdc_kafka.restart(),
	cdc_kafka.add_tables(regclass[]), cdc_kafka.remove_tables(regclass[]), cdc_kafka.tables(),
	cdc_kafka.create_slot(), cdc_kafka.drop_slot(), cdc_kafka.reset_offsets(pg_lsn),
	cdc_kafka.skip_record(pg_lsn), cdc_kafka.snapshot(regclass[]),
	cdc_kafka.snapshot(regclass, text), cdc_kafka.cancel_snapshot(bigint)
	TO cdc_kafka_admin;
