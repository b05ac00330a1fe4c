/* cdc_kafka--1.0--1.1.sql: from version 1.0 to 1.1 (ALTER EXTENSION cdc_kafka UPDATE) */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION cdc_kafka UPDATE TO '1.1'" to load this file. \quit

-- A fresh install of 1.1 runs cdc_kafka--1.0.sql and then this script, so
-- there is one definition of each object.  The rules of cdc_kafka--1.0.sql
-- hold here too (every name in an expression qualified with its schema,
-- nothing granted to PUBLIC but debezium_version()).
--
-- The library serves both versions: the C functions 1.0 names keep their
-- behaviour and result columns, so a server restarted with the new library
-- streams on while the extension is still 1.0; this script only adds.

-- ---- status: the failover flag of each worker's slot ------------------------

-- STRICT, unlike 1.0's functions with arguments (for which a null is an
-- error): the view asks it about every worker, and a worker without a slot
-- yet has a null slot_name, and so no failover flag either.
CREATE FUNCTION cdc_kafka.slot_failover(slot name)
RETURNS boolean
AS 'MODULE_PATHNAME', 'cdc_kafka_slot_failover'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION cdc_kafka.slot_failover(name) IS
	'Whether the replication slot is a failover slot (PostgreSQL 17+; false before), null if there is no such slot.';

-- CREATE OR REPLACE keeps the view (its grants, views built on it): the new
-- column comes last.
CREATE OR REPLACE VIEW cdc_kafka.status AS
	SELECT database, pid, state, detail, slot_name, publication, topic_prefix,
		confirmed_lsn, read_lsn,
		CASE WHEN confirmed_lsn IS NOT NULL AND NOT pg_catalog.pg_is_in_recovery()
			THEN pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_flush_lsn(),
				confirmed_lsn)::pg_catalog.int8
		END AS lag_bytes,
		lag_seconds, records_sent, bytes_sent, inflight_records, inflight_bytes,
		retries, last_ack_time, last_error, last_error_time, broker,
		blocked_table, blocked_key, blocked_lsn,
		snapshot_table, snapshot_rows, snapshot_rows_estimated, snapshot_wait,
		cdc_kafka.slot_failover(slot_name) AS slot_failover
	FROM cdc_kafka.worker_status();

-- The view's readers (README: Delegation) call what it calls.
REVOKE ALL ON FUNCTION cdc_kafka.slot_failover(name) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cdc_kafka.slot_failover(name) TO pg_monitor, cdc_kafka_admin;

-- ---- worker_state: restoring a dump -------------------------------------------

-- pg_dump dumps the row of cdc_kafka.worker_state (a configuration table),
-- and restoring it met the row CREATE EXTENSION inserts: the restore failed
-- on the primary key and the worker started afresh, as if never stopped and
-- without the slot it had.  The restored row now takes that row's place.
-- (The worker and the functions only ever UPDATE the row.)
CREATE FUNCTION cdc_kafka.worker_state_merge()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	UPDATE cdc_kafka.worker_state
	SET enabled = NEW.enabled, include_list_applied = NEW.include_list_applied,
		slot_name = NEW.slot_name;
	IF FOUND THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION cdc_kafka.worker_state_merge() FROM PUBLIC;

CREATE TRIGGER worker_state_merge BEFORE INSERT ON cdc_kafka.worker_state
	FOR EACH ROW EXECUTE FUNCTION cdc_kafka.worker_state_merge();
