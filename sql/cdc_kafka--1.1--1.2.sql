/* cdc_kafka--1.1--1.2.sql: from version 1.1 to 1.2 (ALTER EXTENSION cdc_kafka UPDATE) */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION cdc_kafka UPDATE TO '1.2'" to load this file. \quit

-- The rules of cdc_kafka--1.0--1.1.sql hold here too: a fresh install runs
-- 1.0, then 1.0--1.1, then this script; every name qualified; the library
-- serves every version (worker_status() keeps 1.0's columns).

-- ---- status: delivery mode and Kafka transactions (cdc_kafka.delivery) -----

CREATE FUNCTION cdc_kafka.worker_delivery(
	OUT database name, OUT delivery text, OUT transactional_id text,
	OUT kafka_transactions bigint, OUT kafka_committed_at timestamptz,
	OUT kafka_committed_lsn pg_lsn, OUT kafka_committed_index integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'cdc_kafka_worker_delivery'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION cdc_kafka.worker_delivery() IS
	'Each worker''s delivery mode and, for exactly_once, its last committed Kafka transaction.';

-- New columns come last (CREATE OR REPLACE keeps grants and dependent views).
CREATE OR REPLACE VIEW cdc_kafka.status AS
	SELECT w.database, w.pid, w.state, w.detail, w.slot_name, w.publication, w.topic_prefix,
		w.confirmed_lsn, w.read_lsn,
		CASE WHEN w.confirmed_lsn IS NOT NULL AND NOT pg_catalog.pg_is_in_recovery()
			THEN pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_flush_lsn(),
				w.confirmed_lsn)::pg_catalog.int8
		END AS lag_bytes,
		w.lag_seconds, w.records_sent, w.bytes_sent, w.inflight_records, w.inflight_bytes,
		w.retries, w.last_ack_time, w.last_error, w.last_error_time, w.broker,
		w.blocked_table, w.blocked_key, w.blocked_lsn,
		w.snapshot_table, w.snapshot_rows, w.snapshot_rows_estimated, w.snapshot_wait,
		cdc_kafka.slot_failover(w.slot_name) AS slot_failover,
		d.delivery, d.transactional_id, d.kafka_transactions, d.kafka_committed_at,
		d.kafka_committed_lsn, d.kafka_committed_index
	FROM cdc_kafka.worker_status() w
		LEFT JOIN cdc_kafka.worker_delivery() d
		ON d.database OPERATOR(pg_catalog.=) w.database;

REVOKE ALL ON FUNCTION cdc_kafka.worker_delivery() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cdc_kafka.worker_delivery() TO pg_monitor, cdc_kafka_admin;
