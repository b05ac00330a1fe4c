#!/usr/bin/env bash
#
# kafka.sh - run a real Apache Kafka (KRaft, no ZooKeeper) for cdc_kafka tests.
#
# The broker jars come from Maven Central (org.apache.kafka:kafka_2.13, see
# pom.xml) and are cached in $KAFKA_LIB_DIR.  A cluster is either one combined
# broker+controller node or three of them, all on 127.0.0.1, with everything
# (configs, data, logs, pid files) under one directory that a test can rm -rf.
#
#   kafka.sh setup                      install java/maven/kcat if missing, fetch jars
#   kafka.sh start --dir DIR [--nodes 1|3] [--base-port P] [--partitions N]
#                  [--set key=value]... start a cluster; prints bootstrap servers
#   kafka.sh stop --dir DIR [--node N] [--kill]   SIGTERM (or SIGKILL) all or one node
#   kafka.sh startnode --dir DIR [--node N]       restart stopped node(s)
#   kafka.sh status --dir DIR           per-node state; exit 3 if a node is down
#   kafka.sh bootstrap --dir DIR        print the bootstrap servers string
#   kafka.sh topics --dir DIR -- ARGS   run kafka-topics (TopicCommand) against DIR
#   kafka.sh smoke (--dir DIR | --bootstrap B)    librdkafka idempotent/transactional check
#
# Node N listens on 127.0.0.1:P+10*(N-1) (clients) and that port + 1 (controller).
# Progress goes to stderr; stdout carries only the answer (bootstrap string, lib dir).
#
# Environment: KAFKA_VERSION (4.4.0), KAFKA_LIB_DIR (test/kafka/lib/$KAFKA_VERSION),
# KAFKA_BASE_PORT (29092), KAFKA_HEAP_OPTS (-Xms128m -Xmx512m), KAFKA_JVM_OPTS (extra),
# KAFKA_START_TIMEOUT (60 s), KAFKA_STOP_TIMEOUT (30 s).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KAFKA_VERSION=${KAFKA_VERSION:-4.4.0}
KAFKA_LIB_DIR=${KAFKA_LIB_DIR:-$HERE/lib/$KAFKA_VERSION}
KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms128m -Xmx512m}
KAFKA_JVM_OPTS=${KAFKA_JVM_OPTS:-}
KAFKA_START_TIMEOUT=${KAFKA_START_TIMEOUT:-60}
KAFKA_STOP_TIMEOUT=${KAFKA_STOP_TIMEOUT:-30}
PORT_STEP=10

log() { echo "kafka.sh: $*" >&2; }
die() { echo "kafka.sh: error: $*" >&2; exit 1; }

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

# ensure_tools [maven] [build]: java 17+ and kcat always; maven and a C toolchain
# with librdkafka-dev on request.
ensure_tools() {
    local want=" $* " pkgs=()
    java_ok || pkgs+=(openjdk-17-jre-headless)
    command -v kcat >/dev/null 2>&1 || pkgs+=(kcat)
    if [[ $want == *" maven "* ]] && ! command -v mvn >/dev/null 2>&1; then
        pkgs+=(maven)
    fi
    if [[ $want == *" build "* ]]; then
        command -v gcc >/dev/null 2>&1 || pkgs+=(gcc libc6-dev)
        [ -f /usr/include/librdkafka/rdkafka.h ] || pkgs+=(librdkafka-dev)
    fi
    [ ${#pkgs[@]} -eq 0 ] || apt_install "${pkgs[@]}"
    java_ok || die "java 17 or newer is needed (found: $(java -version 2>&1 | head -1))"
}

# ---------------------------------------------------------------- jars

jar_stamp() { echo "$KAFKA_VERSION $(sha256sum <"$HERE/pom.xml" | cut -c1-16)"; }

jars_ready() {
    [ -f "$KAFKA_LIB_DIR/.complete" ] && [ "$(cat "$KAFKA_LIB_DIR/.complete")" = "$(jar_stamp)" ]
}

# Resolve the jars into a temporary directory, then rename it into place, so a
# half-finished download is never used and concurrent runs do not clash.
resolve_jars() {
    local parent tmp
    jars_ready && return 0
    ensure_tools maven
    parent=$(dirname "$KAFKA_LIB_DIR")
    mkdir -p "$parent" 2>/dev/null && [ -w "$parent" ] ||
        die "cannot write $parent; run 'kafka.sh setup' once as root, or set KAFKA_LIB_DIR to a writable directory"
    tmp=$(mktemp -d "$KAFKA_LIB_DIR.tmp.XXXXXX")
    log "fetching Apache Kafka $KAFKA_VERSION jars with Maven (cache: ~/.m2) ..."
    if ! mvn -q -B -f "$HERE/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
        dependency:copy-dependencies -DincludeScope=runtime \
        -DoutputDirectory="$tmp" >"$tmp.log" 2>&1; then
        cat "$tmp.log" >&2
        rm -rf "$tmp" "$tmp.log"
        die "maven could not fetch org.apache.kafka:kafka_2.13:$KAFKA_VERSION (output above)"
    fi
    rm -f "$tmp.log"
    [ -f "$tmp/kafka_2.13-$KAFKA_VERSION.jar" ] || die "kafka_2.13-$KAFKA_VERSION.jar missing after maven ran"
    jar_stamp >"$tmp/.complete"
    chmod -R a+rX "$tmp"
    rm -rf "$KAFKA_LIB_DIR"
    mv -T "$tmp" "$KAFKA_LIB_DIR" 2>/dev/null || rm -rf "$tmp"
    jars_ready || die "could not install jars into $KAFKA_LIB_DIR"
}

# Warn when the postgres OS user (which runs the PostgreSQL tests) cannot read the jars.
check_readable_by_postgres() {
    [ "$(id -u)" -eq 0 ] && id postgres >/dev/null 2>&1 || return 0
    command -v runuser >/dev/null 2>&1 || return 0
    runuser -u postgres -- test -r "$KAFKA_LIB_DIR/kafka_2.13-$KAFKA_VERSION.jar" ||
        log "warning: user postgres cannot read $KAFKA_LIB_DIR (check the modes of its parent directories)"
}

cmd_setup() {
    local t0=$SECONDS
    ensure_tools maven
    resolve_jars
    if [ "$(id -u)" -eq 0 ]; then
        # PostgreSQL tests run as the postgres user: leave the jars readable for all
        chmod -R a+rX "$KAFKA_LIB_DIR"
        [ "$(dirname "$KAFKA_LIB_DIR")" != "$HERE/lib" ] || chmod a+rx "$HERE/lib"
        check_readable_by_postgres
    fi
    log "Kafka $KAFKA_VERSION jars ready in $((SECONDS - t0)) s"
    echo "$KAFKA_LIB_DIR"
}

# ---------------------------------------------------------------- options

DIR='' NODES='' BASE_PORT='' PARTITIONS='' NODE='' KILL='' BOOTSTRAP_OPT=''
EXTRA_CONF=() REST=()

parse_opts() {
    while [ $# -gt 0 ]; do
        case $1 in
            --dir | --nodes | --base-port | --partitions | --node | --set | --bootstrap)
                [ $# -ge 2 ] || die "$1 needs a value"
                case $1 in
                    --dir) DIR=$2 ;;
                    --nodes) NODES=$2 ;;
                    --base-port) BASE_PORT=$2 ;;
                    --partitions) PARTITIONS=$2 ;;
                    --node) NODE=$2 ;;
                    --set) EXTRA_CONF+=("$2") ;;
                    --bootstrap) BOOTSTRAP_OPT=$2 ;;
                esac
                shift 2 ;;
            --kill) KILL=1; shift ;;
            --) shift; REST=("$@"); break ;;
            *) die "unknown option '$1' (run 'kafka.sh help')" ;;
        esac
    done
}

is_number() { [[ $1 =~ ^[0-9]+$ ]]; }

# ---------------------------------------------------------------- cluster layout

broker_port() { echo $((BASE_PORT + PORT_STEP * ($1 - 1))); }
controller_port() { echo $(($(broker_port "$1") + 1)); }
node_dir() { echo "$DIR/node$1"; }

bootstrap_string() {
    local n s=
    for ((n = 1; n <= NODES; n++)); do s+="${s:+,}127.0.0.1:$(broker_port "$n")"; done
    echo "$s"
}

# Load DIR/cluster.env, written by 'start'.
load_cluster() {
    [ -n "$DIR" ] || die "--dir DIR is required"
    [ -f "$DIR/cluster.env" ] || die "$DIR holds no cluster started by kafka.sh (no cluster.env)"
    DIR=$(cd "$DIR" && pwd)
    # shellcheck source=/dev/null
    . "$DIR/cluster.env"
}

check_node_opt() {
    [ -z "$NODE" ] || { is_number "$NODE" && [ "$NODE" -ge 1 ] && [ "$NODE" -le "$NODES" ]; } ||
        die "--node must be between 1 and $NODES"
}

# Node list from --node N, or all nodes.
selected_nodes() {
    if [ -n "$NODE" ]; then echo "$NODE"; else seq 1 "$NODES"; fi
}

# A Kafka cluster id is 16 random bytes in URL-safe base64 without padding;
# Kafka never hands out ids starting with '-' (they look like options).
new_cluster_id() {
    local id
    while :; do
        id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
        [ "${id:0:1}" != "-" ] && break
    done
    echo "$id"
}

port_in_use() { (: </dev/tcp/127.0.0.1/"$1") 2>/dev/null; }

write_node_config() {
    local n=$1 nd rf=1 isr=1 voters='' i kv
    nd=$(node_dir "$n")
    if [ "$NODES" -gt 1 ]; then rf=3 isr=2; fi
    for ((i = 1; i <= NODES; i++)); do voters+="${voters:+,}$i@127.0.0.1:$(controller_port "$i")"; done
    mkdir -p "$nd/data" "$nd/tmp"
    cat >"$nd/server.properties" <<EOF
# Generated by test/kafka/kafka.sh: node $n of $NODES, combined broker + KRaft controller.
node.id=$n
process.roles=broker,controller
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$(broker_port "$n"),CONTROLLER://127.0.0.1:$(controller_port "$n")
advertised.listeners=PLAINTEXT://127.0.0.1:$(broker_port "$n")
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$nd/data

# topics the producer writes to are created on first use
auto.create.topics.enable=true
num.partitions=$PARTITIONS
default.replication.factor=$rf
min.insync.replicas=$isr
unclean.leader.election.enable=false

# internal topics (consumer offsets, transaction state, share groups)
offsets.topic.replication.factor=$rf
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$isr
transaction.state.log.num.partitions=10
share.coordinator.state.topic.replication.factor=$rf
share.coordinator.state.topic.min.isr=$isr
group.initial.rebalance.delay.ms=0

# a killed broker is fenced (and its partitions move) after 6 s instead of 9 s;
# a restarted broker can only re-register once its old session has expired
broker.heartbeat.interval.ms=1000
broker.session.timeout.ms=6000
EOF
    if [ ${#EXTRA_CONF[@]} -gt 0 ]; then
        echo "# from --set" >>"$nd/server.properties"
        for kv in "${EXTRA_CONF[@]}"; do echo "$kv" >>"$nd/server.properties"; done
    fi
}

format_node() {
    local nd
    nd=$(node_dir "$1")
    java -Xmx256m -XX:TieredStopAtLevel=1 -cp "$KAFKA_LIB_DIR/*" kafka.tools.StorageTool format \
        -t "$CLUSTER_ID" -c "$nd/server.properties" >"$nd/format.log" 2>&1 || {
        tail -n 5 "$nd/format.log" >&2
        die "formatting node $1 failed; see $nd/format.log"
    }
}

# ---------------------------------------------------------------- processes

node_pid() {
    local f
    f="$(node_dir "$1")/pid"
    if [ -f "$f" ]; then cat "$f"; fi
}

# Running (not a zombie) and really our broker, not a recycled pid.
node_alive() {
    local pid state
    pid=$(node_pid "$1")
    [ -n "$pid" ] || return 1
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$(node_dir "$1")/server.properties"
}

launch_node() {
    local n=$1 nd
    nd=$(node_dir "$n")
    if node_alive "$n"; then
        log "node $n is already running (pid $(node_pid "$n"))"
        return 0
    fi
    # shellcheck disable=SC2086  # heap and JVM options are word lists
    (cd "$nd" && exec setsid java $KAFKA_HEAP_OPTS \
        -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
        -XX:+ExplicitGCInvokesConcurrent -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData \
        -Djava.awt.headless=true -Djava.io.tmpdir="$nd/tmp" \
        -Dkafka.logs.dir="$nd" -Dlog4j2.configurationFile="$DIR/log4j2.properties" \
        $KAFKA_JVM_OPTS -cp "$KAFKA_LIB_DIR/*" kafka.Kafka "$nd/server.properties" \
        </dev/null >"$nd/stdout.log" 2>&1) &
    echo $! >"$nd/pid"
    disown $!
}

# Node ids listed as brokers in the metadata that BOOTSTRAP answers, one per line.
registered_brokers() {
    kcat -L -b "$1" -m 2 2>/dev/null | sed -nE 's/^ +broker ([0-9]+) at .*/\1/p' | sort -n || true
}

show_log_tail() {
    local nd f
    nd=$(node_dir "$1")
    for f in server.log stdout.log; do
        if [ -s "$nd/$f" ]; then
            log "---- last lines of $nd/$f ----"
            tail -n 12 "$nd/$f" >&2
        fi
    done
}

# wait_ready NODE...: wait until each given node answers a metadata request
# itself, listing exactly the nodes that are running (so all are registered and
# unfenced; asking the node itself also avoids trusting a registration that
# outlived a killed process).
wait_ready() {
    local deadline=$((SECONDS + KAFKA_START_TIMEOUT)) want=() n i
    for i in $(seq 1 "$NODES"); do
        if node_alive "$i"; then want+=("$i"); fi
    done
    for n in "$@"; do
        while [ "$(registered_brokers "127.0.0.1:$(broker_port "$n")" | tr '\n' ' ')" != "${want[*]} " ]; do
            if ! node_alive "$n"; then
                show_log_tail "$n"
                log "error: node $n exited during startup; see $(node_dir "$n")/server.log and stdout.log"
                return 1
            fi
            if [ "$SECONDS" -ge "$deadline" ]; then
                show_log_tail "$n"
                log "error: broker did not become ready within $KAFKA_START_TIMEOUT s; see $(node_dir "$n")/server.log"
                return 1
            fi
            sleep 0.5
        done
    done
}

signal_and_wait() {  # signal node...
    local sig=$1 n deadline
    shift
    for n in "$@"; do
        if node_alive "$n"; then kill "-$sig" "$(node_pid "$n")"; fi
    done
    deadline=$((SECONDS + KAFKA_STOP_TIMEOUT))
    for n in "$@"; do
        while node_alive "$n"; do
            if [ "$SECONDS" -ge "$deadline" ]; then
                log "node $n did not stop within $KAFKA_STOP_TIMEOUT s; sending SIGKILL"
                kill -KILL "$(node_pid "$n")" 2>/dev/null || true
                deadline=$((SECONDS + 10))
            fi
            sleep 0.2
        done
        rm -f "$(node_dir "$n")/pid"
    done
}

# ---------------------------------------------------------------- commands

cmd_start() {
    local n t0=$SECONDS
    [ -n "$DIR" ] || die "--dir DIR is required"
    NODES=${NODES:-1}
    [ "$NODES" = 1 ] || [ "$NODES" = 3 ] || die "--nodes must be 1 or 3"
    BASE_PORT=${BASE_PORT:-${KAFKA_BASE_PORT:-29092}}
    PARTITIONS=${PARTITIONS:-$([ "$NODES" = 1 ] && echo 1 || echo 3)}
    is_number "$BASE_PORT" && [ "$BASE_PORT" -ge 1024 ] && [ "$BASE_PORT" -le 65000 ] ||
        die "--base-port must be a number between 1024 and 65000"
    is_number "$PARTITIONS" && [ "$PARTITIONS" -ge 1 ] || die "--partitions must be a positive number"
    [ ! -e "$DIR/cluster.env" ] || die "$DIR already holds a cluster; use 'startnode', or remove the directory"
    for n in $(seq 1 "$NODES"); do
        ! port_in_use "$(broker_port "$n")" && ! port_in_use "$(controller_port "$n")" ||
            die "port $(broker_port "$n") or $(controller_port "$n") is in use; pick another --base-port"
    done
    ensure_tools
    resolve_jars
    mkdir -p "$DIR"
    DIR=$(cd "$DIR" && pwd)
    CLUSTER_ID=$(new_cluster_id)
    cp "$HERE/log4j2.properties" "$DIR/log4j2.properties"
    for n in $(seq 1 "$NODES"); do write_node_config "$n"; done
    log "formatting $NODES node(s), cluster id $CLUSTER_ID"
    for n in $(seq 1 "$NODES"); do format_node "$n" & done
    wait_all
    cat >"$DIR/cluster.env" <<EOF
NODES=$NODES
BASE_PORT=$BASE_PORT
PARTITIONS=$PARTITIONS
CLUSTER_ID=$CLUSTER_ID
KAFKA_VERSION=$KAFKA_VERSION
KAFKA_LIB_DIR=$KAFKA_LIB_DIR
EOF
    start_and_wait $(seq 1 "$NODES")
    log "Kafka $KAFKA_VERSION ready in $((SECONDS - t0)) s: $NODES node(s) in $DIR"
    bootstrap_string
}

# wait for all background jobs; fail if any failed
wait_all() {
    local pid ok=1
    for pid in $(jobs -p); do wait "$pid" || ok=; done
    [ -n "$ok" ] || die "a background step failed (see messages above)"
}

start_and_wait() {
    local n
    for n in "$@"; do launch_node "$n"; done
    if ! wait_ready "$@"; then
        log "stopping the node(s) just started"
        signal_and_wait KILL "$@"
        exit 1
    fi
}

cmd_startnode() {
    load_cluster
    check_node_opt
    ensure_tools
    jars_ready || die "jars missing in $KAFKA_LIB_DIR; run 'kafka.sh setup'"
    # shellcheck disable=SC2046  # one argument per node
    start_and_wait $(selected_nodes)
    log "node(s) $(selected_nodes | tr '\n' ' ')running"
}

cmd_stop() {
    [ -n "$DIR" ] || die "--dir DIR is required"
    if [ ! -f "$DIR/cluster.env" ]; then
        log "nothing to stop in $DIR"
        return 0
    fi
    load_cluster
    check_node_opt
    # shellcheck disable=SC2046  # one argument per node
    signal_and_wait "$([ -n "$KILL" ] && echo KILL || echo TERM)" $(selected_nodes)
    log "stopped node(s) $(selected_nodes | tr '\n' ' ')"
}

cmd_status() {
    local n down=0 seen
    load_cluster
    for n in $(seq 1 "$NODES"); do
        if node_alive "$n"; then
            echo "node$n running pid $(node_pid "$n") broker 127.0.0.1:$(broker_port "$n") controller 127.0.0.1:$(controller_port "$n")"
        else
            echo "node$n stopped"
            down=1
        fi
    done
    seen=$(registered_brokers "$(bootstrap_string)" | tr '\n' ' ')
    echo "registered brokers: ${seen:-none}"
    echo "bootstrap: $(bootstrap_string)"
    [ "$down" = 0 ] || exit 3
}

cmd_bootstrap() {
    load_cluster
    bootstrap_string
}

cmd_topics() {
    load_cluster
    java -Xmx256m -XX:TieredStopAtLevel=1 -Dlog4j2.level=WARN -cp "$KAFKA_LIB_DIR/*" org.apache.kafka.tools.TopicCommand \
        --bootstrap-server "$(bootstrap_string)" "${REST[@]}"
}

# ---------------------------------------------------------------- smoke test

# smoke: build rdkafka_smoke.c against the system librdkafka, produce with it,
# read back with kcat.  Prints one PASS/FAIL line per check.
cmd_smoke() {
    local bs work bin stamp result=PASS
    if [ -n "$BOOTSTRAP_OPT" ]; then
        bs=$BOOTSTRAP_OPT
        work=$(mktemp -d)
    else
        load_cluster
        bs=$(bootstrap_string)
        work=$DIR/smoke
    fi
    ensure_tools build
    mkdir -p "$work"
    rm -f "$work/murmur2.fail"
    bin=$work/rdkafka_smoke
    gcc -O2 -Wall -o "$bin" "$HERE/rdkafka_smoke.c" -lrdkafka ||
        die "could not build rdkafka_smoke.c (is librdkafka-dev installed?)"
    stamp=$(date +%s)-$$
    smoke_idempotent "$bs" "$work" "smoke.idempotent.$stamp" || result=FAIL
    smoke_transactional "$bs" "$work" "smoke.transactional.$stamp" || result=FAIL
    if [ -f "$work/murmur2.fail" ]; then
        echo "smoke: murmur2_random FAIL (see $work/*.err)"
        result=FAIL
    else
        echo "smoke: murmur2_random PASS (every delivery report on the partition Java's murmur2 gives)"
    fi
    echo "smoke: $result (librdkafka $(librdkafka_version "$work"), broker $(kafka_version_note))"
    [ "$result" = PASS ]
}

librdkafka_version() { sed -n 's/^librdkafka //p' "$1/create-idem.err" 2>/dev/null | head -1; }
kafka_version_note() {
    if [ -n "$BOOTSTRAP_OPT" ]; then echo "at $BOOTSTRAP_OPT"; else echo "Kafka $KAFKA_VERSION, $NODES node(s)"; fi
}

# run_smoke_bin WORK NAME ARGS...: run the C program, keep its output in WORK/NAME.{out,err}
run_smoke_bin() {
    local work=$1 name=$2
    shift 2
    if ! "$work/rdkafka_smoke" "$@" >"$work/$name.out" 2>"$work/$name.err"; then
        grep -q 'Java murmur2' "$work/$name.err" && touch "$work/murmur2.fail"
        grep -m 5 '^FAIL' "$work/$name.err" >&2 || tail -n 5 "$work/$name.err" >&2
        return 1
    fi
}

smoke_idempotent() {
    local bs=$1 work=$2 topic=$3 n=300
    if ! run_smoke_bin "$work" create-idem "$bs" create "$topic" 3 ||
        ! run_smoke_bin "$work" idempotent "$bs" idempotent "$topic" "$n"; then
        echo "smoke: idempotent FAIL (producer error; see $work/idempotent.err)"
        return 1
    fi
    kcat -C -b "$bs" -t "$topic" -o beginning -e -q -f 'DR %k %p %o\n' 2>"$work/kcat-idem.err" |
        sort >"$work/idempotent.consumed"
    sort "$work/idempotent.out" >"$work/idempotent.sorted"
    if cmp -s "$work/idempotent.sorted" "$work/idempotent.consumed"; then
        echo "smoke: idempotent PASS ($n keyed messages, acks=all; kcat read back the same key/partition/offset)"
    else
        echo "smoke: idempotent FAIL (kcat read $(wc -l <"$work/idempotent.consumed") of $n messages, or other positions; see $work)"
        return 1
    fi
}

# count_values BOOTSTRAP TOPIC ISOLATION PREFIX: messages whose value starts with PREFIX-
count_values() {
    kcat -C -b "$1" -t "$2" -o beginning -e -q -X isolation.level="$3" -f '%s\n' 2>/dev/null |
        grep -c "^$4-" || true
}

smoke_transactional() {
    local bs=$1 work=$2 topic=$3 n=100 c1 c2 ab raw deadline=$((SECONDS + 20))
    if ! run_smoke_bin "$work" create-txn "$bs" create "$topic" 3 ||
        ! run_smoke_bin "$work" transactional "$bs" transactional "$topic" "$n"; then
        echo "smoke: transactional FAIL (producer error; see $work/transactional.err)"
        return 1
    fi
    # the commit markers are written asynchronously: poll until they are visible
    while :; do
        c1=$(count_values "$bs" "$topic" read_committed commit1)
        c2=$(count_values "$bs" "$topic" read_committed commit2)
        ab=$(count_values "$bs" "$topic" read_committed abort)
        raw=$(count_values "$bs" "$topic" read_uncommitted abort)
        if [ "$c1" = "$n" ] && [ "$c2" = "$n" ] && [ "$ab" = 0 ] && [ "$raw" = "$n" ]; then
            echo "smoke: transactional PASS (read_committed sees 2x$n committed and 0 of $n aborted; read_uncommitted sees the $n aborted)"
            return 0
        fi
        [ "$SECONDS" -lt "$deadline" ] || break
        sleep 1
    done
    echo "smoke: transactional FAIL (read_committed: commit1=$c1 commit2=$c2 abort=$ab, read_uncommitted abort=$raw; want $n $n 0 $n)"
    return 1
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
        startnode) cmd_startnode ;;
        status) cmd_status ;;
        bootstrap) cmd_bootstrap ;;
        topics) cmd_topics ;;
        smoke) cmd_smoke ;;
        help | -h | --help) usage ;;
        *) usage >&2; die "unknown command '$cmd'" ;;
    esac
}

main "$@"
