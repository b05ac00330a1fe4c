#!/usr/bin/env bash
# run.sh: cdc_kafka conformance harness, end to end.
#
# Runs real Debezium 3.6.1 (embedded engine, pgoutput) and the cdc_kafka output plugin over the
# same workload on one throwaway PostgreSQL cluster (Debian's 15, or the installation PG_BIN
# names) and compares every Kafka record (topic, key, value, headers) field by field, once per
# profile (profiles/<name>.properties). A profile that sets database.dbname captures that
# database, made from databases/<name>/ (README.md).
#
# Usage:
#   run.sh [--keep] [--profiles a,b] [--timeout SECONDS]   Debezium vs cdc_kafka, all profiles
#   run.sh --self-check [--keep]     no cdc_kafka: a second Debezium engine running profile
#                                    "default" takes its place (must give 0 differences), then
#                                    the mutation check runs on the captured records
#   run.sh --compare-only A B        compare two JSON-lines files (A = Debezium's)
#   run.sh --mutation-check FILE     prove the comparator catches deliberate changes in FILE
#
# Exit status: 0 all equal, 1 differences or failure, 2 bad usage.
#
# Users: PostgreSQL refuses to run as root. When this script runs as root, only the server
# commands (initdb, pg_ctl) run as the OS user "postgres" (via runuser) on a temp dir given to
# that user; the Java build and clients stay with root (so root's Maven cache is used). The
# database user is the OS user that ran initdb ("postgres" then, else the caller), with trust
# authentication on 127.0.0.1 only.
#
# Outputs (kept after the run): work/ under this directory: debezium/<engine>.jsonl,
# ours/<profile>.jsonl and the SQL that produced it, logs/ (debezium.log, server.log, ...).
# The cluster itself lives in a temp dir, removed at the end unless --keep.

set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PGBIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
WORK="$HERE/work"
LOGS="$WORK/logs"
DBNAME=conformance
OUR_SLOT=cdk
SENTINEL_PREFIX=cdc_kafka_conformance
CLASSPATH_JAVA="$HERE/target/classes:$HERE/target/lib/*"

# Debezium properties that map to cdc_kafka plugin options ("a.b.c" -> 'a_b_c').
# publication.name is handled apart: it becomes publication_names.
PLUGIN_PROPERTIES=(
    topic.prefix decimal.handling.mode binary.handling.mode time.precision.mode
    interval.handling.mode hstore.handling.mode tombstones.on.delete skipped.operations
    provide.transaction.metadata unavailable.value.placeholder money.fraction.digits
    message.key.columns
)
PLUGIN_PROPERTIES+=(topic.delimiter topic.transaction topic.heartbeat.prefix)
PLUGIN_PROPERTIES+=(message.prefix.include.list message.prefix.exclude.list)
PLUGIN_PROPERTIES+=(schema.name.adjustment.mode field.name.adjustment.mode)
PLUGIN_PROPERTIES+=(column.propagate.source.type datatype.propagate.source.type)
PLUGIN_PROPERTIES+=(include.unknown.datatypes)
# Properties that only concern Debezium itself: not passed, not warned about.
DEBEZIUM_ONLY_PATTERN='^(slot\.|offset\.|publication\.autocreate\.mode$|snapshot\.|database\.|name$|connector\.class$|plugin\.name$|max\.|poll\.)'

MODE=full
KEEP=0
TIMEOUT=300
PROFILES_ARG=""
COMPARE_A=""
COMPARE_B=""
MUTATION_FILE=""

EXTRA_DBS=()    # databases other than $DBNAME that profiles capture (database.dbname)
TMPDIR_CLUSTER=""
PGDATA=""
PORT=""
DBUSER=""
CAPTURE_PID=""
STARTED_AT=$SECONDS

log() { printf '[conformance %3ds] %s\n' "$((SECONDS - STARTED_AT))" "$*"; }
die() { printf 'conformance: ERROR: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 2
}

parse_args() {
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --self-check) MODE=self-check ;;
            --compare-only)
                [[ $# -ge 3 ]] || usage
                MODE=compare-only; COMPARE_A="$2"; COMPARE_B="$3"; shift 2 ;;
            --mutation-check)
                [[ $# -ge 2 ]] || usage
                MODE=mutation-check; MUTATION_FILE="$2"; shift ;;
            --keep) KEEP=1 ;;
            --profiles) [[ $# -ge 2 ]] || usage; PROFILES_ARG="$2"; shift ;;
            --timeout) [[ $# -ge 2 ]] || usage; TIMEOUT="$2"; shift ;;
            -h|--help) usage ;;
            *) echo "conformance: unknown argument: $1" >&2; usage ;;
        esac
        shift
    done
}

is_root() { [[ $(id -u) -eq 0 ]]; }

# ---------------------------------------------------------------------------- prerequisites

# The project's own installer: guarded (scripts/apt.sh), it creates, starts
# and stops no PostgreSQL server, and it installs all of these.
install_packages() {
    log "missing: $*; installing the project's dependencies (scripts/install-deps.sh)"
    bash "$HERE/../../scripts/install-deps.sh"
}

ensure_prerequisites() {
    local need=()
    command -v javac >/dev/null || need+=(openjdk-17-jdk-headless)
    command -v mvn >/dev/null || need+=(maven)
    [[ -x $PGBIN/initdb ]] || need+=(postgresql-15)
    [[ -f /usr/share/postgresql/15/extension/hstore.control ]] || need+=(postgresql-contrib)
    if [[ ${#need[@]} -gt 0 ]]; then
        install_packages "${need[@]}"
    fi
    if is_root; then
        id postgres >/dev/null 2>&1 || die "running as root needs the OS user 'postgres' (created by the postgresql-15 package)"
    fi
}

# ---------------------------------------------------------------------------- Java part

build_java() {
    local stamp="$HERE/target/.build-stamp"
    if [[ -f $stamp && -d $HERE/target/lib ]] \
        && [[ -z $(find "$HERE/pom.xml" "$HERE/src" -newer "$stamp" -print -quit) ]]; then
        log "Java part up to date"
        return
    fi
    log "building the Java part (mvn package; log in $LOGS/maven.log)"
    if ! mvn -B -q -f "$HERE/pom.xml" package >"$LOGS/maven.log" 2>&1; then
        tail -n 40 "$LOGS/maven.log" >&2
        die "Maven build failed (full log: $LOGS/maven.log)"
    fi
    touch "$stamp"
}

java_run() {
    java -Xmx1g -cp "$CLASSPATH_JAVA" "$@"
}

# ---------------------------------------------------------------------------- PostgreSQL

as_server_user() {
    if is_root; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

find_free_port() {
    local p
    for p in $(seq 54330 54630); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return
        fi
    done
    die "no free TCP port in 54330-54630"
}

# True if this PostgreSQL build knows the server setting $1 (run from / : the server user may
# not be able to read the caller's working directory).
server_supports() {
    local settings
    settings="$(cd / && as_server_user "$PGBIN/postgres" --describe-config 2>/dev/null | cut -f1)" || return 1
    grep -qx "$1" <<<"$settings"
}

start_server() {
    TMPDIR_CLUSTER="$(mktemp -d /tmp/cdc_kafka_conformance.XXXXXX)"
    PGDATA="$TMPDIR_CLUSTER/data"
    PORT="$(find_free_port)"
    if is_root; then
        chown postgres: "$TMPDIR_CLUSTER"
        DBUSER=postgres
    else
        DBUSER="$(id -un)"
    fi
    log "creating a $("$PGBIN/postgres" --version | sed "s/^postgres (PostgreSQL) /PostgreSQL /") cluster in $TMPDIR_CLUSTER (port $PORT, user $DBUSER)"
    as_server_user "$PGBIN/initdb" -D "$PGDATA" -U "$DBUSER" --auth=trust --no-locale -E UTF8 \
        --no-sync >"$TMPDIR_CLUSTER/initdb.log" 2>&1 \
        || { cat "$TMPDIR_CLUSTER/initdb.log" >&2; die "initdb failed"; }
    {
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $PORT"
        echo "unix_socket_directories = '$TMPDIR_CLUSTER'"
        echo "wal_level = logical"
        echo "max_replication_slots = 60"
        echo "max_wal_senders = 60"
        echo "shared_preload_libraries = ''"
        echo "fsync = off"
        if server_supports output_plugin_libraries; then
            echo "output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka'"
        fi
    } | as_server_user tee -a "$PGDATA/postgresql.conf" >/dev/null
    as_server_user "$PGBIN/pg_ctl" -D "$PGDATA" -l "$TMPDIR_CLUSTER/server.log" -w -t 60 start >/dev/null \
        || { cat "$TMPDIR_CLUSTER/server.log" >&2; die "PostgreSQL did not start"; }
    psql_as -d postgres -c "CREATE DATABASE $DBNAME" >/dev/null
}

psql_as() {
    "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$DBUSER" "$@"
}

psql_db() {
    psql_as -d "$DBNAME" "$@"
}

# After a backend crash the server restarts: wait until it accepts connections again.
wait_server_ready() {
    local deadline=$((SECONDS + 60))
    until "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; do
        [[ $SECONDS -lt $deadline ]] || die "PostgreSQL did not come back within 60 s (see $LOGS/server.log)"
        sleep 0.5
    done
    psql_db -At -c "SELECT 1" >/dev/null 2>&1 || { sleep 1; psql_db -At -c "SELECT 1" >/dev/null; }
}

stop_server() {
    [[ -n $PGDATA && -f $PGDATA/postmaster.pid ]] || return 0
    as_server_user "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null 2>&1 || true
}

cleanup() {
    local status=$?
    if [[ -n $CAPTURE_PID ]] && kill -0 "$CAPTURE_PID" 2>/dev/null; then
        kill "$CAPTURE_PID" 2>/dev/null || true
        wait "$CAPTURE_PID" 2>/dev/null || true
    fi
    stop_server
    if [[ -n $TMPDIR_CLUSTER && -d $TMPDIR_CLUSTER ]]; then
        cp "$TMPDIR_CLUSTER/server.log" "$LOGS/server.log" 2>/dev/null || true
        if [[ $KEEP -eq 1 ]]; then
            log "kept the cluster in $TMPDIR_CLUSTER (start: pg_ctl -D $PGDATA start)"
        else
            rm -rf "$TMPDIR_CLUSTER"
        fi
    fi
    exit "$status"
}

# emit_sentinel KIND: in every database (a slot decodes only its own database's messages).
emit_sentinel() {
    local db
    for db in "$DBNAME" "${EXTRA_DBS[@]}"; do
        psql_as -d "$db" -At -c "SELECT pg_logical_emit_message(false, '$SENTINEL_PREFIX', '$1')" >/dev/null
    done
}

# ---------------------------------------------------------------------------- profiles

# Prints the profile names to run, checked against profiles/*.properties.
profile_names() {
    local names=()
    if [[ -n $PROFILES_ARG ]]; then
        IFS=, read -r -a names <<<"$PROFILES_ARG"
    else
        local f
        for f in "$HERE"/profiles/*.properties; do
            names+=("$(basename "$f" .properties)")
        done
    fi
    local n
    for n in "${names[@]}"; do
        [[ -f $HERE/profiles/$n.properties ]] || die "no profile file profiles/$n.properties"
        [[ $n =~ ^[a-z0-9_]+$ ]] || die "profile name must match [a-z0-9_]+: $n"
        echo "$n"
    done
}

# Prints "key<TAB>value" for each property of a .properties file (simple key=value lines).
read_properties() {
    local line key value
    while IFS= read -r line || [[ -n $line ]]; do
        line="${line#"${line%%[![:space:]]*}"}"
        [[ -z $line || $line == \#* || $line == \!* ]] && continue
        key="${line%%=*}"; value="${line#*=}"
        key="${key%"${key##*[![:space:]]}"}"
        value="${value#"${value%%[![:space:]]*}"}"
        value="${value%"${value##*[![:space:]]}"}"
        printf '%s\t%s\n' "$key" "$value"
    done <"$1"
}

sql_quote() { printf "'%s'" "${1//\'/\'\'}"; }

# The database a profile captures: its database.dbname, else the main one. Another database
# comes with databases/<name>/: create.sql (CREATE DATABASE, with its encoding), setup.sql and
# workload.sql, run like setup.sql and workload.sql.
profile_dbname() {
    local key value db=$DBNAME
    while IFS=$'\t' read -r key value; do
        [[ $key == database.dbname ]] && db="$value"
    done < <(read_properties "$HERE/profiles/$1.properties")
    echo "$db"
}

# Our slot in database $1 (slot names are per cluster).
our_slot() {
    if [[ $1 == "$DBNAME" ]]; then echo "$OUR_SLOT"; else echo "${OUR_SLOT}_$1"; fi
}

# Sets EXTRA_DBS from the profiles given, checking each has its databases/<name>/ files.
collect_databases() {
    local p db f
    EXTRA_DBS=()
    for p in "$@"; do
        db="$(profile_dbname "$p")"
        [[ $db == "$DBNAME" || " ${EXTRA_DBS[*]} " == *" $db "* ]] && continue
        [[ $db =~ ^[a-z0-9_]+$ ]] || die "profile $p: database.dbname must match [a-z0-9_]+: $db"
        for f in create setup workload; do
            [[ -f $HERE/databases/$db/$f.sql ]] || die "profile $p: no databases/$db/$f.sql"
        done
        EXTRA_DBS+=("$db")
    done
}

# The pg_logical_slot_peek_changes call that makes cdc_kafka emit a profile's records.
plugin_query() {
    local profile="$1" key value allowed
    local publication=dbz_publication prefix=conf
    local -a opts=()
    while IFS=$'\t' read -r key value; do
        if [[ $key == publication.name ]]; then
            publication="$value"; continue
        fi
        if [[ $key == topic.prefix ]]; then
            prefix="$value"; continue
        fi
        # transforms=unwrap, transforms.unwrap.a.b=v -> 'transforms','unwrap', 'unwrap_a_b','v'
        if [[ $key == transforms ]]; then
            opts+=("'transforms'" "$(sql_quote "$value")"); continue
        fi
        if [[ $key =~ ^transforms\.(unwrap|outbox|route)\.(.+)$ ]]; then
            [[ ${BASH_REMATCH[2]} == type ]] && continue
            local tprop="${BASH_REMATCH[1]}_${BASH_REMATCH[2]}"
            opts+=("$(sql_quote "${tprop//[.-]/_}")" "$(sql_quote "$value")"); continue
        fi
        # JsonConverter's schemas.enable (the engine's converter.* properties) -> 'schemas'
        if [[ $key == converter.schemas.enable ]]; then
            opts+=("'schemas'" "$(sql_quote "$value")"); continue
        fi
        # column.mask.hash.[v2.]<algorithm>.with.salt.<salt> (issue 12): SHA-256 -> SHA_256
        if [[ $key =~ ^column\.mask\.hash\. ]]; then
            opts+=("$(sql_quote "${key//[.-]/_}")" "$(sql_quote "$value")"); continue
        fi
        allowed=0
        local p
        for p in "${PLUGIN_PROPERTIES[@]}"; do
            [[ $p == "$key" ]] && allowed=1
        done
        # properties with a number in their name (issue 12)
        [[ $key =~ ^column\.mask\.with\.[0-9]+\.chars$ ]] && allowed=1
        [[ $key =~ ^column\.truncate\.to\.[0-9]+\.chars$ ]] && allowed=1
        if [[ $allowed -eq 1 ]]; then
            opts+=("$(sql_quote "${key//./_}")" "$(sql_quote "$value")")
        elif ! [[ $key =~ $DEBEZIUM_ONLY_PATTERN ]]; then
            log "WARNING: profile $profile: $key is not passed to cdc_kafka (not in the allow-list)" >&2
        fi
    done < <(read_properties "$HERE/profiles/$profile.properties")
    local args o
    args="'output_format', 'record', 'publication_names', $(sql_quote "$publication"), 'topic_prefix', $(sql_quote "$prefix")"
    for o in "${opts[@]}"; do
        args+=", $o"
    done
    echo "SELECT data FROM pg_logical_slot_peek_changes('$(our_slot "$(profile_dbname "$profile")")', NULL, NULL, $args)"
}

# ---------------------------------------------------------------------------- Debezium capture

start_capture() {
    local engines=() name
    for name in "$@"; do
        engines+=("$name")
    done
    log "starting Debezium engines: ${engines[*]%%=*} (log in $LOGS/debezium.log)"
    java -Xmx1g \
        -Dorg.slf4j.simpleLogger.logFile="$LOGS/debezium.log" \
        -Dorg.slf4j.simpleLogger.showDateTime=true \
        -Dorg.slf4j.simpleLogger.showThreadName=true \
        -cp "$CLASSPATH_JAVA" cdckafka.conformance.Capture \
        --host 127.0.0.1 --port "$PORT" --user "$DBUSER" --dbname "$DBNAME" \
        --work "$WORK/offsets" --out "$WORK/debezium" --timeout "$TIMEOUT" \
        "${engines[@]}" >"$LOGS/capture.out" 2>&1 &
    CAPTURE_PID=$!
}

capture_failed() {
    cat "$LOGS/capture.out" >&2 || true
    echo "--- last lines of $LOGS/debezium.log:" >&2
    grep -E 'ERROR|Exception|WARN' "$LOGS/debezium.log" 2>/dev/null | tail -n 15 >&2 || true
    die "$1"
}

wait_for_slots() {
    local want="$1" active deadline=$((SECONDS + 120))
    while :; do
        active="$(psql_db -At -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE 'dbz\_%' AND active")"
        [[ $active -ge $want ]] && break
        kill -0 "$CAPTURE_PID" 2>/dev/null || capture_failed "the Debezium capture exited before its slots were active"
        [[ $SECONDS -lt $deadline ]] || capture_failed "only $active of $want Debezium slots active after 120 s"
        sleep 0.5
    done
    log "all $want Debezium slots are active"
}

wait_for_capture() {
    local deadline=$((SECONDS + TIMEOUT + 30)) status=0
    while kill -0 "$CAPTURE_PID" 2>/dev/null; do
        [[ $SECONDS -lt $deadline ]] || capture_failed "Debezium did not deliver the end sentinel within ${TIMEOUT}s"
        sleep 0.5
    done
    wait "$CAPTURE_PID" || status=$?
    CAPTURE_PID=""
    [[ $status -eq 0 ]] || capture_failed "the Debezium capture failed (exit status $status)"
    sed 's/^/  /' "$LOGS/capture.out" | grep '^  capture ' || true
}

# ---------------------------------------------------------------------------- runs

prepare_work_dir() {
    rm -rf "$WORK"
    mkdir -p "$WORK/debezium" "$WORK/ours" "$WORK/offsets" "$LOGS"
}

# run_sql_files NAME DB FILE...: each file in turn in database DB (a glob that matched nothing
# is skipped), the output appended to logs/NAME.log. setup.d/ and workload.d/ hold one area's
# tables and changes each.
run_sql_files() {
    local name="$1" db="$2" file
    shift 2
    for file in "$@"; do
        [[ -f $file ]] || continue
        psql_as -d "$db" -f "$file" >>"$LOGS/$name.log" 2>&1 \
            || { cat "$LOGS/$name.log" >&2; die "$(basename "$file") failed"; }
    done
}

setup_databases() {
    local db
    : >"$LOGS/setup.log"
    run_sql_files setup "$DBNAME" "$HERE/setup.sql" "$HERE"/setup.d/*.sql
    for db in "${EXTRA_DBS[@]}"; do
        log "database $db (databases/$db/)"
        run_sql_files setup postgres "$HERE/databases/$db/create.sql"
        run_sql_files setup "$db" "$HERE/databases/$db/setup.sql"
    done
}

run_workload() {
    local db
    log "start sentinel, workload.sql and workload.d/${EXTRA_DBS[*]:+, databases/*/workload.sql}, end sentinel"
    : >"$LOGS/workload.log"
    emit_sentinel start
    run_sql_files workload "$DBNAME" "$HERE/workload.sql" "$HERE"/workload.d/*.sql
    for db in "${EXTRA_DBS[@]}"; do
        run_sql_files workload "$db" "$HERE/databases/$db/workload.sql"
    done
    emit_sentinel end
}

create_our_slot() {
    local db
    for db in "$DBNAME" "${EXTRA_DBS[@]}"; do
        if ! psql_as -d "$db" -At -c "SELECT pg_create_logical_replication_slot('$(our_slot "$db")', 'cdc_kafka')" \
            >/dev/null 2>"$LOGS/our-slot.err"; then
            cat "$LOGS/our-slot.err" >&2
            die "cannot create the cdc_kafka slot: is the plugin built and installed (make install)?"
        fi
    done
}

# Records are UTF-8 whatever the database encoding: client encoding SQL_ASCII takes the
# output's bytes as they are (another would "convert" them from the database encoding).
read_our_records() {
    local profile="$1" sql
    sql="$(plugin_query "$profile")"
    printf '%s;\n' "$sql" >"$WORK/ours/$profile.sql"
    PGCLIENTENCODING=SQL_ASCII psql_as -d "$(profile_dbname "$profile")" -At \
        -o "$WORK/ours/$profile.jsonl" -c "$sql" 2>"$LOGS/ours-$profile.err"
}

compare_files() {
    local profile="$1" a="$2" b="$3"
    java_run cdckafka.conformance.Compare --profile "$profile" "$a" "$b"
}

# Compares each profile, prints the totals; returns non-zero if any profile failed.
compare_profiles() {
    local passed=0 failed=0 profile
    for profile in "$@"; do
        if compare_files "$profile" "$WORK/debezium/$profile.jsonl" "$WORK/ours/$profile.jsonl"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
    done
    echo "conformance: $passed passed, $failed failed"
    [[ $failed -eq 0 ]]
}

run_full() {
    local profiles=() p engines=() failed=0
    mapfile -t profiles < <(profile_names)
    for p in "${profiles[@]}"; do
        engines+=("$p=$HERE/profiles/$p.properties")
        plugin_query "$p" >/dev/null   # warn early about unmapped properties
    done
    collect_databases "${profiles[@]}"
    start_server
    setup_databases
    start_capture "${engines[@]}"
    wait_for_slots "${#engines[@]}"
    create_our_slot
    run_workload
    wait_for_capture
    log "reading cdc_kafka's records (slot $OUR_SLOT)"
    local readable=()
    for p in "${profiles[@]}"; do
        if read_our_records "$p"; then
            readable+=("$p")
        else
            echo "profile $p: cdc_kafka failed:" >&2
            sed 's/^/  /' "$LOGS/ours-$p.err" >&2
            failed=1
            wait_server_ready
        fi
    done
    stop_server
    log "comparing"
    compare_profiles "${readable[@]}" || failed=1
    [[ $failed -eq 0 ]]
}

run_self_check() {
    local profiles=() p engines=()
    mapfile -t profiles < <(profile_names)
    [[ " ${profiles[*]} " == *" default "* ]] || profiles+=(default)
    for p in "${profiles[@]}"; do
        engines+=("$p=$HERE/profiles/$p.properties")
    done
    engines+=("selfcheck_copy=$HERE/profiles/default.properties")
    collect_databases "${profiles[@]}"
    start_server
    setup_databases
    start_capture "${engines[@]}"
    wait_for_slots "${#engines[@]}"
    run_workload
    wait_for_capture
    stop_server
    log "self-check: Debezium (profile default) vs a second Debezium engine on the same profile"
    local failed=0
    compare_files "self-check(default)" "$WORK/debezium/default.jsonl" "$WORK/debezium/selfcheck_copy.jsonl" || failed=1
    log "mutation check on Debezium's default-profile records"
    java_run cdckafka.conformance.MutationCheck "$WORK/debezium/default.jsonl" || failed=1
    [[ $failed -eq 0 ]]
}

main() {
    parse_args "$@"
    ensure_prerequisites
    case "$MODE" in
        compare-only|mutation-check) mkdir -p "$LOGS" ;;
        *) prepare_work_dir ;;
    esac
    build_java
    local status=0
    case "$MODE" in
        compare-only)
            compare_files "$(basename "$COMPARE_B" .jsonl)" "$COMPARE_A" "$COMPARE_B" || status=$? ;;
        mutation-check)
            java_run cdckafka.conformance.MutationCheck "$MUTATION_FILE" || status=$? ;;
        self-check)
            trap cleanup EXIT
            run_self_check || status=1 ;;
        full)
            trap cleanup EXIT
            run_full || status=1 ;;
    esac
    if [[ $status -eq 0 ]]; then
        log "PASS ($MODE) in $((SECONDS - STARTED_AT)) s"
    else
        log "FAIL ($MODE) in $((SECONDS - STARTED_AT)) s"
    fi
    return "$status"
}

main "$@"
