#!/usr/bin/env bash
# run.sh: capture the Debezium + Avro reference (../work/reference/) for cdc_kafka's Avro output.
#
# Runs Debezium 3.6.1 (embedded, pgoutput) with Apicurio's Kafka Connect AvroConverter
# (Confluent wire format: magic byte 0, 4-byte content id, no headers; subjects
# <topic>-key / <topic>-value) against a throwaway PostgreSQL 15 cluster and a fresh
# registry (../registry.sh), over the conformance harness's setup and workload
# (test/conformance: setup.sql, setup.d/, workload.sql, workload.d/, between its sentinels).
#
# Engines: "default" (profiles/default.properties) and "txmeta" (the same with
# provide.transaction.metadata=true and topic.prefix=conftx), both with
# schema.name.adjustment.mode=avro.
#
# Usage: run.sh [--out DIR] [--keep]     (default --out ../work/reference)
# Output: DIR/records-<engine>.jsonl, DIR/subjects.json, DIR/schemas/*.avsc
# Logs and the cluster's files: ../work/probe/ (git-ignored).
#
# As root, initdb and pg_ctl run as the OS user "postgres" (PostgreSQL refuses root).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CONF="$HERE/../../conformance"
PGBIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
WORK="$HERE/../work/probe"
OUT="$HERE/../work/reference"
KEEP=0
DBNAME=conformance
SENTINEL_PREFIX=cdc_kafka_conformance
REGISTRY_PORT=${REGISTRY_PORT:-28091}

while [[ $# -gt 0 ]]; do
    case $1 in
        --out) OUT=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) echo "usage: run.sh [--out DIR] [--keep]" >&2; exit 2 ;;
    esac
done

log() { printf '[probe %3ds] %s\n' "$SECONDS" "$*"; }
die() { printf 'probe: ERROR: %s\n' "$*" >&2; exit 1; }
is_root() { [[ $(id -u) -eq 0 ]]; }
as_server_user() { if is_root; then runuser -u postgres -- "$@"; else "$@"; fi; }

TMPDIR_CLUSTER="" PGDATA="" PORT="" DBUSER="" PROBE_PID=""

cleanup() {
    local status=$?
    if [[ -n $PROBE_PID ]] && kill -0 "$PROBE_PID" 2>/dev/null; then
        kill "$PROBE_PID" 2>/dev/null || true
        wait "$PROBE_PID" 2>/dev/null || true
    fi
    bash "$HERE/../registry.sh" stop --dir "$WORK/registry" 2>/dev/null || true
    if [[ -n $PGDATA && -f $PGDATA/postmaster.pid ]]; then
        as_server_user "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null 2>&1 || true
    fi
    if [[ -n $TMPDIR_CLUSTER && -d $TMPDIR_CLUSTER ]]; then
        cp "$TMPDIR_CLUSTER/server.log" "$WORK/server.log" 2>/dev/null || true
        [[ $KEEP -eq 1 ]] || rm -rf "$TMPDIR_CLUSTER"
    fi
    exit "$status"
}
trap cleanup EXIT

find_free_port() {
    local p
    for p in $(seq 54700 55000); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
    done
    die "no free TCP port in 54700-55000"
}

psql_as() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$DBUSER" "$@"; }

run_sql_files() {
    local name=$1 file
    shift
    for file in "$@"; do
        [[ -f $file ]] || continue
        psql_as -d "$DBNAME" -f "$file" >>"$WORK/$name.log" 2>&1 \
            || { tail -n 20 "$WORK/$name.log" >&2; die "$(basename "$file") failed"; }
    done
}

emit_sentinel() {
    psql_as -d "$DBNAME" -At -c "SELECT pg_logical_emit_message(false, '$SENTINEL_PREFIX', '$1')" >/dev/null
}

rm -rf "$WORK"
mkdir -p "$WORK" "$OUT"

log "building the probe (mvn package; log in $WORK/maven.log)"
mvn -B -q -f "$HERE/pom.xml" package >"$WORK/maven.log" 2>&1 || { tail -n 30 "$WORK/maven.log" >&2; die "Maven build failed"; }

log "starting a registry on port $REGISTRY_PORT"
REG_URL=$(bash "$HERE/../registry.sh" start --dir "$WORK/registry" --port "$REGISTRY_PORT")
REG_BASE=${REG_URL%/apis/*}

TMPDIR_CLUSTER="$(mktemp -d /tmp/cdc_kafka_avro_probe.XXXXXX)"
PGDATA="$TMPDIR_CLUSTER/data"
PORT="$(find_free_port)"
if is_root; then chown postgres: "$TMPDIR_CLUSTER"; DBUSER=postgres; else DBUSER="$(id -un)"; fi
log "PostgreSQL cluster in $TMPDIR_CLUSTER (port $PORT)"
as_server_user "$PGBIN/initdb" -D "$PGDATA" -U "$DBUSER" --auth=trust --no-locale -E UTF8 --no-sync \
    >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; die "initdb failed"; }
{
    echo "listen_addresses = '127.0.0.1'"
    echo "port = $PORT"
    echo "unix_socket_directories = '$TMPDIR_CLUSTER'"
    echo "wal_level = logical"
    echo "max_replication_slots = 20"
    echo "max_wal_senders = 20"
    echo "fsync = off"
    # PostgreSQL 15.19+ decodes only with the plugins listed here
    if (cd / && as_server_user "$PGBIN/postgres" --describe-config 2>/dev/null | cut -f1 | grep -qx output_plugin_libraries); then
        echo "output_plugin_libraries = 'pgoutput, test_decoding'"
    fi
} | as_server_user tee -a "$PGDATA/postgresql.conf" >/dev/null
as_server_user "$PGBIN/pg_ctl" -D "$PGDATA" -l "$TMPDIR_CLUSTER/server.log" -w -t 60 start >/dev/null \
    || { cat "$TMPDIR_CLUSTER/server.log" >&2; die "PostgreSQL did not start"; }
psql_as -d postgres -c "CREATE DATABASE $DBNAME" >/dev/null
run_sql_files setup "$CONF/setup.sql" "$CONF"/setup.d/*.sql

log "starting Debezium + AvroConverter (log in $WORK/debezium.log)"
java -Xmx768m -Dorg.slf4j.simpleLogger.logFile="$WORK/debezium.log" \
    -Dorg.slf4j.simpleLogger.showDateTime=true \
    -cp "$HERE/target/classes:$HERE/target/lib/*" cdckafka.registry.AvroProbe \
    --host 127.0.0.1 --port "$PORT" --user "$DBUSER" --dbname "$DBNAME" \
    --registry "$REG_BASE" --work "$WORK/offsets" --out "$OUT" --timeout 240 \
    --set txmeta:provide.transaction.metadata=true --set txmeta:topic.prefix=conftx \
    "default=$CONF/profiles/default.properties" "txmeta=$CONF/profiles/default.properties" \
    >"$WORK/probe.out" 2>&1 &
PROBE_PID=$!

deadline=$((SECONDS + 120))
until [[ $(psql_as -d "$DBNAME" -At -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE 'avro\_%' AND active") -ge 2 ]]; do
    kill -0 "$PROBE_PID" 2>/dev/null || { cat "$WORK/probe.out" >&2; die "the probe exited early"; }
    [[ $SECONDS -lt $deadline ]] || die "slots not active after 120 s"
    sleep 0.5
done
log "slots active; workload"
emit_sentinel start
run_sql_files workload "$CONF/workload.sql" "$CONF"/workload.d/*.sql
emit_sentinel end
status=0
wait "$PROBE_PID" || status=$?
PROBE_PID=""
cat "$WORK/probe.out"
[[ $status -eq 0 ]] || die "the probe failed (exit $status); see $WORK/debezium.log"
log "reference written to $OUT"
