#!/usr/bin/env bash
#
# lake.sh - the lake job's speed (issue 14): rows per second from Kafka into
# an UPSERT and an SCD2 Delta table, and the end-to-end lag (commit to
# visible in Delta) at a steady rate.
#
#   1. PostgreSQL with cdc_kafka and a Kafka broker (3 partitions), as the demo
#   2. N changes on one table: N/2 inserts, then N/2 updates of those rows, in
#      transactions of 1000; waits until all are in Kafka
#   3. the job with --available-now into an UPSERT table, then into an SCD2
#      table: N / the job's time (Spark's start, about 20 s here, included)
#   4. the job streaming (1 s trigger) while RATE changes/s are committed for
#      SECONDS: the lag of each batch's oldest change, commit to Delta commit
#
# Usage: bench/lake.sh [N]     (default 1000000; LAKE_BENCH_RATE=200,
#        LAKE_BENCH_SECONDS=60, LAKE_BENCH_MASTER=local[2], PG_BIN as the demo)
# Prints a summary for bench/RESULTS.md; logs in $DIR (kept with --keep).
#
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
LAKE=$SRC/lake
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
STEP_WHO=bench-lake
. "$SRC/scripts/step.sh"
N=${1:-1000000}
RATE=${LAKE_BENCH_RATE:-200}
SECS=${LAKE_BENCH_SECONDS:-60}
MASTER=${LAKE_BENCH_MASTER:-local[2]}
PG_PORT=$((30000 + RANDOM % 20000))
KAFKA_PORT=$((50000 + RANDOM % 9000))

as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql_b() { as_owner "$PG_BIN/psql" -h "$DIR" -p "$PG_PORT" -U postgres -d bench -X -q -v ON_ERROR_STOP=1 "$@"; }

eval "$(bash "$LAKE/install.sh" | tail -n 1)"
export PYTHONPATH=$LAKE/src LAKE_JARS
DIR=$(mktemp -d /tmp/cdc_kafka-bench-lake.XXXXXX)
chmod 755 "$DIR"
[ "$(id -u)" -ne 0 ] || chown postgres "$DIR"
cleanup() {
	[ -z "${JOB:-}" ] || kill -- "-$JOB" 2>/dev/null || true
	as_owner "$PG_BIN/pg_ctl" -D "$DIR/pg" -m fast -w stop >/dev/null 2>&1 || true
	bash "$SRC/test/kafka/kafka.sh" stop --dir "$DIR/kafka" >/dev/null 2>&1 || true
	[ "${KEEP:-0}" = 1 ] || rm -rf "$DIR"
}
trap cleanup EXIT

BOOTSTRAP=$(bash "$SRC/test/kafka/kafka.sh" start --dir "$DIR/kafka" --base-port "$KAFKA_PORT" \
	--partitions 3 2>"$DIR/kafka.log")
as_owner "$PG_BIN/initdb" -D "$DIR/pg" -A trust -U postgres >/dev/null
cat >>"$DIR/pg/postgresql.conf" <<EOF
port = $PG_PORT
unix_socket_directories = '$DIR'
listen_addresses = ''
wal_level = logical
shared_preload_libraries = 'cdc_kafka'
output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka'
cdc_kafka.bootstrap_servers = '$BOOTSTRAP'
cdc_kafka.databases = 'bench'
max_wal_size = 4GB
EOF
as_owner "$PG_BIN/pg_ctl" -D "$DIR/pg" -l "$DIR/pg.log" -w start >/dev/null
as_owner "$PG_BIN/createdb" -h "$DIR" -p "$PG_PORT" -U postgres bench
psql_b -c "CREATE EXTENSION cdc_kafka"
psql_b -c "CREATE TABLE item (id bigint PRIMARY KEY, v int, name text, amount numeric(10,2), at timestamptz)"

caught_up() {
	local want
	want=$(psql_b -Atc "SELECT pg_current_wal_insert_lsn()")
	for _ in $(seq 1 3000); do
		[ "$(psql_b -Atc "SELECT confirmed_lsn >= '$want' AND inflight_records = 0 FROM cdc_kafka.status")" = t ] && return 0
		sleep 0.2
	done
	return 1
}

half=$((N / 2))
STEP_LOG=bench-lake-load step "$N changes: $half inserts, $half updates, 1000 a transaction" \
	psql_b -c "DO \$\$ BEGIN
		FOR i IN 0 .. $half - 1 BY 1000 LOOP
			INSERT INTO item SELECT g, 0, md5(g::text), g % 100000 / 100.0, now()
				FROM generate_series(i, least(i + 999, $half - 1)) g;
			COMMIT;
		END LOOP;
		FOR i IN 0 .. $half - 1 BY 1000 LOOP
			UPDATE item SET v = v + 1, at = now() WHERE id BETWEEN i AND i + 999;
			COMMIT;
		END LOOP; END \$\$"
STEP_LOG=bench-lake-kafka step "waiting until cdc_kafka has them all in Kafka" caught_up

job() {
	as_owner env PYTHONPATH="$PYTHONPATH" LAKE_JARS="$LAKE_JARS" \
		"$LAKE_PYTHON" -m cdc_kafka_lake run --bootstrap-servers "$BOOTSTRAP" \
		--topics bench.public.item --master "$MASTER" "$@"
}

for mode in upsert scd2; do
	t0=$SECONDS
	job --lake "$DIR/lake-$mode" --default-mode "$mode" --available-now >"$DIR/$mode.log" 2>&1 ||
		{ tail -n 30 "$DIR/$mode.log"; exit 1; }
	total=$((SECONDS - t0))
	batches=$(grep -c 'cdc_kafka_lake: batch' "$DIR/$mode.log" || true)
	echo "bench-lake: $mode: $N changes in $total s (Spark's start included): $((N / (total > 0 ? total : 1))) rows/s; $batches batches"
done

# the steady rate: RATE rows a second (one transaction of RATE/10 rows every 0.1 s)
# in a session of its own (setsid), so that the whole job (runuser, Python,
# its JVM) stops with its process group
export -f job as_owner
export BOOTSTRAP MASTER PG_BIN LAKE_PYTHON
setsid bash -c 'job "$@"' job --lake "$DIR/lake-lag" --default-mode upsert --starting-offsets latest \
	--trigger-seconds 1 >"$DIR/lag.log" 2>&1 &
JOB=$!
for _ in $(seq 1 600); do grep -q 'cdc_kafka_lake: reading' "$DIR/lag.log" && break; sleep 0.2; done
sleep 10
per=$((RATE / 10))
psql_b -c "DO \$\$ BEGIN FOR i IN 1 .. $((SECS * 10)) LOOP
	UPDATE item SET v = v + 1, at = now() WHERE id BETWEEN (i * $per) % $half AND (i * $per) % $half + $per - 1;
	COMMIT; PERFORM pg_sleep(0.1); END LOOP; END \$\$"
sleep 15
kill -- "-$JOB" 2>/dev/null || true
JOB=
grep -o 'lag [0-9]* ms' "$DIR/lag.log" | awk '{print $2}' | sort -n >"$DIR/lags"
if [ -s "$DIR/lags" ]; then
	n=$(wc -l <"$DIR/lags")
	echo "bench-lake: lag at $RATE rows/s for $SECS s (UPSERT, 1 s trigger): $n batches," \
		"p50 $(sed -n "$(((n + 1) / 2))p" "$DIR/lags") ms, max $(tail -n 1 "$DIR/lags") ms"
else
	echo "bench-lake: lag: no batch logged (see $DIR/lag.log)"
fi
