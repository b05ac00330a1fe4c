# shellcheck shell=bash disable=SC2034,SC2153  # what the sourcing scripts set and read
#
# bench/lib.sh -- what the end-to-end benchmarks share: bench/stream.sh,
# bench/snapshot.sh and bench/eos.sh source it (it is not run on its own).
#
#   messages      log, die, usage (the USAGE block of the script's header)
#   options       parse_options, with common_option: --rows --repeat
#                 --partitions --pg-port --kafka-port --workdir
#                 --skip-debezium --perf --no-record --keep --help; check_uints
#   helpers       as_server_user, as_root, bench_psql, q, calc, port_in_use,
#                 median, max_of
#   prerequisites apt_install, check_prereqs (Java, Maven, kcat, perf with
#                 --perf, the installed cdc_kafka, the Kafka jars,
#                 bench/debezium built)
#   servers       make_workdir, start_kafka, start_postgres (initdb, the
#                 common settings, cdc_kafka preloaded), warm_up_kafka,
#                 cleanup (the EXIT trap: both servers stopped, the
#                 directory removed, unless --keep)
#   SQL           bench_rows_ddl (the benchmark's table), workload_sql and
#                 load_rows (its rows), bench_wait_functions, worker_stop
#   figures       cpu_ticks, measure_begin/measure_end (CPU of a process and
#                 of the broker, VmRSS/RssAnon sampled, VmHWM), topic_count,
#                 check_topic, create_topics (LogAppendTime), kafka_times,
#                 perf_begin/perf_end, run_debezium
#   report        round_ratios, versions, record_results (a block between
#                 markers in bench/RESULTS.md)
#
# The sourcing script sets its options (ROWS, TXN_ROWS, REPEAT, PARTITIONS,
# PG_PORT, KAFKA_PORT, WORKDIR, DEBEZIUM, PERF, RECORD, KEEP, TIMEOUT) and
# PERF_DIR before calling these.

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PG_CONFIG=${PG_CONFIG:-$PGBIN/pg_config}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
KAFKA_SH=$ROOT/test/kafka/kafka.sh
DBZ_DIR=$HERE/debezium
BENCH_NAME=$(basename "$0")  # stream.sh, snapshot.sh: log prefix, markers
BENCH_TAG=${BENCH_NAME%.sh}

WORK=""          # the run's directory
PGSOCK=""        # PostgreSQL's socket directory
BS=""            # Kafka bootstrap servers
BROKER_PID=""
PG_STARTED=0
KAFKA_STARTED=0
BG_PIDS=()       # background processes of ours, ended at exit
LIB_INFO=""
LOAD_BEFORE=""
CLK_TCK=$(getconf CLK_TCK)

# Figures per run key, filled by measure_end, kafka_times and run_debezium.
declare -A SECS CPU BROKER_CPU RSS ANON HWM FIRST_S STARTUP_S STEADY

# ---- messages and options ---------------------------------------------------------

log() { printf '[%s] %s\n' "$BENCH_NAME" "$*" >&2; }

die()
{
	printf '[%s] ERROR: %s\n' "$BENCH_NAME" "$*" >&2
	exit 1
}

usage()
{
	sed -n '/^# USAGE/,/^#$/p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

is_uint() { [[ $1 =~ ^[0-9]+$ ]] && ((10#$1 > 0)); }

# The options both benchmarks have.  common_option "$@" sets OPT_WORDS to the
# number of words it took (0: not one of these).
OPT_WORDS=0
common_option()
{
	OPT_WORDS=2
	case $1 in
		--rows) ROWS=${2-} ;;
		--repeat) REPEAT=${2-} ;;
		--partitions) PARTITIONS=${2-} ;;
		--pg-port) PG_PORT=${2-} ;;
		--kafka-port) KAFKA_PORT=${2-} ;;
		--workdir) WORKDIR=${2-} ;;
		*)
			OPT_WORDS=1
			case $1 in
				--skip-debezium) DEBEZIUM=0 ;;
				--perf) PERF=1 ;;
				--no-record) RECORD=0 ;;
				--keep) KEEP=1 ;;
				-h | --help) usage 0 ;;
				*) OPT_WORDS=0 ;;
			esac
			return ;;
	esac
	(($# >= 2)) || die "$1 needs a value"
}

# parse_options HANDLER ARG...: each argument goes to common_option, then to
# HANDLER (the script's own options), which sets OPT_WORDS the same way.
parse_options()
{
	local handler=$1
	shift
	while (($#)); do
		common_option "$@"
		((OPT_WORDS)) || "$handler" "$@"
		((OPT_WORDS)) || { printf 'unknown argument: %s\n\n' "$1" >&2; usage 2; }
		shift "$OPT_WORDS"
	done
}

# Each named variable must hold a positive integer (its option is named after it).
check_uints()
{
	local v
	for v in "$@"; do
		is_uint "${!v}" || die "--$(tr 'A-Z_' 'a-z-' <<<"$v") needs a positive integer"
	done
}

# ---- helpers ------------------------------------------------------------------

# Run a command as the OS user that owns the PostgreSQL server.
as_server_user()
{
	if ((EUID == 0)); then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

as_root()
{
	if ((EUID == 0)); then "$@"; else sudo "$@"; fi
}

# psql against the benchmark database: quiet, unaligned, stop on error.
bench_psql()
{
	"$PGBIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PGSOCK" -p "$PG_PORT" \
		-U bench -d "${DB:-bench}" "$@"
}

# One value from one query.
q() { bench_psql -c "$1"; }

# The worker's side of a benchmark (stream.sh, eos.sh).  Every slot the
# worker streams is created beforehand: a slot the worker creates itself may
# come with an initial snapshot of the tables (cdc_kafka.snapshot_mode).
create_slot() { q "SELECT 1 FROM pg_create_logical_replication_slot('$1', 'cdc_kafka')" >/dev/null; }

# Start streaming; prints the time just before (epoch seconds).
worker_start()
{
	bench_psql -c "SELECT extract(epoch FROM clock_timestamp())" -c "SELECT cdc_kafka.start()" | sed -n 1p
}

worker_pid() { q "SELECT pid FROM cdc_kafka.status"; }
records_sent() { q "SELECT records_sent FROM cdc_kafka.status"; }

# Arithmetic on decimals: calc 'expression' (awk syntax), printed with format $2.
calc() { awk "BEGIN { printf \"${2:-%.3f}\", $1 }"; }

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

median() { tr " " "\n" | { grep . || true; } | sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
max_of() { if (($1 > $2)); then echo "$1"; else echo "$2"; fi; }

# ---- prerequisites ----------------------------------------------------------------

APT_UPDATED=0
apt_install()
{
	log "installing $* with apt-get"
	if ((!APT_UPDATED)); then
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
		APT_UPDATED=1
	fi
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2 ||
		die "apt-get install $* failed"
}

# Java with Maven, kcat, perf for --perf, and the packages given (the
# script's own tools, already found missing).
ensure_tools()
{
	local pkgs=("$@")
	command -v javac >/dev/null || pkgs+=(openjdk-17-jdk-headless)
	command -v mvn >/dev/null || pkgs+=(maven)
	command -v kcat >/dev/null || pkgs+=(kcat)
	if ((PERF)) && ! command -v perf >/dev/null; then pkgs+=(linux-perf); fi
	((${#pkgs[@]} == 0)) || apt_install "${pkgs[@]}"
}

# The installed cdc_kafka: build and install it if missing (as root).
ensure_cdc_kafka()
{
	local libdir sharedir
	libdir=$("$PG_CONFIG" --pkglibdir)
	sharedir=$("$PG_CONFIG" --sharedir)
	if [[ ! -f $libdir/cdc_kafka.so || ! -f $sharedir/extension/cdc_kafka.control ]]; then
		((EUID == 0)) || die "cdc_kafka is not installed: run 'make && make install' as root in $ROOT"
		log "cdc_kafka is not installed: building and installing it"
		bash "$ROOT/scripts/install-deps.sh" >&2
		if ! { make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" >&2 && make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" install >&2; }; then
			die "could not build and install cdc_kafka"
		fi
	fi
	if [[ -f $ROOT/cdc_kafka.so ]] && ! cmp -s "$ROOT/cdc_kafka.so" "$libdir/cdc_kafka.so"; then
		log "WARNING: the installed cdc_kafka.so differs from the build in $ROOT (run make install?)"
	fi
	LIB_INFO="$libdir/cdc_kafka.so, modified $(stat -c %y "$libdir/cdc_kafka.so" | cut -d. -f1),"
	LIB_INFO+=" sha256 $(sha256sum "$libdir/cdc_kafka.so" | cut -c1-12)"
}

# Build bench/debezium unless target/ is newer than its sources (its
# CreateTopics makes every run's topics, with or without the Debezium run).
build_debezium()
{
	local stamp=$DBZ_DIR/target/.build-stamp
	if [[ -f $stamp && -d $DBZ_DIR/target/lib ]] &&
		[[ -z $(find "$DBZ_DIR/pom.xml" "$DBZ_DIR/src" -newer "$stamp" -print -quit) ]]; then
		return
	fi
	log "building bench/debezium with Maven"
	mvn -B -q -f "$DBZ_DIR/pom.xml" package >"$DBZ_DIR/maven.log" 2>&1 ||
		{ tail -n 30 "$DBZ_DIR/maven.log" >&2; die "Maven build of bench/debezium failed (log: $DBZ_DIR/maven.log)"; }
	rm -f "$DBZ_DIR/maven.log"
	touch "$stamp"
}

# check_prereqs [PACKAGE...]: the packages are the script's own missing tools.
check_prereqs()
{
	[[ -x $PGBIN/postgres ]] || die "no PostgreSQL server in $PGBIN (set PGBIN)"
	"$PGBIN/postgres" --version | grep -q ' 15\.' || die "$PGBIN is not PostgreSQL 15"
	if ((EUID == 0)); then
		id postgres >/dev/null 2>&1 || die "running as root needs a 'postgres' OS user"
	fi
	ensure_tools "$@"
	ensure_cdc_kafka
	bash "$KAFKA_SH" setup >/dev/null 2>"${TMPDIR:-/tmp}/$BENCH_TAG-kafka-setup.$$" ||
		{ cat "${TMPDIR:-/tmp}/$BENCH_TAG-kafka-setup.$$" >&2; die "kafka.sh setup failed"; }
	rm -f "${TMPDIR:-/tmp}/$BENCH_TAG-kafka-setup.$$"
	build_debezium
	! port_in_use "$PG_PORT" || die "port $PG_PORT is in use: pick another --pg-port"
	! port_in_use "$KAFKA_PORT" || die "port $KAFKA_PORT is in use: pick another --kafka-port"
}

# ---- servers ----------------------------------------------------------------------

make_workdir()
{
	if [[ -n $WORKDIR ]]; then
		[[ ! -e $WORKDIR ]] || die "--workdir $WORKDIR already exists"
		mkdir -p "$WORKDIR"
		WORK=$(cd "$WORKDIR" && pwd)
	else
		WORK=$(mktemp -d "${TMPDIR:-/tmp}/cdc_kafka_$BENCH_TAG.XXXXXX")
	fi
	chmod 755 "$WORK"
	PGSOCK=$WORK/pg
	mkdir -p "$PGSOCK"
	((EUID != 0)) || chown postgres: "$PGSOCK"
	log "servers in $WORK"
}

start_kafka()
{
	log "starting Kafka on 127.0.0.1:$KAFKA_PORT ($PARTITIONS partitions per topic)"
	KAFKA_STARTED=1
	BS=$(bash "$KAFKA_SH" start --dir "$WORK/kafka" --base-port "$KAFKA_PORT" \
		--partitions "$PARTITIONS" 2>"$WORK/kafka-start.log") ||
		{ tail -n 20 "$WORK/kafka-start.log" >&2; die "Kafka did not start"; }
	BROKER_PID=$(cat "$WORK/kafka/node1/pid")
}

# The settings both benchmarks use, then the lines given (the script's own).
write_pg_config()
{
	local line
	cat >>"$PGSOCK/data/postgresql.conf" <<EOF

# ---- bench/$BENCH_NAME ----
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PGSOCK'
shared_preload_libraries = 'cdc_kafka'
wal_level = logical
output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka'
max_replication_slots = 32
max_wal_senders = 10
logical_decoding_work_mem = '64MB'
autovacuum = off
max_wal_size = '16GB'
checkpoint_timeout = '1h'
fsync = off
synchronous_commit = on
jit = off
cdc_kafka.bootstrap_servers = '$BS'
EOF
	for line in "$@"; do echo "$line" >>"$PGSOCK/data/postgresql.conf"; done
}

# start_postgres [SETTING-LINE...]: initdb, settings, start, database bench.
start_postgres()
{
	log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
	as_server_user "$PGBIN/initdb" -D "$PGSOCK/data" -U bench -A trust -E UTF8 \
		--locale=C --no-sync >"$WORK/initdb.log" 2>&1 || die "initdb failed, see $WORK/initdb.log"
	write_pg_config "$@"
	PG_STARTED=1
	as_server_user "$PGBIN/pg_ctl" -D "$PGSOCK/data" -l "$PGSOCK/server.log" -w -t 60 start >/dev/null ||
		die "PostgreSQL did not start, see $PGSOCK/server.log"
	DB=postgres bench_psql -c "CREATE DATABASE bench"
}

# Broker JIT warm-up: 200,000 messages of 1 kB through kcat, acks=all.
warm_up_kafka()
{
	log "warming up the broker (200 MB through kcat)"
	awk 'BEGIN { s = sprintf("%1000s", ""); gsub(/ /, "x", s);
	             for (i = 0; i < 200000; i++) print i "\t" s }' |
		kcat -P -b "$BS" -t bench.warmup -K $'\t' -X acks=all -X enable.idempotence=true \
			2>"$WORK/warmup.err" || die "kcat could not produce the warm-up messages: $(tail -n 3 "$WORK/warmup.err")"
}

cleanup()
{
	local status=$? pid
	for pid in "${BG_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	[[ -n $WORK ]] || exit "$status"
	if ((KEEP)); then
		log "kept the servers (running) in $WORK"
		log "  psql:   $PGBIN/psql -h $PGSOCK -p $PG_PORT -U bench bench"
		log "  kafka:  $BS   (stop: bash $KAFKA_SH stop --dir $WORK/kafka)"
		log "  stop:   $( ((EUID == 0)) && echo 'runuser -u postgres -- ')$PGBIN/pg_ctl -D $PGSOCK/data stop; rm -rf $WORK"
		exit "$status"
	fi
	if ((PG_STARTED)); then
		((status == 0)) || { log "last lines of the server log:"; tail -n 20 "$PGSOCK/server.log" >&2 || true; }
		as_server_user "$PGBIN/pg_ctl" -D "$PGSOCK/data" -m fast -w stop >/dev/null 2>&1 ||
			log "WARNING: could not stop PostgreSQL in $PGSOCK"
	fi
	if ((KAFKA_STARTED)); then
		bash "$KAFKA_SH" stop --dir "$WORK/kafka" >/dev/null 2>&1 || log "WARNING: could not stop Kafka in $WORK/kafka"
	fi
	rm -rf "$WORK"
	exit "$status"
}

# ---- SQL ----------------------------------------------------------------------------

# bench_rows_ddl and workload_sql
# shellcheck source=bench/workload.sh
. "$HERE/workload.sh"

# Load the rows; prints "start first_commit last_commit" (epoch seconds).
load_rows()
{
	workload_sql | bench_psql | grep -v '^$' | awk 'NR == 1 {s = $1} NR == 2 {f = $1} {l = $1}
		END {print s, f, l}'
}

# bench_wait_acked(target, timeout) and bench_wait_state(state, slot, timeout),
# in SQL, waiting on cdc_kafka.status (which they need only when called).
bench_wait_functions()
{
	cat <<'EOF'
-- Wait until the worker has `target` records acknowledged in all and nothing
-- in flight; returns the time of the last acknowledgement (epoch seconds)
-- and the slot its session used.
CREATE FUNCTION bench_wait_acked(target bigint, timeout_s float8,
                                 OUT records bigint, OUT last_ack float8, OUT slot name)
LANGUAGE plpgsql AS $$
DECLARE
	deadline timestamptz := clock_timestamp() + timeout_s * interval '1 second';
	st record;
BEGIN
	LOOP
		SELECT * INTO st FROM cdc_kafka.status;
		IF st.records_sent >= target AND st.inflight_records = 0 THEN
			records := st.records_sent;
			last_ack := extract(epoch FROM st.last_ack_time);
			slot := st.slot_name;
			RETURN;
		END IF;
		IF st.state IN ('error', 'blocked', 'slot_lost') THEN
			RAISE EXCEPTION 'cdc_kafka worker is %: %', st.state, coalesce(st.last_error, st.detail);
		END IF;
		IF clock_timestamp() > deadline THEN
			RAISE EXCEPTION 'timed out: % of % records acknowledged (state %: %)',
				st.records_sent, target, st.state, st.detail;
		END IF;
		PERFORM pg_sleep(0.02);
	END LOOP;
END
$$;

-- Wait until the worker is in state `want` (on slot `want_slot` if given).
CREATE FUNCTION bench_wait_state(want text, want_slot name, timeout_s float8) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	deadline timestamptz := clock_timestamp() + timeout_s * interval '1 second';
	st record;
BEGIN
	LOOP
		SELECT * INTO st FROM cdc_kafka.status;
		EXIT WHEN FOUND AND st.state = want AND (want_slot IS NULL OR st.slot_name = want_slot);
		IF clock_timestamp() > deadline THEN
			RAISE EXCEPTION 'the worker is not % after % s (state %: %, last error %)',
				want, timeout_s, st.state, st.detail, st.last_error;
		END IF;
		PERFORM pg_sleep(0.02);
	END LOOP;
END
$$;
EOF
}

worker_stop()
{
	bench_psql -c "SELECT cdc_kafka.stop()" >/dev/null
	q "SELECT bench_wait_state('stopped', NULL, 60)" >/dev/null
}

# ---- process figures ---------------------------------------------------------------

# User+system CPU ticks of a process (all its threads, those ended included),
# or of one thread: cpu_ticks PID/task/TID.
cpu_ticks()
{
	local stat f
	stat=$(<"/proc/$1/stat")
	read -ra f <<<"${stat##*) }"
	echo $((f[11] + f[12]))
}

# Sample VmRSS and RssAnon (kB) of $1 every 0.2 s into $2 while it lives.
rss_sampler()
{
	local pid=$1 out=$2 key value rest rss anon
	while [[ -r /proc/$pid/status ]]; do
		rss='' anon=''
		while read -r key value rest; do
			case $key in
				VmRSS:) rss=$value ;;
				RssAnon:) anon=$value ;;
			esac
		done 2>/dev/null <"/proc/$pid/status" || break
		[[ -z $rss ]] || echo "$rss $anon" >>"$out"
		sleep 0.2
	done
}

SAMPLER_PID=""
SAMPLE_FILE=""
CPU0=0
BROKER_CPU0=0

# Start watching process $1 (memory, CPU) and the broker (CPU).
measure_begin()
{
	local pid=$1
	SAMPLE_FILE=$WORK/rss.$pid.$RANDOM
	: >"$SAMPLE_FILE"
	echo 5 >"/proc/$pid/clear_refs" 2>/dev/null || true # VmHWM := VmRSS
	CPU0=$(cpu_ticks "$pid")
	BROKER_CPU0=$(cpu_ticks "$BROKER_PID")
	rss_sampler "$pid" "$SAMPLE_FILE" &
	SAMPLER_PID=$!
	BG_PIDS+=("$SAMPLER_PID")
}

# Stop watching $1 and record the figures under run key $2.
measure_end()
{
	local pid=$1 key=$2 hwm=''
	kill "$SAMPLER_PID" 2>/dev/null || true
	wait "$SAMPLER_PID" 2>/dev/null || true
	if [[ -r /proc/$pid/status ]]; then
		hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
		CPU[$key]=$(calc "($(cpu_ticks "$pid") - $CPU0) / $CLK_TCK" '%.2f')
	fi
	HWM[$key]=$(calc "${hwm:-0} / 1024" '%.0f')
	RSS[$key]=$(awk '$1 > m {m = $1} END {printf "%.0f", m / 1024}' "$SAMPLE_FILE")
	ANON[$key]=$(awk '$2 > m {m = $2} END {printf "%.0f", m / 1024}' "$SAMPLE_FILE")
	BROKER_CPU[$key]=$(calc "($(cpu_ticks "$BROKER_PID") - $BROKER_CPU0) / $CLK_TCK" '%.2f')
	rm -f "$SAMPLE_FILE"
}

# perf record process $1 until perf_end (--perf); the report goes to PERF_DIR.
PERF_PID=""
perf_begin()
{
	mkdir -p "$PERF_DIR"
	perf record -F 999 -g -p "$1" -o "$PERF_DIR/perf.data" >"$PERF_DIR/perf-record.log" 2>&1 &
	PERF_PID=$!
	BG_PIDS+=("$PERF_PID")
	sleep 0.5
}

perf_end()
{
	kill -INT "$PERF_PID" 2>/dev/null || true
	wait "$PERF_PID" 2>/dev/null || true
	perf report -i "$PERF_DIR/perf.data" --no-children --sort dso,symbol --percent-limit 0.5 --stdio \
		>"$PERF_DIR/self.txt" 2>/dev/null || true
	perf report -i "$PERF_DIR/perf.data" --children --sort symbol --percent-limit 2 --stdio -g none \
		>"$PERF_DIR/children.txt" 2>/dev/null || true
	log "  perf profile of the worker in $PERF_DIR (self.txt, children.txt)"
}

# ---- Kafka ------------------------------------------------------------------

# Messages in a topic: the sum of its partitions' end offsets.
topic_count()
{
	local p parts=() n
	for ((p = 0; p < PARTITIONS; p++)); do parts+=(-t "$1:$p:-1"); done
	n=$(kcat -Q -b "$BS" "${parts[@]}" 2>/dev/null | awk '/offset/ {s += $NF} END {print s + 0}')
	echo "$n"
}

check_topic()
{
	local n
	n=$(topic_count "$1")
	[[ $n == "$2" ]] || die "topic $1 holds $n messages, expected $2"
}

# Create the topics given, before anything is measured (LogAppendTime).
create_topics()
{
	log "creating $# topics (message.timestamp.type=LogAppendTime)"
	java -cp "$DBZ_DIR/target/classes:$DBZ_DIR/target/lib/*" cdckafka.bench.CreateTopics \
		"$BS" "$PARTITIONS" "$@" >"$WORK/create-topics.log" 2>&1 ||
		die "could not create the topics: $(tail -n 5 "$WORK/create-topics.log")"
}

# Broker append times of a run's first and last messages (the topics use
# LogAppendTime): STARTUP_S = first append - $3 (the run's start, epoch
# seconds), STEADY = rows / (last append - first append).
kafka_times()
{
	local key=$1 topic=$2 t0=$3 p first last
	read -r first last <<<"$(for ((p = 0; p < PARTITIONS; p++)); do
		kcat -C -b "$BS" -t "$topic" -p "$p" -o beginning -c 1 -e -q -f '%T first\n'
		kcat -C -b "$BS" -t "$topic" -p "$p" -o -1 -c 1 -e -q -f '%T last\n'
	done 2>/dev/null | awk '$2 == "first" && (f == "" || $1 < f) {f = $1}
	                       $2 == "last" && $1 > l {l = $1} END {print f, l}')"
	[[ -n $first && -n $last ]] || die "could not read the append times of topic $topic"
	STARTUP_S[$key]=$(calc "$first / 1000 - $t0" '%.2f')
	STEADY[$key]=$(calc "$ROWS / (($last - $first) / 1000)" '%.0f')
}

# ---- Debezium ------------------------------------------------------------------

# One run of bench/debezium's DebeziumBench: run key, slot, topic prefix,
# compression, then further arguments for it.  Figures under the run key;
# checks that the table's topic holds ROWS messages.
run_debezium()
{
	local key=$1 slot=$2 prefix=$3 codec=$4 out=$WORK/debezium.$1.out pid line start_ms
	shift 4
	log "  Debezium 3.6.1 (log: $WORK/debezium.log)"
	java -Xmx1g -Dorg.slf4j.simpleLogger.logFile="$WORK/debezium.log" \
		-Dorg.slf4j.simpleLogger.showDateTime=true \
		-cp "$DBZ_DIR/target/classes:$DBZ_DIR/target/lib/*" cdckafka.bench.DebeziumBench \
		--pg-port "$PG_PORT" --user bench --dbname bench --slot "$slot" \
		--publication dbz_publication --topic-prefix "$prefix" --table public.bench_rows \
		--bootstrap "$BS" --records "$ROWS" --timeout "$TIMEOUT" --compression "$codec" "$@" \
		>"$out" 2>"$WORK/debezium.err" &
	pid=$!
	BG_PIDS+=("$pid")
	measure_begin "$pid"
	wait "$pid" || die "Debezium run failed: $(tail -n 5 "$WORK/debezium.err")"
	measure_end "$pid" "$key"
	line=$(grep '^debezium ' "$out") || die "no result line from Debezium (see $out)"
	SECS[$key]=$(sed -E 's/.* seconds=([0-9.]+).*/\1/' <<<"$line")
	start_ms=$(sed -E 's/.* start_epoch_ms=([0-9]+).*/\1/' <<<"$line")
	FIRST_S[$key]=$(sed -E 's/.* first_record_s=([0-9.]+).*/\1/' <<<"$line")
	CPU[$key]=$(calc "$(sed -E 's/.* cpu_s=([0-9.]+).*/\1/' <<<"$line")" '%.2f')
	HWM[$key]=$(sed -E 's/.* hwm_mb=([0-9.]+).*/\1/' <<<"$line" | cut -d. -f1)
	ANON[$key]='-'
	check_topic "$prefix.public.bench_rows" "$ROWS"
	kafka_times "$key" "$prefix.public.bench_rows" "$(calc "$start_ms / 1000")"
	log "  Debezium: ${SECS[$key]} s (first record after ${FIRST_S[$key]} s), JVM CPU ${CPU[$key]} s"
}

# ---- report ---------------------------------------------------------------------------------

# Rate of run kind $2 / that of run kind $1 (the floor), round by round (runs
# of the same round, minutes apart at most): prints each, then their median
# in brackets.
round_ratios()
{
	local floor=$1 kind=$2 r list=''
	for ((r = 1; r <= REPEAT; r++)); do
		list+="$(calc "${SECS[${floor}_$r]} / ${SECS[${kind}_$r]}" '%.2f') "
	done
	echo "$list($(median <<<"$list"))"
}

# The versions and the machine; $1 says when LOAD_BEFORE was taken.
versions()
{
	local clients jars=("$DBZ_DIR"/target/lib/kafka-clients-*.jar)
	clients=$(basename "${jars[0]}" .jar)
	[[ -e ${jars[0]} ]] || clients='?'
	echo "PostgreSQL: $(q 'SHOW server_version')"
	echo "Kafka:      4.4.0, 1 KRaft node, $PARTITIONS partitions per topic; worker: librdkafka" \
		"$(dpkg-query -W -f '${Version}' librdkafka1 2>/dev/null || echo '?'); Debezium: $clients"
	echo "cdc_kafka:  $LIB_INFO (tree at $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown))"
	((!DEBEZIUM)) || echo "Debezium:   3.6.1.Final embedded engine, pgoutput, JsonConverter schemas on, $(java -version 2>&1 | sed -n 1p)"
	echo "machine:    $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)," \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr)"
	echo "load avg:   $LOAD_BEFORE $1, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
}

# Put the summary file $1 into bench/RESULTS.md between the script's markers;
# the first time, appended under the heading $2.
record_results()
{
	local summary=$1 heading=$2 results=$HERE/RESULTS.md begin="<!-- $BENCH_NAME: begin latest run -->"
	local end="<!-- $BENCH_NAME: end latest run -->" block
	((RECORD)) || return 0
	# shellcheck disable=SC2016 # the backquotes are Markdown's
	block=$(printf '%s\n\n```\n%s\n```\n%s' "$begin" "$(cat "$summary")" "$end")
	if grep -qF "$begin" "$results" 2>/dev/null; then
		awk -v b="$begin" -v e="$end" -v blk="$block" '
			$0 == b { print blk; skip = 1; next }
			$0 == e { skip = 0; next }
			!skip' "$results" >"$results.tmp" && mv "$results.tmp" "$results"
	else
		printf '\n%s\n\n%s\n' "$heading" "$block" >>"$results"
	fi
	log "figures written into $results"
}
