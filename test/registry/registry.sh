#!/usr/bin/env bash
#
# registry.sh - run a real schema registry (Apicurio Registry, in-memory
# storage) with its Confluent-compatible API, for cdc_kafka's Avro tests.
#
# The registry is built from Maven Central jars (io.apicurio:apicurio-registry-app,
# see pom.xml and README.md) and cached in $REGISTRY_LIB_DIR.  Everything a
# registry writes (log, pid file, tmp) goes under one directory.
#
#   registry.sh setup                          install java/maven/curl if missing, build the registry
#   registry.sh start --dir DIR [--port P]     start one (or restart a stopped one, on its old
#                                              port by default); prints the Confluent-compatible URL
#   registry.sh stop --dir DIR [--kill]        SIGTERM (or SIGKILL) it; nothing to do is fine
#   registry.sh status --dir DIR               running or not (exit 3 when stopped)
#   registry.sh url --dir DIR [--core]         the ccompat URL, or with --core Apicurio's own API
#
# Storage is in memory: a restarted registry has no schemas, and ids start again at 1.
# Progress goes to stderr; stdout carries only the answer (URL, lib dir).
#
# Environment: APICURIO_VERSION (2.1.5.Final), QUARKUS_VERSION (2.2.3.Final),
# REGISTRY_LIB_DIR (test/registry/lib/$APICURIO_VERSION), REGISTRY_PORT (28081),
# REGISTRY_HEAP_OPTS (-Xms64m -Xmx384m), REGISTRY_JVM_OPTS (extra),
# REGISTRY_START_TIMEOUT (60 s), REGISTRY_STOP_TIMEOUT (20 s).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
APICURIO_VERSION=${APICURIO_VERSION:-2.1.5.Final}
QUARKUS_VERSION=${QUARKUS_VERSION:-2.2.3.Final}
REGISTRY_LIB_DIR=${REGISTRY_LIB_DIR:-$HERE/lib/$APICURIO_VERSION}
REGISTRY_HEAP_OPTS=${REGISTRY_HEAP_OPTS:--Xms64m -Xmx384m}
REGISTRY_JVM_OPTS=${REGISTRY_JVM_OPTS:-}
REGISTRY_START_TIMEOUT=${REGISTRY_START_TIMEOUT:-60}
REGISTRY_STOP_TIMEOUT=${REGISTRY_STOP_TIMEOUT:-20}
RUNNER=apicurio-registry-runner-1-runner.jar
CCOMPAT_PATH=/apis/ccompat/v6
CORE_PATH=/apis/registry/v2

log() { echo "registry.sh: $*" >&2; }
die() { echo "registry.sh: error: $*" >&2; exit 1; }

# ---------------------------------------------------------------- prerequisites

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root (or sudo) to run: $*"
    fi
}

APT_UPDATED=
apt_install() {
    log "installing $* with apt-get"
    if [ -z "$APT_UPDATED" ]; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        APT_UPDATED=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "$@" >&2 ||
        die "apt-get install $* failed"
}

java_ok() {
    local v
    command -v java >/dev/null 2>&1 || return 1
    v=$(java -version 2>&1 | sed -nE '1s/.*version "([0-9]+).*/\1/p')
    [ -n "$v" ] && [ "$v" -ge 17 ]
}

# ensure_tools [maven]: java 17+ and curl always, maven on request.
ensure_tools() {
    local pkgs=()
    java_ok || pkgs+=(openjdk-17-jre-headless)
    command -v curl >/dev/null 2>&1 || pkgs+=(curl)
    if [ "${1:-}" = maven ] && ! command -v mvn >/dev/null 2>&1; then
        pkgs+=(maven)
    fi
    [ ${#pkgs[@]} -eq 0 ] || apt_install "${pkgs[@]}"
    java_ok || die "java 17 or newer is needed (found: $(java -version 2>&1 | head -1))"
}

# ---------------------------------------------------------------- build

jar_stamp() { echo "$APICURIO_VERSION $QUARKUS_VERSION $(sha256sum <"$HERE/pom.xml" | cut -c1-16)"; }

jars_ready() {
    [ -f "$REGISTRY_LIB_DIR/.complete" ] && [ "$(cat "$REGISTRY_LIB_DIR/.complete")" = "$(jar_stamp)" ]
}

# Build in a temporary directory (a copy of pom.xml, so target/ stays out of
# the tree), then rename the result into place: a half-finished build is never
# used and concurrent runs do not clash.
build_registry() {
    local parent tmp
    jars_ready && return 0
    ensure_tools maven
    parent=$(dirname "$REGISTRY_LIB_DIR")
    mkdir -p "$parent" 2>/dev/null && [ -w "$parent" ] ||
        die "cannot write $parent; run 'registry.sh setup' once as root, or set REGISTRY_LIB_DIR to a writable directory"
    tmp=$(mktemp -d "$REGISTRY_LIB_DIR.tmp.XXXXXX")
    cp "$HERE/pom.xml" "$tmp/pom.xml"
    log "building Apicurio Registry $APICURIO_VERSION (Quarkus $QUARKUS_VERSION) with Maven (cache: ~/.m2) ..."
    if ! mvn -q -B -f "$tmp/pom.xml" -Dapicurio.version="$APICURIO_VERSION" \
        -Dquarkus.version="$QUARKUS_VERSION" package >"$tmp.log" 2>&1; then
        cat "$tmp.log" >&2
        rm -rf "$tmp" "$tmp.log"
        die "maven could not build io.apicurio:apicurio-registry-app:$APICURIO_VERSION (output above)"
    fi
    rm -f "$tmp.log"
    [ -f "$tmp/target/$RUNNER" ] || die "$RUNNER missing after maven ran"
    mv "$tmp/target/$RUNNER" "$tmp/target/lib" "$tmp/"
    rm -rf "$tmp/target" "$tmp/pom.xml"
    jar_stamp >"$tmp/.complete"
    chmod -R a+rX "$tmp"
    rm -rf "$REGISTRY_LIB_DIR"
    mv -T "$tmp" "$REGISTRY_LIB_DIR" 2>/dev/null || rm -rf "$tmp"
    jars_ready || die "could not install the registry into $REGISTRY_LIB_DIR"
}

check_readable_by_postgres() {
    [ "$(id -u)" -eq 0 ] && id postgres >/dev/null 2>&1 || return 0
    command -v runuser >/dev/null 2>&1 || return 0
    runuser -u postgres -- test -r "$REGISTRY_LIB_DIR/$RUNNER" ||
        log "warning: user postgres cannot read $REGISTRY_LIB_DIR (check the modes of its parent directories)"
}

cmd_setup() {
    local t0=$SECONDS
    ensure_tools maven
    build_registry
    if [ "$(id -u)" -eq 0 ]; then
        chmod -R a+rX "$REGISTRY_LIB_DIR"
        [ "$(dirname "$REGISTRY_LIB_DIR")" != "$HERE/lib" ] || chmod a+rx "$HERE/lib"
        check_readable_by_postgres
    fi
    log "Apicurio Registry $APICURIO_VERSION ready in $((SECONDS - t0)) s"
    echo "$REGISTRY_LIB_DIR"
}

# ---------------------------------------------------------------- options

DIR='' PORT='' KILL='' CORE=''

parse_opts() {
    while [ $# -gt 0 ]; do
        case $1 in
            --dir | --port)
                [ $# -ge 2 ] || die "$1 needs a value"
                case $1 in
                    --dir) DIR=$2 ;;
                    --port) PORT=$2 ;;
                esac
                shift 2 ;;
            --kill) KILL=1; shift ;;
            --core) CORE=1; shift ;;
            *) die "unknown option '$1' (run 'registry.sh help')" ;;
        esac
    done
}

is_number() { [[ $1 =~ ^[0-9]+$ ]]; }
port_in_use() { (: </dev/tcp/127.0.0.1/"$1") 2>/dev/null; }

load_registry() {
    [ -n "$DIR" ] || die "--dir DIR is required"
    [ -f "$DIR/registry.env" ] || die "$DIR holds no registry started by registry.sh (no registry.env)"
    DIR=$(cd "$DIR" && pwd)
    # shellcheck source=/dev/null
    . "$DIR/registry.env"
}

base_url() { echo "http://127.0.0.1:$PORT"; }
ccompat_url() { echo "$(base_url)$CCOMPAT_PATH"; }

# ---------------------------------------------------------------- process

registry_pid() { if [ -f "$DIR/pid" ]; then cat "$DIR/pid"; fi; }

# Running (not a zombie) and really our registry, not a recycled pid.
registry_alive() {
    local pid state
    pid=$(registry_pid)
    [ -n "$pid" ] || return 1
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-Dcdc_kafka.registry.dir=$DIR "
}

# The registry answers once its storage is up: the ccompat subject list.
registry_answers() {
    curl -sf -m 2 -o /dev/null "$(ccompat_url)/subjects"
}

show_log_tail() {
    if [ -s "$DIR/registry.log" ]; then
        log "---- last lines of $DIR/registry.log ----"
        tail -n 15 "$DIR/registry.log" >&2
    fi
}

cmd_start() {
    local t0=$SECONDS deadline
    [ -n "$DIR" ] || die "--dir DIR is required"
    if [ -f "$DIR/registry.env" ]; then
        # a stopped registry starts again (empty: storage is in memory), on its old port
        # unless --port says otherwise
        local want_port=$PORT
        load_registry
        ! registry_alive || die "$DIR already holds a running registry (pid $(registry_pid))"
        PORT=${want_port:-$PORT}
    fi
    PORT=${PORT:-${REGISTRY_PORT:-28081}}
    is_number "$PORT" && [ "$PORT" -ge 1024 ] && [ "$PORT" -le 65535 ] ||
        die "--port must be a number between 1024 and 65535"
    ! port_in_use "$PORT" || die "port $PORT is in use; pick another --port"
    ensure_tools
    build_registry
    mkdir -p "$DIR/tmp"
    DIR=$(cd "$DIR" && pwd)
    cat >"$DIR/registry.env" <<EOT
PORT=$PORT
APICURIO_VERSION=$APICURIO_VERSION
REGISTRY_LIB_DIR=$REGISTRY_LIB_DIR
EOT
    # shellcheck disable=SC2086  # heap and JVM options are word lists
    (cd "$DIR" && exec setsid java $REGISTRY_HEAP_OPTS -XX:+UseSerialGC \
        -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData \
        -Djava.io.tmpdir="$DIR/tmp" -Dcdc_kafka.registry.dir="$DIR" \
        -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$PORT" \
        -Dquarkus.datasource.jdbc.initial-size=2 -Dquarkus.datasource.jdbc.min-size=2 \
        -Dquarkus.datasource.jdbc.max-size=20 \
        $REGISTRY_JVM_OPTS -jar "$REGISTRY_LIB_DIR/$RUNNER" \
        </dev/null >"$DIR/registry.log" 2>&1) &
    echo $! >"$DIR/pid"
    disown $!
    deadline=$((SECONDS + REGISTRY_START_TIMEOUT))
    until registry_answers; do
        if ! registry_alive; then
            show_log_tail
            rm -f "$DIR/pid"
            die "the registry exited during startup; see $DIR/registry.log"
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            show_log_tail
            signal_and_wait KILL
            die "the registry did not answer within $REGISTRY_START_TIMEOUT s; see $DIR/registry.log"
        fi
        sleep 0.3
    done
    log "Apicurio Registry $APICURIO_VERSION ready in $((SECONDS - t0)) s on port $PORT ($DIR)"
    ccompat_url
}

signal_and_wait() {
    local sig=$1 deadline
    if registry_alive; then kill "-$sig" "$(registry_pid)"; fi
    deadline=$((SECONDS + REGISTRY_STOP_TIMEOUT))
    while registry_alive; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            log "the registry did not stop within $REGISTRY_STOP_TIMEOUT s; sending SIGKILL"
            kill -KILL "$(registry_pid)" 2>/dev/null || true
            deadline=$((SECONDS + 10))
        fi
        sleep 0.2
    done
    rm -f "$DIR/pid"
}

cmd_stop() {
    [ -n "$DIR" ] || die "--dir DIR is required"
    if [ ! -f "$DIR/registry.env" ]; then
        log "nothing to stop in $DIR"
        return 0
    fi
    load_registry
    signal_and_wait "$([ -n "$KILL" ] && echo KILL || echo TERM)"
    log "stopped the registry in $DIR"
}

cmd_status() {
    load_registry
    if registry_alive; then
        echo "running pid $(registry_pid) $(ccompat_url)"
    else
        echo "stopped"
        exit 3
    fi
}

cmd_url() {
    load_registry
    if [ -n "$CORE" ]; then echo "$(base_url)$CORE_PATH"; else ccompat_url; fi
}

# ---------------------------------------------------------------- main

usage() { sed -n '3,/^[^#]/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

main() {
    local cmd=${1:-help}
    [ $# -eq 0 ] || shift
    parse_opts "$@"
    case $cmd in
        setup) cmd_setup ;;
        start) cmd_start ;;
        stop) cmd_stop ;;
        status) cmd_status ;;
        url) cmd_url ;;
        help | -h | --help) usage ;;
        *) usage >&2; die "unknown command '$cmd'" ;;
    esac
}

main "$@"
