#!/usr/bin/env bash
#
# smoke.sh - test an installed cdc_kafka package on a cluster of its own.
#
#   test/pkg/smoke.sh <PostgreSQL bindir> <package> <extension version>
#
# Run as the user the cluster belongs to (not root).  Makes a cluster in a
# temporary directory on a free port in 30000-60000 (listening on its own
# Unix socket only), with cdc_kafka preloaded and one database to stream,
# and checks, one "ok N - ..." line each:
#   - the library the postmaster loaded is the package's file, unchanged
#     (dpkg -S, dpkg --verify);
#   - the launcher and the database's worker run (no Kafka: the worker waits
#     for cdc_kafka.bootstrap_servers, and says so in cdc_kafka.status);
#   - CREATE EXTENSION gives the expected version;
#   - a change decoded with pg_logical_slot_get_changes is Debezium's record.
# The cluster is stopped and removed at the end, whatever happens.
#
set -euo pipefail

BIN=$1
PACKAGE=$2
VERSION=$3
PKGLIBDIR=$("$BIN/pg_config" --pkglibdir)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/cdc-pkg-smoke.XXXXXX")
N=0

stop_cluster() {
	if [ -f "$DIR/data/postmaster.pid" ]; then
		"$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null || true
	fi
	rm -rf "$DIR"
}
trap stop_cluster EXIT

ok() {
	N=$((N + 1))
	echo "ok $N - $1"
}

fail() {
	N=$((N + 1))
	echo "not ok $N - $1"
	[ -z "${2:-}" ] || echo "# $2"
	echo "# server log:"
	sed 's/^/#   /' "$DIR/log" 2>/dev/null | tail -n 30
	exit 1
}

psql_at() {
	local db=$1
	shift
	"$BIN/psql" -X -A -t -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$PORT" -d "$db" "$@"
}

# wait_for DB SQL EXPECTED: poll (up to 30 s) until the query prints EXPECTED
wait_for() {
	local got="" i
	for i in $(seq 1 60); do
		got=$(psql_at "$1" -c "$2" 2>&1) || true
		[ "$got" = "$3" ] && return 0
		sleep 0.5
	done
	echo "$got"
	return 1
}

free_port() {
	local p
	while :; do
		p=$((30000 + RANDOM % 30000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}

PORT=$(free_port)
"$BIN/initdb" -D "$DIR/data" -A trust -E UTF8 --locale=C >"$DIR/initdb.log" 2>&1 ||
	{ cat "$DIR/initdb.log"; fail "initdb"; }
cat >>"$DIR/data/postgresql.conf" <<EOF
port = $PORT
listen_addresses = ''
unix_socket_directories = '$DIR'
wal_level = logical
shared_preload_libraries = 'cdc_kafka'
cdc_kafka.databases = 'pkgtest'
EOF
# only in the builds that have it (README: PostgreSQL versions); no grep -q,
# which would end the pipe early and fail it (pipefail) on postgres's SIGPIPE
if "$BIN/postgres" --describe-config | grep '^output_plugin_libraries' >/dev/null; then
	echo "output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka'" >>"$DIR/data/postgresql.conf"
fi
"$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w start >/dev/null || fail "the server starts with cdc_kafka preloaded"
ok "the server starts with cdc_kafka preloaded (port $PORT)"

# The file the postmaster mapped: the package's, as the package shipped it.
POSTMASTER=$(head -n 1 "$DIR/data/postmaster.pid")
LOADED=$(awk '$6 ~ /\/cdc_kafka\.so$/ { print $6; exit }' "/proc/$POSTMASTER/maps")
[ "$LOADED" = "$PKGLIBDIR/cdc_kafka.so" ] ||
	fail "the server loaded $PKGLIBDIR/cdc_kafka.so" "it loaded '${LOADED:-nothing}'"
OWNER=$(dpkg -S "$LOADED" 2>&1) || true
[ "${OWNER%%:*}" = "$PACKAGE" ] || fail "$LOADED belongs to $PACKAGE" "dpkg -S: $OWNER"
CHANGED=$(dpkg --verify "$PACKAGE" 2>&1) || true
[ -z "$CHANGED" ] || fail "the files of $PACKAGE are as shipped" "$CHANGED"
ok "the server loaded $LOADED, of package $PACKAGE, unchanged"

psql_at postgres -c "CREATE DATABASE pkgtest" || fail "CREATE DATABASE pkgtest"
got=$(wait_for postgres "SELECT string_agg(backend_type, ', ' ORDER BY backend_type)
	FROM pg_stat_activity WHERE backend_type LIKE 'cdc_kafka%'" \
	"cdc_kafka launcher, cdc_kafka worker") ||
	fail "the launcher and the worker of pkgtest run" "pg_stat_activity: $got"
ok "the launcher and the worker of pkgtest run"

psql_at pkgtest -c "CREATE EXTENSION cdc_kafka" || fail "CREATE EXTENSION cdc_kafka"
got=$(psql_at pkgtest -c "SELECT extversion FROM pg_extension WHERE extname = 'cdc_kafka'")
[ "$got" = "$VERSION" ] || fail "CREATE EXTENSION cdc_kafka gives version $VERSION" "got '$got'"
ok "CREATE EXTENSION cdc_kafka gives version $VERSION"

want="waiting: waiting for cdc_kafka.bootstrap_servers to be set"
got=$(wait_for pkgtest "SELECT state || ': ' || detail FROM cdc_kafka.status" "$want") ||
	fail "the worker reports in cdc_kafka.status" "got: $got; want: $want"
ok "the worker reports in cdc_kafka.status: $want"

psql_at pkgtest -c "CREATE TABLE items (id int PRIMARY KEY, name text)" \
	-c "SELECT pg_create_logical_replication_slot('pkg_smoke', 'cdc_kafka')" >/dev/null ||
	fail "a table and a cdc_kafka slot"
psql_at pkgtest -c "INSERT INTO items VALUES (1, 'packaged')" || fail "INSERT"
got=$(psql_at pkgtest -c "SELECT data::json->'topic', data::json->'value'->'payload'->'op',
		data::json->'value'->'payload'->'after'
	FROM pg_logical_slot_get_changes('pkg_smoke', NULL, NULL, 'output_format', 'record')")
want='"pkgtest.public.items"|"c"|{"id":1,"name":"packaged"}'
[ "$got" = "$want" ] || fail "the insert is decoded to Debezium's record" "got: $got; want: $want"
psql_at pkgtest -c "SELECT pg_drop_replication_slot('pkg_smoke')" >/dev/null
ok "an insert is decoded by pg_logical_slot_get_changes: topic, op, after as Debezium's"

echo "# $N checks passed"
