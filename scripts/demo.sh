#!/usr/bin/env bash
#
# demo.sh - the main job, on a throwaway PostgreSQL: build and install
# cdc_kafka, start a server with it, create a table, insert ten rows,
# update one, delete one, and show the Debezium change events as they
# arrive (pg_recvlogical streaming from a cdc_kafka slot).  Everything is
# removed at the end.
#
# Usage: scripts/demo.sh [--keep]     (--keep leaves the server running)
#
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
PG_BIN=/usr/lib/postgresql/15/bin
PORT=${DEMO_PORT:-55499}
KEEP=0
[ "${1:-}" = "--keep" ] && KEEP=1

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The server runs as the invoking user, or as "postgres" when that is root.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

build() {
	say "installing prerequisites and building cdc_kafka"
	bash "$SRC/scripts/install-deps.sh"
	make -C "$SRC" -s PG_CONFIG="$PG_BIN/pg_config"
	as_root make -C "$SRC" -s PG_CONFIG="$PG_BIN/pg_config" install
}

start_server() {
	say "starting a throwaway PostgreSQL 15 on port $PORT in $DIR"
	as_owner "$PG_BIN/initdb" -D "$DIR/data" -A trust -U postgres >/dev/null
	cat >>"$DIR/data/postgresql.conf" <<-EOF
		port = $PORT
		unix_socket_directories = '$DIR'
		listen_addresses = ''
		wal_level = logical
		# PostgreSQL 15.19+ decodes only with output plugins listed here
		output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka'
	EOF
	as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w start >/dev/null
}

psql_demo() {
	as_owner "$PG_BIN/psql" -h "$DIR" -p "$PORT" -U postgres -d postgres -X -q -v ON_ERROR_STOP=1 "$@"
}

# Stream the slot to stdout, one record per line, as pg_recvlogical gets them.
start_stream() {
	say "creating the table and a cdc_kafka slot, and streaming it"
	psql_demo <<-'EOF'
		CREATE EXTENSION cdc_kafka;
		CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL,
			email text, balance numeric(10,2), updated timestamptz DEFAULT now());
		SELECT 'slot created' FROM pg_create_logical_replication_slot('demo', 'cdc_kafka');
	EOF
	as_owner "$PG_BIN/pg_recvlogical" -h "$DIR" -p "$PORT" -U postgres -d postgres \
		-S demo --start -f - -o output_format=record -o schemas=false -o topic_prefix=demo \
		-F 1 >"$DIR/stream.jsonl" 2>"$DIR/recvlogical.log" &
	STREAM_PID=$!
	tail -n +1 -f "$DIR/stream.jsonl" &
	TAIL_PID=$!
}

workload() {
	say "workload: 10 inserts, 1 update, 1 delete (events appear as they arrive)"
	for i in $(seq 1 10); do
		psql_demo -c "INSERT INTO customers (name, email, balance)
			VALUES ('customer $i', 'c$i@example.org', $i * 10.5)"
	done
	psql_demo -c "UPDATE customers SET balance = balance + 100 WHERE id = 3"
	psql_demo -c "DELETE FROM customers WHERE id = 7"
	# 10 creates + 1 update + 1 delete + 1 tombstone
	for _ in $(seq 1 100); do
		[ "$(wc -l <"$DIR/stream.jsonl")" -ge 13 ] && break
		sleep 0.1
	done
	sleep 0.5
}

cleanup() {
	kill "${TAIL_PID:-}" "${STREAM_PID:-}" 2>/dev/null || true
	if [ $KEEP -eq 1 ]; then
		say "server left running on port $PORT (socket in $DIR)"
		return
	fi
	as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$DIR"
}

main() {
	build
	DIR=$(mktemp -d /tmp/cdc_kafka-demo.XXXXXX)
	chmod 755 "$DIR"
	[ "$(id -u)" -ne 0 ] || chown postgres "$DIR"
	trap cleanup EXIT
	start_server
	start_stream
	workload
	say "$(wc -l <"$DIR/stream.jsonl") records: topic, key, value (Debezium envelope), headers"
}

main
