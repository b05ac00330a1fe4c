#!/usr/bin/env bash
#
# demo.sh - the lake, end to end, on throwaway servers: a local Kafka, a local
# PostgreSQL with cdc_kafka streaming database "demo" with the gaming_oltp
# schema (lake/demo/gaming_oltp.sql) and its simulator, and the Spark job of
# lake/ keeping dim_user, dim_game, dim_session as SCD2 Delta tables and
# appending fact_game_event.  It simulates, runs the job, shows the current
# rows and a user's history; simulates more, runs the job again (it resumes
# from its checkpoint) and shows the history grown.  Everything is removed
# at the end (--keep leaves the servers and the lake).
#
# Usage: lake/demo.sh [--keep]
# Environment: DEMO_PG_PORT (default 55498), DEMO_KAFKA_PORT (39582), PG_BIN
# (as scripts/demo.sh).
#
set -euo pipefail

LAKE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$LAKE")
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
STEP_WHO=lake-demo
. "$SRC/scripts/step.sh"
PG_PORT=${DEMO_PG_PORT:-55498}
KAFKA_PORT=${DEMO_KAFKA_PORT:-39582}
KEEP=0
[ "${1:-}" = "--keep" ] && KEEP=1

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

as_owner() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

psql_demo() {
	as_owner "$PG_BIN/psql" -h "$DIR" -p "$PG_PORT" -U postgres -d demo -X -q -v ON_ERROR_STOP=1 "$@"
}

install() {
	say "installing prerequisites, cdc_kafka, Spark and Delta Lake"
	bash "$SRC/scripts/install-deps.sh"
	PG_BIN="$PG_BIN" bash "$SRC/scripts/build.sh"
	STEP_LOG=kafka-setup step "fetching the Kafka broker's jars (test/kafka/kafka.sh setup)" \
		bash "$SRC/test/kafka/kafka.sh" setup
	eval "$(bash "$LAKE/install.sh" | tee /dev/stderr | tail -n 1)"
	export LAKE_PYTHON LAKE_JARS PYTHONPATH="$LAKE/src"
}

start_servers() {
	say "starting Kafka (127.0.0.1:$KAFKA_PORT) and PostgreSQL with cdc_kafka (database demo)"
	BOOTSTRAP=$(bash "$SRC/test/kafka/kafka.sh" start --dir "$DIR/kafka" \
		--base-port "$KAFKA_PORT" --partitions 3 2>"$DIR/kafka.log")
	as_owner "$PG_BIN/initdb" -D "$DIR/pg" -A trust -U postgres >/dev/null
	cat >>"$DIR/pg/postgresql.conf" <<-EOF
		port = $PG_PORT
		unix_socket_directories = '$DIR'
		listen_addresses = ''
		wal_level = logical
		shared_preload_libraries = 'cdc_kafka'
		output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka'
		cdc_kafka.bootstrap_servers = '$BOOTSTRAP'
		cdc_kafka.databases = 'demo'
		cdc_kafka.skipped_operations = 'none'
	EOF
	as_owner "$PG_BIN/pg_ctl" -D "$DIR/pg" -l "$DIR/pg.log" -w start >/dev/null
	as_owner "$PG_BIN/createdb" -h "$DIR" -p "$PG_PORT" -U postgres demo
	psql_demo -c "CREATE EXTENSION cdc_kafka"
	for _ in $(seq 1 100); do
		[ "$(psql_demo -Atc "SELECT state FROM cdc_kafka.status")" = "streaming" ] && break
		sleep 0.2
	done
	psql_demo -f "$LAKE/demo/gaming_oltp.sql"
}

simulate() {
	say "simulator: $1 steps (new users, level-ups, sessions starting and ending, game events)"
	# the procedure commits each step: no SET clause on it, the path set first
	psql_demo -c "SET search_path = gaming_oltp" -c "CALL simulate($1)"
	psql_demo -c "SELECT (SELECT count(*) FROM gaming_oltp.dim_user) users,
		(SELECT count(*) FROM gaming_oltp.dim_session) sessions,
		(SELECT count(*) FROM gaming_oltp.fact_game_event) events"
}

run_job() {
	say "the Spark job: topics demo.gaming_oltp.* into Delta tables in $DIR/lake (until caught up)"
	local t0=$SECONDS
	as_owner env PYTHONPATH="$PYTHONPATH" LAKE_JARS="$LAKE_JARS" LAKE_LOG_LEVEL=WARNING \
		"$LAKE_PYTHON" -m cdc_kafka_lake run --bootstrap-servers "$BOOTSTRAP" \
		--topic-pattern 'demo\.gaming_oltp\..*' --lake "$DIR/lake" \
		--mode 'gaming_oltp.dim_*=scd2' --mode 'gaming_oltp.fact_*=append' \
		--wait-for-topics 30 --available-now --master 'local[2]' >"$DIR/job.log" 2>&1 ||
		{ tail -n 30 "$DIR/job.log"; exit 1; }
	echo "(the job took $((SECONDS - t0)) s, Spark's start included; log: $DIR/job.log)"
}

query() {
	as_owner env PYTHONPATH="$PYTHONPATH" LAKE_JARS="$LAKE_JARS" LAKE_LOG_LEVEL=WARNING \
		"$LAKE_PYTHON" -m cdc_kafka_lake query --lake "$DIR/lake" --master 'local[2]' "$@" 2>>"$DIR/query.log"
}

show() {
	say "the lake: current users, one user's history, sessions, facts"
	local u
	u=$(psql_demo -Atc "SELECT user_id FROM gaming_oltp.dim_user ORDER BY level DESC, user_id LIMIT 1")
	query \
		"SELECT user_id, username, country, level, balance, valid_from FROM dim_user WHERE is_current ORDER BY user_id LIMIT 8" \
		"SELECT user_id, level, country, balance, valid_from, valid_to, is_current, __op FROM dim_user WHERE user_id = $u ORDER BY valid_from, __lsn" \
		"SELECT status, count(*) AS versions, count_if(is_current) AS current FROM dim_session GROUP BY status ORDER BY status" \
		"SELECT event_type, count(*) AS events, sum(amount) AS amount FROM fact_game_event GROUP BY event_type ORDER BY event_type"
	echo "the same user in PostgreSQL now:"
	psql_demo -c "SELECT user_id, level, country, balance FROM gaming_oltp.dim_user WHERE user_id = $u"
}

cleanup() {
	if [ $KEEP -eq 1 ]; then
		say "left running: PostgreSQL (socket $DIR, port $PG_PORT), Kafka $BOOTSTRAP, the lake in $DIR/lake"
		echo "stop: $PG_BIN/pg_ctl -D $DIR/pg stop; bash $SRC/test/kafka/kafka.sh stop --dir $DIR/kafka; rm -rf $DIR"
		return
	fi
	as_owner "$PG_BIN/pg_ctl" -D "$DIR/pg" -m fast -w stop >/dev/null 2>&1 || true
	bash "$SRC/test/kafka/kafka.sh" stop --dir "$DIR/kafka" >/dev/null 2>&1 || true
	rm -rf "$DIR"
}

main() {
	install
	DIR=$(mktemp -d /tmp/cdc_kafka-lake-demo.XXXXXX)
	chmod 755 "$DIR"
	[ "$(id -u)" -ne 0 ] || chown postgres "$DIR"
	trap cleanup EXIT
	start_servers
	simulate 300
	run_job
	show
	simulate 200
	run_job
	show
}

main
