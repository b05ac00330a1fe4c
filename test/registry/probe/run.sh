#!/usr/bin/env bash
# run.sh: capture the Debezium + Avro reference (../work/reference/) for cdc_kafka's Avro output.
#
# Runs Debezium 3.6.1 (embedded, pgoutput) with Apicurio's Kafka Connect AvroConverter
# (Confluent wire format: magic byte 0, 4-byte content id, no headers; subjects
# <topic>-key / <topic>-value) against a throwaway PostgreSQL 15 cluster and a fresh
# registry (../registry.sh), over the conformance harness's setup and workload
# (test/conformance: setup.sql, setup.d/, workload.sql, workload.d/, between its sentinels).
#
# Engines: "default" (profiles/default.properties), "txmeta" (the same with
# provide.transaction.metadata=true and topic.prefix=conftx) and "fieldavro" (the same
# with field.name.adjustment.mode=avro and topic.prefix=conffa), all with
# schema.name.adjustment.mode=avro.
#
# Usage: run.sh [--out DIR] [--keep]     (default --out ../work/reference)
# Output: DIR/records-<engine>.jsonl, DIR/subjects.json, DIR/schemas/*.avsc; and
# cdc_kafka's Avro records of the same workload through its own slot (format avro,
# the same registry: no subject Debezium registered may get a new version),
# DIR/ours-default.jsonl (options as engine fieldavro's), both sides read back with the
# AvroConverter as a consumer would (AvroRead) into DIR/read-debezium.jsonl and DIR/read-ours.jsonl
# for the conformance Compare (check-avro.sh).
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
    # (grep reads it all: with -q it would quit early, and pipefail count postgres's SIGPIPE)
    if (cd / && as_server_user "$PGBIN/postgres" --describe-config 2>/dev/null | cut -f1 | grep -x output_plugin_libraries >/dev/null); then
        echo "output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka'"
    fi
} | as_server_user tee -a "$PGDATA/postgresql.conf" >/dev/null
as_server_user "$PGBIN/pg_ctl" -D "$PGDATA" -l "$TMPDIR_CLUSTER/server.log" -w -t 60 start >/dev/null \
    || { cat "$TMPDIR_CLUSTER/server.log" >&2; die "PostgreSQL did not start"; }
psql_as -d postgres -c "CREATE DATABASE $DBNAME" >/dev/null
run_sql_files setup "$CONF/setup.sql" "$CONF"/setup.d/*.sql

# cdc_kafka's slot, next to Debezium's: its Avro records of the same workload (see below)
psql_as -d "$DBNAME" -At -c "SELECT 'ok' FROM pg_create_logical_replication_slot('avro_cdc_kafka', 'cdc_kafka')" \
    >/dev/null || die "cannot create the cdc_kafka slot: is the plugin built and installed (make install)?"

log "starting Debezium + AvroConverter (log in $WORK/debezium.log)"
java -Xmx768m -Dorg.slf4j.simpleLogger.logFile="$WORK/debezium.log" \
    -Dorg.slf4j.simpleLogger.showDateTime=true \
    -cp "$HERE/target/classes:$HERE/target/lib/*" cdckafka.registry.AvroProbe \
    --host 127.0.0.1 --port "$PORT" --user "$DBUSER" --dbname "$DBNAME" \
    --registry "$REG_BASE" --work "$WORK/offsets" --out "$OUT" --timeout 240 \
    --set txmeta:provide.transaction.metadata=true --set txmeta:topic.prefix=conftx \
    --set fieldavro:field.name.adjustment.mode=avro --set fieldavro:topic.prefix=conffa \
    "default=$CONF/profiles/default.properties" "txmeta=$CONF/profiles/default.properties" \
    "fieldavro=$CONF/profiles/default.properties" \
    >"$WORK/probe.out" 2>&1 &
PROBE_PID=$!

deadline=$((SECONDS + 120))
until [[ $(psql_as -d "$DBNAME" -At -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE 'dbz\_avro\_%' AND active") -ge 3 ]]; do
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

# ---- cdc_kafka's own Avro records, read back as a Debezium consumer reads them

# Versions per subject, as "subject<TAB>count" lines.
subject_versions() {
    python3 - "$REG_URL" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1]
for s in json.load(urllib.request.urlopen(url + "/subjects")):
    v = json.load(urllib.request.urlopen(url + "/subjects/" + urllib.parse.quote(s, safe="") + "/versions"))
    print(f"{s}\t{len(v)}")
PY
}

subject_versions | sort >"$WORK/subjects-before.tsv"
log "cdc_kafka's records of the same workload in Avro (format avro, same registry)"
PGCLIENTENCODING=SQL_ASCII psql_as -d "$DBNAME" -At -o "$OUT/ours-default.jsonl" -c \
    "SELECT data FROM pg_logical_slot_peek_changes('avro_cdc_kafka', NULL, NULL,
        'output_format', 'record', 'publication_names', 'dbz_publication_finite', 'topic_prefix', 'conffa',
        'format', 'avro', 'schema_registry_url', '$REG_URL', 'schema_name_adjustment_mode', 'avro',
        'field_name_adjustment_mode', 'avro')" \
    2>"$WORK/ours.err" || { cat "$WORK/ours.err" >&2; die "cdc_kafka could not write its Avro records"; }
subject_versions | sort >"$WORK/subjects-after.tsv"
# a subject Debezium registered must have no new version: cdc_kafka's schemas are the same
changed=$(join -t $'\t' "$WORK/subjects-before.tsv" "$WORK/subjects-after.tsv" | awk -F'\t' '$2 != $3')
if [[ -n $changed ]]; then
    # show how each new version differs from Debezium's last one
    python3 - "$REG_URL" $(cut -f1 <<<"$changed") <<'PY' >&2
import difflib, json, sys, urllib.parse, urllib.request
url = sys.argv[1]
for subject in sys.argv[2:]:
    base = url + "/subjects/" + urllib.parse.quote(subject, safe="") + "/versions/"
    versions = json.load(urllib.request.urlopen(base))
    texts = [json.dumps(json.loads(json.load(urllib.request.urlopen(base + str(v)))["schema"]), indent=1).splitlines()
             for v in versions[-2:]]
    print(f"--- {subject}: Debezium's version {versions[-2]} against cdc_kafka's {versions[-1]}")
    print("\n".join(difflib.unified_diff(texts[0], texts[1], lineterm="", n=2)))
PY
    die "cdc_kafka registered schemas Debezium's converter did not (subject, versions before, after): $changed"
fi
log "cdc_kafka registered no new version of the $(wc -l <"$WORK/subjects-before.tsv") subjects Debezium registered"

read_avro() {
    java -Xmx768m -Dorg.slf4j.simpleLogger.logFile="$WORK/avro-read.log" \
        -cp "$HERE/target/classes:$HERE/target/lib/*" cdckafka.registry.AvroRead \
        --registry "$REG_BASE" "$@"
}
# Engine fieldavro (the default profile with field.name.adjustment.mode=avro, topic prefix
# conffa) against cdc_kafka with the same: every table has an Avro form.  A topic on which
# Debezium's own converter failed would be left out of both sides (and said).
read_avro --input probe --in "$OUT/records-fieldavro.jsonl" --out "$OUT/read-debezium.jsonl" \
    --exclude-error-topics "$OUT/records-fieldavro.jsonl" || die "Debezium's Avro records could not be read back"
read_avro --input ours --in "$OUT/ours-default.jsonl" --out "$OUT/read-ours.jsonl" \
    --exclude-error-topics "$OUT/records-fieldavro.jsonl" || die "the AvroConverter could not read cdc_kafka's Avro records"

