#!/usr/bin/env bash
# bench/snapshot_request.sh - time cdc_kafka.snapshot() of N captured tables
# (the request alone: checks and queueing, no worker) and count the locks
# the requesting transaction holds on return.
#
#   PG_BIN=... PGHOST=... PGPORT=... bash bench/snapshot_request.sh [N ...]
#
# Needs a server with max_locks_per_transaction high enough for the old
# behaviour (one AccessShareLock per table until commit).
set -euo pipefail
PSQL=("$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "${PGDATABASE:-postgres}")
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 2000 5000 10000)
max=$(printf '%s\n' "${SIZES[@]}" | sort -n | tail -1)
"${PSQL[@]}" <<SQL
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS cdc_kafka CASCADE;
DROP SCHEMA IF EXISTS bench CASCADE;
DROP PUBLICATION IF EXISTS cdc_kafka;
CREATE EXTENSION cdc_kafka;
CREATE SCHEMA bench;
SELECT format('CREATE TABLE bench.t%s (id int PRIMARY KEY, v text)', i)
	FROM generate_series(1, $max) i \gexec
CREATE PUBLICATION cdc_kafka FOR TABLES IN SCHEMA bench;
SQL
for n in "${SIZES[@]}"; do
	"${PSQL[@]}" -t -A <<SQL
BEGIN;
SELECT clock_timestamp() AS t0 \gset
SELECT count(*) AS requests FROM cdc_kafka.snapshot(VARIADIC ARRAY(
	SELECT format('bench.t%s', i)::regclass FROM generate_series(1, $n) i)) \gset
SELECT format('tables %s: %s requests in %s ms, locks held on return: %s', $n, :requests,
	round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) * 1000),
	(SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation'));
ROLLBACK;
SQL
done
