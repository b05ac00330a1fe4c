#!/usr/bin/env bash
#
# demo.sh - the main job, end to end, on throwaway servers: a local Kafka
# (KRaft, from Maven Central's jars) and a local PostgreSQL 15 with
# cdc_kafka preloaded and streaming database "demo".  It creates a table,
# inserts ten rows, updates one, deletes one, and shows the Debezium
# records as they arrive in Kafka (kcat), then replays the topic from the
# beginning and from an offset.  Everything is removed at the end.
#
# Usage: scripts/demo.sh [--keep]     (--keep leaves both servers running)
#
# Environment: DEMO_PG_PORT (default 55499) and DEMO_KAFKA_PORT (39592, and
# the next port for the broker's controller) choose the ports; PG_BIN the
# PostgreSQL 15 to build for and run (default Debian's,
# /usr/lib/postgresql/15/bin).  It builds as test/run-all.sh does
# (scripts/build.sh, warnings as errors), so the test command that follows
# finds the build done.
#
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
STEP_WHO=demo
. "$SRC/scripts/step.sh"
PG_PORT=${DEMO_PG_PORT:-55499}
KAFKA_PORT=${DEMO_KAFKA_PORT:-39592}
TOPIC=demo.public.customers
KEEP=0
[ "${1:-}" = "--keep" ] && KEEP=1

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# PostgreSQL runs as the invoking user, or as "postgres" when that is root.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

psql_demo() {
	as_owner "$PG_BIN/psql" -h "$DIR" -p "$PG_PORT" -U postgres -d demo -X -q -v ON_ERROR_STOP=1 "$@"
}

build() {
	say "installing prerequisites, building and installing cdc_kafka"
	bash "$SRC/scripts/install-deps.sh"
	PG_BIN="$PG_BIN" bash "$SRC/scripts/build.sh"
	STEP_LOG=kafka-setup step "fetching the Kafka broker's jars (test/kafka/kafka.sh setup)" \
		bash "$SRC/test/kafka/kafka.sh" setup
}

start_kafka() {
	say "starting a local Kafka broker on 127.0.0.1:$KAFKA_PORT"
	BOOTSTRAP=$(bash "$SRC/test/kafka/kafka.sh" start --dir "$DIR/kafka" \
		--base-port "$KAFKA_PORT" --partitions 3)
}

start_postgres() {
	say "starting PostgreSQL 15 with cdc_kafka preloaded, streaming database \"demo\""
	as_owner "$PG_BIN/initdb" -D "$DIR/pg" -A trust -U postgres >/dev/null
	cat >>"$DIR/pg/postgresql.conf" <<-EOF
		port = $PG_PORT
		unix_socket_directories = '$DIR'
		listen_addresses = ''
		wal_level = logical
		shared_preload_libraries = 'cdc_kafka'
		# PostgreSQL 15.19+ decodes only with output plugins listed here
		output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka'
		cdc_kafka.bootstrap_servers = '$BOOTSTRAP'
		cdc_kafka.databases = 'demo'
		# JsonConverter schemas are on by default; off keeps this demo readable
		cdc_kafka.schemas = off
	EOF
	as_owner "$PG_BIN/pg_ctl" -D "$DIR/pg" -l "$DIR/pg.log" -w start >/dev/null
	as_owner "$PG_BIN/createdb" -h "$DIR" -p "$PG_PORT" -U postgres demo
	psql_demo -c "CREATE EXTENSION cdc_kafka"
	for _ in $(seq 1 100); do
		[ "$(psql_demo -Atc "SELECT state FROM cdc_kafka.status")" = "streaming" ] && break
		sleep 0.2
	done
	psql_demo -c "SELECT database, state, slot_name, publication, topic_prefix FROM cdc_kafka.status"
}

# Print every record of the topic as it arrives, one line of key and value each.
start_consumer() {
	# the topic appears with the first record (auto-created by the broker)
	for _ in $(seq 1 100); do
		kcat -L -b "$BOOTSTRAP" -t "$TOPIC" 2>/dev/null | grep -q "partition 0" && break
		sleep 0.2
	done
	kcat -C -b "$BOOTSTRAP" -t "$TOPIC" -o beginning -u \
		-f 'p%p@%o key %k\n       value %s\n' >"$DIR/live.txt" 2>/dev/null &
	KCAT_PID=$!
	tail -n +1 -f "$DIR/live.txt" &
	TAIL_PID=$!
}

# What a newcomer would take for corrupt data, said before it scrolls by.
explain() {
	cat <<-'EOF'
	   How to read the records below (Debezium's format, field for field):
	   "balance":"BBo="     numeric as Debezium's Decimal: base64 of the unscaled value, big-endian (0x041A = 1050: 10.50)
	   "before":null        creates have no old row, nor have updates: REPLICA IDENTITY DEFAULT logs the old key only if it changes
	   a delete's "before"  only the key is logged: other columns are null or their schema default ("", 1970-01-01 for now())
	   an empty value       the tombstone after a delete (a null value), so that log compaction may forget the key
	   Else: cdc_kafka.decimal_handling_mode = 'string' writes "10.50"; REPLICA IDENTITY FULL logs whole old rows.
	EOF
}

workload() {
	say "workload: create a table, insert ten rows, update one, delete one"
	explain
	psql_demo -c "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL,
		email text, balance numeric(10,2), updated timestamptz DEFAULT now())"
	for i in $(seq 1 10); do
		psql_demo -c "INSERT INTO customers (id, name, email, balance)
			VALUES ($i, 'customer $i', 'c$i@example.org', $i * 10.5)"
		[ "$i" -eq 1 ] && start_consumer
		sleep 0.3
	done
	psql_demo -c "UPDATE customers SET balance = balance + 100 WHERE id = 3"
	sleep 0.3
	psql_demo -c "DELETE FROM customers WHERE id = 7"
	# 10 creates + 1 update + 1 delete + 1 tombstone
	for _ in $(seq 1 150); do
		[ "$(grep -c '^p' "$DIR/live.txt")" -ge 13 ] && break
		sleep 0.2
	done
	sleep 0.5
	kill "$TAIL_PID" "$KCAT_PID" 2>/dev/null || true
}

replay() {
	say "replay from the beginning: $(kcat -C -b "$BOOTSTRAP" -t "$TOPIC" -o beginning -e -q | wc -l) records"
	kcat -C -b "$BOOTSTRAP" -t "$TOPIC" -o beginning -e -q -f 'p%p@%o %k op=%s\n' |
		sed -E -e 's/\{"before".*"op":"(.)".*/\1/' -e 's/op=$/(tombstone)/'
	say "replay partition 0 from offset 2"
	kcat -C -b "$BOOTSTRAP" -t "$TOPIC" -p 0 -o 2 -e -q -f 'p%p@%o %k\n'
	say "what the worker reports"
	psql_demo -c "SELECT state, confirmed_lsn, lag_bytes, records_sent, inflight_records FROM cdc_kafka.status"
	psql_demo -c "SELECT * FROM cdc_kafka.table_stats"
}

cleanup() {
	kill "${TAIL_PID:-}" "${KCAT_PID:-}" 2>/dev/null || true
	if [ $KEEP -eq 1 ]; then
		say "left running: PostgreSQL (socket $DIR, port $PG_PORT), Kafka $BOOTSTRAP"
		local owner=""
		[ "$(id -u)" -ne 0 ] || owner="runuser -u postgres -- "
		echo "psql:  $owner$PG_BIN/psql -h $DIR -p $PG_PORT -U postgres demo"
		echo "stop:  $owner$PG_BIN/pg_ctl -D $DIR/pg stop; bash $SRC/test/kafka/kafka.sh stop --dir $DIR/kafka; rm -rf $DIR"
		return
	fi
	as_owner "$PG_BIN/pg_ctl" -D "$DIR/pg" -m fast -w stop >/dev/null 2>&1 || true
	bash "$SRC/test/kafka/kafka.sh" stop --dir "$DIR/kafka" >/dev/null 2>&1 || true
	rm -rf "$DIR"
}

main() {
	build
	DIR=$(mktemp -d /tmp/cdc_kafka-demo.XXXXXX)
	chmod 755 "$DIR"
	[ "$(id -u)" -ne 0 ] || chown postgres "$DIR"
	trap cleanup EXIT
	start_kafka
	start_postgres
	workload
	replay
}

main
