#!/usr/bin/env bash
#
# bench/stream.sh -- how fast does cdc_kafka stream committed row changes to
# Kafka, against the cheapest logical decoding consumer and against Debezium,
# with what latency and what memory?
#
# WHAT IT MEASURES (one run measures everything; only same-run ratios count)
#   (a) catch-up throughput: --rows row changes (INSERTs) are committed while
#       every streamer is stopped; each streamer then starts on its own slot,
#       created before the load, and is timed from its start to the moment
#       Kafka has acknowledged the last of the rows:
#         floor            pg_recvlogical --start --endpos <end of load>
#                          -f /dev/null with test_decoding: the cost of logical
#                          decoding through a walsender, nothing else
#         cdc_kafka        the extension's worker (SELECT cdc_kafka.start()),
#                          schemas=on (JsonConverter schemas, the default) and
#                          schemas=off; end = cdc_kafka.status.last_ack_time
#                          once records_sent has grown by --rows and nothing is
#                          in flight (the worker's own clock as it serves the
#                          last delivery report, acks=all)
#         Debezium 3.6.1   embedded engine, pgoutput, JsonConverter with
#                          schemas, a KafkaProducer (acks=all, idempotent,
#                          librdkafka's batching budget): bench/debezium/;
#                          timed inside its JVM from the engine's start (JVM
#                          start-up not counted) to the last acknowledgement
#         Kafka alone      a reference, no PostgreSQL: kcat (librdkafka, acks=all,
#                          idempotent) produces --rows messages of the size
#                          of cdc_kafka's records (a sample's key and value
#                          as the value, its 4 headers), schemas=on-size and
#                          schemas=off-size: what the producer client and
#                          the broker cost on this machine for those bytes
#       floor, schemas=on, schemas=off and Kafka alone run --repeat times,
#       interleaved (each on its own slot and topic), and the median is
#       shown; Debezium runs once (its 1M rows take long).
#       rows/s = --rows / seconds.
#   (b) streaming while loading: the worker streams (caught up) while the same
#       load runs; from the first commit to the last acknowledgement.  The
#       first commit comes after a whole transaction of --txn-rows rows, so
#       this is what a live system sees, bounded by the load itself (the
#       load, the worker and the broker share the machine's 2 cores).
#   (c) latency at a steady rate: pgbench commits single-row INSERTs at
#       --rate transactions per second for --latency-seconds (after 5 s at
#       that rate as a warm-up: a session's new producer holds its first
#       records ~1 s while it starts; the warm-up's max is shown apart) into
#       a table whose rows carry clock_timestamp() at insert; the topic is created
#       beforehand with message.timestamp.type=LogAppendTime, so each
#       message's Kafka timestamp is the broker's clock when it appended the
#       record (the acknowledgement follows immediately: acks=all with one
#       replica).  kcat reads the topic back and per record:
#         commit -> append   Kafka timestamp - source.ts_us (the commit time
#                            PostgreSQL wrote in the commit record)
#         commit -> encoded  payload.ts_us (when the worker encoded the
#                            record) - source.ts_us: WAL flush, the worker's
#                            look for new WAL (every 1 ms while WAL comes,
#                            else cdc_kafka.poll_interval), decoding
#         encoded -> append  Kafka timestamp - payload.ts_us: librdkafka's
#                            linger (cdc_kafka's 1 ms), the network, the broker
#         insert -> append   Kafka timestamp - the row's clock_timestamp()
#       Same host, same clock.  Kafka timestamps have millisecond resolution
#       (truncated: the figures are up to 1 ms low).
#   (d) many tables (--tables N; left out by default): per round, --rows
#       rows into bench_rows, then --rows rows spread over N tables of the same
#       shape (N topics; each transaction of --txn-rows rows touches them all),
#       each load streamed, schemas=on, by a slot created just before it; the
#       catch-up time of the N tables against the one table's, round by round
#       (target: at least 0.9x).
#   Worker memory: VmRSS sampled every 0.2 s (max shown, and RssAnon, its
#   private part) and VmHWM (the peak, reset through /proc/PID/clear_refs
#   before each run) of the worker process, from /proc/<cdc_kafka.status.pid>;
#   the same for Debezium's JVM.  VmRSS includes the shared buffers the
#   process touched.  CPU: user+system seconds of the streamer process (with
#   librdkafka's threads; for Debezium the JVM's, start-up excluded) and of the
#   Kafka broker during the run.
#
# HOW TO READ THE OUTPUT (stdout, also written into bench/RESULTS.md; progress
# goes to stderr)
#   seconds   median wall time of the run (catch-up: start -> last ack;
#             live: first commit -> last ack)
#   rows/s    --rows / seconds
#   x_floor   rows/s / the floor's rows/s; below the table the same ratio
#             round by round (each run against the floor of its own round,
#             minutes apart at most) and their median, which the target
#             (schemas=on >= 1.0, issue 13's; 0.6 before it) is judged on:
#             the load of a shared machine drifts between rounds
#   x_dbz     rows/s / Debezium's rows/s
#   startup_s from the start (live: the first commit) to the broker's append
#             of the first message; steady/s: rows / (last append - first
#             append), the rate once records flow.  Every topic is created
#             before the runs, with message.timestamp.type=LogAppendTime, and
#             these two come from the first and last messages' timestamps.
#   all_s     every repetition's seconds, in order (live: load_s, the load's
#             own time, and tail_s, last commit -> last ack)
#   resources cpu_s: CPU of the streamer process; broker_s: CPU of the Kafka
#             broker; rss_MB highest VmRSS sampled; anon_MB highest RssAnon;
#             hwm_MB VmHWM
#   latency   p50/p99/p99.9/max in ms over every record   (target: p99 <= 5 ms)
#   PASS/MISS per target; then schemas=on's rate / Kafka alone's (no target):
#   near 1 means the Kafka side (client and broker, sharing the 2 cores) is
#   what bounds it, not decoding or encoding.  This is a benchmark, not a test: it exits 0
#   whether targets are met or missed, non-zero only when something failed to
#   run.  The machine is shared: the load average before and after is
#   printed; only ratios from one run mean anything.
#
# THE SERVERS (throwaway, in a fresh directory: mktemp -d, or --workdir)
#   Kafka 4.4.0, one KRaft node (test/kafka/kafka.sh), 127.0.0.1:--kafka-port,
#   warmed up with 200 MB from kcat before anything is measured.  Every topic
#   a run writes is created beforehand (bench/debezium's CreateTopics), with
#   --partitions partitions and message.timestamp.type=LogAppendTime, so no
#   run waits for a topic's creation.
#   PostgreSQL 15, listening on 127.0.0.1:--pg-port (Debezium's JDBC) and a
#   socket in the directory; trust authentication, superuser "bench".  As
#   root, initdb/pg_ctl run as the "postgres" OS user (PostgreSQL refuses
#   root); the clients run as root.  Settings:
#     shared_preload_libraries = 'cdc_kafka', wal_level = logical,
#     output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka'
#     cdc_kafka.bootstrap_servers, cdc_kafka.databases = 'bench' (set once the
#     database exists); slot_name, topic_prefix and schemas are set per run
#     (ALTER SYSTEM + reload while the worker is stopped; every run checks
#     the slot its session used, the records it acknowledged and the message
#     count on its topic); cdc_kafka.snapshot_mode = no_data where the build
#     has it, and every slot is created by the script (no initial snapshot:
#     Debezium runs with snapshot.mode=no_data too)
#     publications FOR TABLE the benchmark's tables (FOR ALL TABLES would
#     also stream cdc_kafka.worker_state, which start() and stop() update)
#     fsync = off           throwaway cluster; with fsync on, the disk's sync
#                           time would sit in every commit, and in (c) between
#                           the commit timestamp and the WAL flush
#     synchronous_commit = on   (the default: the commit flushes WAL, which is
#                           what the worker reads up to)
#     autovacuum = off, max_wal_size = 16GB, checkpoint_timeout = 1h: nothing
#                           in the background during a run (the script runs
#                           CHECKPOINT after each load)
#     logical_decoding_work_mem = 64MB (the default), jit = off
#   Every other cdc_kafka setting is its default (linger.ms 1; librdkafka's
#   batches up to 10,000 messages / 1 MB; max_inflight_bytes 64MB).
#   The installed cdc_kafka.so is loaded once, when the server starts (it is
#   preloaded, and every backend and the worker are forked from the
#   postmaster), so a "make install" by someone else during the run changes
#   nothing; its sha256 is printed.  The server is never restarted.
#
# THE WORKLOAD
#   bench/decode.sh's table (bigint primary key, int, text of 20-40
#   characters with some non-ASCII names, numeric(12,2), timestamptz,
#   boolean), reproducible pseudo-random values, INSERT ... SELECT in
#   transactions of --txn-rows rows.  One record per row, ~3.4 kB with
#   schemas on, ~0.6 kB off.
#
# USAGE
#   bench/stream.sh [--rows N] [--txn-rows N] [--repeat N] [--latency-seconds N]
#                   [--rate N] [--partitions N] [--tables N] [--pg-port N] [--kafka-port N]
#                   [--workdir DIR] [--compression CODEC] [--kafka-properties P]
#                   [--skip-debezium] [--perf] [--no-record] [--keep] [--avro]
#     --rows N             row changes per throughput run (default 1000000)
#     --txn-rows N         rows per loading transaction (default 100000)
#     --repeat N           catch-up rounds of floor, schemas=on/off, Kafka alone (default 3)
#     --latency-seconds N  length of the steady-rate run (default 30)
#     --rate N             its transactions per second (default 1000)
#     --partitions N       partitions of every topic (default 3)
#     --tables N           run (d) with N tables (default 0: not run; 1000 for
#                          issue 13's target)
#     --pg-port N          PostgreSQL TCP port on 127.0.0.1 (default 54359)
#     --kafka-port N       Kafka client port; N+1 is the controller's (default 39792)
#     --workdir DIR        directory for both servers (must not exist)
#     --compression CODEC  compression.type of every producer: cdc_kafka's
#                          (cdc_kafka.kafka_properties), Debezium's, kcat's
#                          (default lz4, cdc_kafka's default; none is the
#                          Kafka clients' and Debezium's default)
#     --kafka-properties P more of the worker's cdc_kafka.kafka_properties,
#                          after compression.type ('linger.ms=20; ...')
#     --skip-debezium      leave out the Debezium run
#     --perf               perf record the worker during the first schemas=on
#                          catch-up, or with --tables during the first one of
#                          the N tables (its figures are then slightly lower);
#                          the report goes to bench/work/stream-profile/
#     --no-record          do not write the figures into bench/RESULTS.md
#     --keep               leave both servers running and the directory in place
#     --avro               catch-up rounds with cdc_kafka.format = 'avro' too
#                          (schemas on, a schema registry from
#                          test/registry/registry.sh on port 28098): its rate
#                          against schemas=on round by round, and every run's
#                          bytes per record (status.bytes_sent)
#   Needs cdc_kafka installed (make && make install, as root; installed here
#   when missing and running as root), Java 17 with Maven, kcat and pgbench
#   (apt-get installs what is missing, as root or through sudo).  About 8
#   minutes with the defaults on 2 cores; --rows 100000 --repeat 1 for a quick run.
#   What it shares with bench/snapshot.sh (servers, prerequisites, figures,
#   the RESULTS.md writer) is in bench/lib.sh.
#
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROWS=1000000
TXN_ROWS=100000
REPEAT=3
LAT_SECONDS=30
LAT_RATE=1000
LAT_WARMUP=5 # seconds at --rate before the measured ones
PARTITIONS=3
PG_PORT=54359
KAFKA_PORT=39792
WORKDIR=""
DEBEZIUM=1
COMPRESSION=lz4
PERF=0
RECORD=1
KEEP=0
TABLES=0 # --tables: phase (d) with that many tables (0: left out)
KAFKA_PROPS='' # --kafka-properties: more of the worker's kafka_properties
TIMEOUT=1800 # seconds any one run may take
AVRO=0 # --avro: catch-up rounds with cdc_kafka.format = 'avro' too
REGISTRY_PORT=28098 # its schema registry (test/registry/registry.sh)
REGISTRY_URL=""
declare -A BYTES # bytes per record a cdc_kafka run sent (status.bytes_sent)

PERF_DIR=$HERE/work/stream-profile # --perf
PERF_RUN=on_1 # the run --perf records (tall_1 with --tables)

END_LSN=""

# Figures per run key (floor_1, on_1, off_1, ..., dbz, live_on, live_off),
# besides bench/lib.sh's.
declare -A LOAD_S TAIL_S
declare -A LAT

# ---- options ------------------------------------------------------------------

# The options of this script alone (see common_option).
stream_option()
{
	OPT_WORDS=2
	case $1 in
		--txn-rows) TXN_ROWS=${2-} ;;
		--latency-seconds) LAT_SECONDS=${2-} ;;
		--rate) LAT_RATE=${2-} ;;
		--compression) COMPRESSION=${2-} ;;
		--tables) TABLES=${2-} ;;
		--kafka-properties) KAFKA_PROPS=${2-} ;;
		--avro) AVRO=1; OPT_WORDS=1; return ;;
		*) OPT_WORDS=0; return ;;
	esac
	(($# >= 2)) || die "$1 needs a value"
}

parse_args()
{
	parse_options stream_option "$@"
	[[ $COMPRESSION =~ ^(none|gzip|snappy|lz4|zstd)$ ]] || die "--compression: none, gzip, snappy, lz4 or zstd"
	check_uints ROWS TXN_ROWS REPEAT LAT_SECONDS LAT_RATE PARTITIONS PG_PORT KAFKA_PORT
	[[ $TABLES =~ ^[0-9]+$ ]] && ((10#$TABLES <= 9999)) || die "--tables: 0 to 9999"
	((TABLES == 0)) || PERF_RUN=tall_1
}

# pgbench and pg_recvlogical, besides bench/lib.sh's tools.
stream_prereqs()
{
	local pkgs=()
	[[ -x $PGBIN/pgbench || -x /usr/bin/pgbench ]] || pkgs+=(postgresql-client-15)
	[[ -x $PGBIN/pg_recvlogical ]] || pkgs+=(postgresql-client-15)
	check_prereqs "${pkgs[@]}"
}

# ---- schema -----------------------------------------------------------------------

create_schema()
{
	{
		echo "CREATE EXTENSION cdc_kafka;"
		echo "SELECT cdc_kafka.stop();"
		bench_rows_ddl
		cat <<'EOF'

-- (c): each row carries the time it was inserted
CREATE TABLE lat_rows (
	id          bigserial PRIMARY KEY,
	qty         int NOT NULL,
	label       text NOT NULL,
	amount      numeric(12,2),
	placed_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
	paid        boolean NOT NULL,
	inserted_us bigint NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
);

-- Both exist before any load (pgoutput reads publications as of each change).
-- Not FOR ALL TABLES: that would also capture cdc_kafka.worker_state, which
-- cdc_kafka.start() and stop() update, and add its records to the runs.
CREATE PUBLICATION cdc_kafka FOR TABLE bench_rows, lat_rows;
CREATE PUBLICATION dbz_publication FOR TABLE bench_rows;

EOF
		bench_wait_functions
	} | bench_psql >/dev/null
	if [[ $(q "SELECT count(*) FROM pg_settings WHERE name = 'cdc_kafka.snapshot_mode'") == 1 ]]; then
		q "ALTER SYSTEM SET cdc_kafka.snapshot_mode = 'no_data'" # as Debezium's snapshot.mode here
	fi
	bench_psql -c "ALTER SYSTEM SET cdc_kafka.databases = 'bench'" -c "SELECT pg_reload_conf()" >/dev/null
	q "SELECT bench_wait_state('stopped', NULL, 60)" >/dev/null
	log "cdc_kafka worker of database bench is up (pid $(q 'SELECT pid FROM cdc_kafka.status'), stopped)"
}

# ---- the worker -------------------------------------------------------------------

# Settings of the next session: slot, topic prefix, schemas, publication
# (default cdc_kafka).  The worker is
# stopped; it re-reads its settings on the SIGHUP of the reload.
worker_configure()
{
	local schemas=$3 format=()
	# avro: schemas on, keys and values in Avro with --avro's registry
	if [[ $schemas == avro ]]; then
		schemas=on
		format=(-c "ALTER SYSTEM SET cdc_kafka.format = 'avro'"
			-c "ALTER SYSTEM SET cdc_kafka.schema_registry_url = '$REGISTRY_URL'"
			-c "ALTER SYSTEM SET cdc_kafka.schema_name_adjustment_mode = 'avro'")
	elif ((AVRO)); then
		format=(-c "ALTER SYSTEM SET cdc_kafka.format = 'json'")
	fi
	bench_psql -c "ALTER SYSTEM SET cdc_kafka.slot_name = '$1'" \
		-c "ALTER SYSTEM SET cdc_kafka.topic_prefix = '$2'" \
		-c "ALTER SYSTEM SET cdc_kafka.schemas = '$schemas'" \
		-c "ALTER SYSTEM SET cdc_kafka.publication_name = '${4:-cdc_kafka}'" \
		"${format[@]}" -c "SELECT pg_reload_conf()" >/dev/null
	sleep 1
}

# --avro: a schema registry next to the broker (Apicurio, in memory).
start_registry()
{
	((AVRO)) || return 0
	log "starting a schema registry on port $REGISTRY_PORT (test/registry/registry.sh)"
	REGISTRY_URL=$(bash "$ROOT/test/registry/registry.sh" start --dir "$WORK/registry" --port "$REGISTRY_PORT") ||
		die "the schema registry did not start"
}

stop_registry()
{
	[[ -z $REGISTRY_URL ]] || ((KEEP)) ||
		bash "$ROOT/test/registry/registry.sh" stop --dir "$WORK/registry" >/dev/null 2>&1 || true
}


# Wait for `target` acknowledged records; prints "records last_ack slot".
wait_acked()
{
	bench_psql -F ' ' -c "SELECT records, last_ack, slot FROM bench_wait_acked($1, $TIMEOUT)"
}

# Every topic of the run, created before anything is measured.
make_topics()
{
	local r topics=(lat.public.lat_rows b_on.public.bench_rows b_off.public.bench_rows)
	for ((r = 1; r <= REPEAT; r++)); do
		topics+=("a_on_$r.public.bench_rows" "a_off_$r.public.bench_rows" "k_on_$r.alone" "k_off_$r.alone")
		((!AVRO)) || topics+=("a_avro_$r.public.bench_rows")
	done
	((!DEBEZIUM)) || topics+=(dbz.public.bench_rows)
	for ((r = 1; r <= REPEAT && TABLES > 0; r++)); do topics+=("t1_$r.public.bench_rows"); done
	for ((r = 1; r <= TABLES; r++)); do topics+=("$(printf 'tn.public.many_%04d' "$r")"); done
	create_topics "${topics[@]}"
}

# ---- (a) catch-up ------------------------------------------------------------------------

create_catchup_slots()
{
	local r
	for ((r = 1; r <= REPEAT; r++)); do
		bench_psql -c "SELECT 1 FROM pg_create_logical_replication_slot('bench_floor_$r', 'test_decoding')" \
			-c "SELECT 1 FROM pg_create_logical_replication_slot('bench_on_$r', 'cdc_kafka')" \
			-c "SELECT 1 FROM pg_create_logical_replication_slot('bench_off_$r', 'cdc_kafka')" >/dev/null
		((!AVRO)) || create_slot "bench_avro_$r"
	done
	((!DEBEZIUM)) || q "SELECT 1 FROM pg_create_logical_replication_slot('bench_dbz', 'pgoutput')" >/dev/null
}

load_for_catchup()
{
	local times
	log "loading $ROWS rows in transactions of $TXN_ROWS (every streamer stopped)"
	times=$(load_rows)
	END_LSN=$(q "SELECT pg_current_wal_insert_lsn()")
	q "CHECKPOINT" >/dev/null
	log "load took $(calc "$(cut -d' ' -f3 <<<"$times") - $(cut -d' ' -f1 <<<"$times")" '%.1f') s;" \
		"$(q "SELECT pg_size_pretty(pg_wal_lsn_diff('$END_LSN', min(restart_lsn))) FROM pg_replication_slots") of WAL to stream"
}

run_floor()
{
	local key=$1 slot=$2 t0 t1 confirmed
	t0=$EPOCHREALTIME
	"$PGBIN/pg_recvlogical" -h "$PGSOCK" -p "$PG_PORT" -U bench -d bench -S "$slot" \
		--start --endpos "$END_LSN" --no-loop -f /dev/null 2>"$WORK/recvlogical.err" ||
		die "pg_recvlogical failed: $(tail -n 3 "$WORK/recvlogical.err")"
	t1=$EPOCHREALTIME
	confirmed=$(q "SELECT confirmed_flush_lsn >= '$END_LSN' FROM pg_replication_slots WHERE slot_name = '$slot'")
	[[ $confirmed == t ]] || die "pg_recvlogical stopped before $END_LSN on slot $slot"
	SECS[$key]=$(calc "$t1 - $t0")
	log "  floor (pg_recvlogical, test_decoding): ${SECS[$key]} s"
}

# One catch-up of the worker: run key, slot, topic prefix, schemas (on/off),
# and the publication (default cdc_kafka, whose table is bench_rows; another
# one's topics are not checked nor timed here).
run_cdc_catchup()
{
	local key=$1 slot=$2 prefix=$3 schemas=$4 pub=${5:-cdc_kafka} base pid t0 records last_ack used bytes0
	worker_configure "$slot" "$prefix" "$schemas" "$pub"
	base=$(records_sent)
	bytes0=$(q "SELECT bytes_sent FROM cdc_kafka.status")
	pid=$(worker_pid)
	measure_begin "$pid"
	if ((PERF)) && [[ $key == "$PERF_RUN" ]]; then perf_begin "$pid"; fi
	t0=$(worker_start)
	read -r records last_ack used <<<"$(wait_acked $((base + ROWS)))"
	if [[ -n $PERF_PID ]] && [[ $key == "$PERF_RUN" ]]; then perf_end; fi
	measure_end "$pid" "$key"
	worker_stop
	[[ $used == "$slot" ]] || die "the worker streamed slot $used, not $slot (settings not reloaded in time?)"
	((records == base + ROWS)) || die "the worker acknowledged $((records - base)) records, expected $ROWS"
	if [[ $pub == cdc_kafka ]]; then
		check_topic "$prefix.public.bench_rows" "$ROWS"
		kafka_times "$key" "$prefix.public.bench_rows" "$t0"
	fi
	SECS[$key]=$(calc "$last_ack - $t0")
	BYTES[$key]=$(calc "($(q "SELECT bytes_sent FROM cdc_kafka.status") - $bytes0) / $ROWS" '%.0f')
	log "  cdc_kafka schemas=$schemas: ${SECS[$key]} s, worker CPU ${CPU[$key]} s, VmHWM ${HWM[$key]} MB," \
		"${BYTES[$key]} B/record"
}

# The same number of messages, of the same size and with the same headers as
# a sample of cdc_kafka's records, from kcat (librdkafka too, acks=all,
# idempotent): the producer client and the broker alone, no PostgreSQL.
# Keys are left out (their bytes are in the value), so partitions are random.
# Run key, sample topic, topic to fill.
run_kafka_alone()
{
	local key=$1 sample=$2 topic=$3 value line headers=() t0 t1 user sys
	value=$(kcat -C -b "$BS" -t "$sample" -p 0 -o beginning -c 1 -e -q -f '%k%s\n')
	while IFS= read -r line; do
		[[ -z $line ]] || headers+=(-H "$line")
	done < <(kcat -C -b "$BS" -t "$sample" -p 0 -o beginning -c 1 -e -q -f '%h\n' |
		sed 's/,__debezium\./\n__debezium./g')
	BROKER_CPU0=$(cpu_ticks "$BROKER_PID")
	t0=$EPOCHREALTIME
	{ yes -- "$value" || true; } |
		/usr/bin/time -f '%U %S' -o "$WORK/kcat-alone.time" kcat -P -b "$BS" -t "$topic" -c "$ROWS" \
			-X acks=all -X enable.idempotence=true -z "$COMPRESSION" "${headers[@]}" 2>"$WORK/kcat-alone.err" ||
		die "kcat could not produce to $topic: $(tail -n 3 "$WORK/kcat-alone.err")"
	t1=$EPOCHREALTIME
	BROKER_CPU[$key]=$(calc "($(cpu_ticks "$BROKER_PID") - $BROKER_CPU0) / $CLK_TCK" '%.2f')
	read -r user sys <"$WORK/kcat-alone.time"
	CPU[$key]=$(calc "$user + $sys" '%.2f')
	check_topic "$topic" "$ROWS"
	kafka_times "$key" "$topic" "$t0"
	SECS[$key]=$(calc "$t1 - $t0")
	log "  Kafka alone (kcat, ${#value}-byte values): ${SECS[$key]} s, kcat CPU ${CPU[$key]} s"
}

phase_catchup()
{
	local r
	create_catchup_slots
	load_for_catchup
	LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
	for ((r = 1; r <= REPEAT; r++)); do
		log "(a) catch-up, round $r of $REPEAT"
		run_floor "floor_$r" "bench_floor_$r"
		run_cdc_catchup "on_$r" "bench_on_$r" "a_on_$r" on
		run_cdc_catchup "off_$r" "bench_off_$r" "a_off_$r" off
		((!AVRO)) || run_cdc_catchup "avro_$r" "bench_avro_$r" "a_avro_$r" avro
		run_kafka_alone "kon_$r" "a_on_$r.public.bench_rows" "k_on_$r.alone"
		run_kafka_alone "koff_$r" "a_off_$r.public.bench_rows" "k_off_$r.alone"
	done
	if ((DEBEZIUM)); then
		log "(a) catch-up, Debezium"
		run_debezium dbz bench_dbz dbz "$COMPRESSION"
	fi
	# the slots are done with: let their WAL go
	q "SELECT count(pg_drop_replication_slot(slot_name)) FROM pg_replication_slots
	    WHERE slot_name LIKE 'bench\_%' AND NOT active" >/dev/null
}

# ---- (b) streaming while loading ------------------------------------------------------------

run_cdc_live()
{
	local key=$1 slot=$2 prefix=$3 schemas=$4 base pid tstart tfirst tlast records last_ack used
	bench_psql -c "TRUNCATE bench_rows" -c "CHECKPOINT" >/dev/null
	create_slot "$slot"
	worker_configure "$slot" "$prefix" "$schemas"
	worker_start >/dev/null
	q "SELECT bench_wait_state('streaming', '$slot', 60)" >/dev/null
	base=$(records_sent)
	pid=$(worker_pid)
	measure_begin "$pid"
	read -r tstart tfirst tlast <<<"$(load_rows)"
	read -r records last_ack used <<<"$(wait_acked $((base + ROWS)))"
	measure_end "$pid" "$key"
	worker_stop
	((records == base + ROWS)) || die "the worker acknowledged $((records - base)) records, expected $ROWS"
	check_topic "$prefix.public.bench_rows" "$ROWS"
	kafka_times "$key" "$prefix.public.bench_rows" "$tfirst"
	SECS[$key]=$(calc "$last_ack - $tfirst")
	LOAD_S[$key]=$(calc "$tlast - $tstart")
	TAIL_S[$key]=$(calc "$last_ack - $tlast")
	log "  cdc_kafka schemas=$schemas: load ${LOAD_S[$key]} s, first commit -> last ack ${SECS[$key]} s," \
		"last commit -> last ack ${TAIL_S[$key]} s"
}

phase_live()
{
	log "(b) streaming while loading"
	run_cdc_live live_on bench_live_on b_on on
	run_cdc_live live_off bench_live_off b_off off
}

# ---- (c) latency ----------------------------------------------------------------------------

# Per record of the topic: row id, then commit->append, commit->encoded,
# encoded->append, insert->append in ms; tab-separated.
latency_samples()
{
	kcat -C -b "$BS" -t "$1" -o beginning -e -q -f '%T %s\n' 2>"$WORK/kcat-latency.err" |
		awk '
		function num(re,   s) {
			if (!match($0, re)) return -1
			s = substr($0, RSTART, RLENGTH)
			sub(/.*:/, "", s)
			return s + 0
		}
		{
			kafka = $1 + 0
			src = -1
			if (match($0, /"source":\{[^}]*\}/)) {
				block = substr($0, RSTART, RLENGTH)
				if (match(block, /"ts_us":[0-9]+/)) src = substr(block, RSTART + 8, RLENGTH - 8) + 0
			}
			id = num("\"after\":\\{\"id\":[0-9]+")
			enc = num("\"op\":\"c\",\"ts_ms\":[0-9]+,\"ts_us\":[0-9]+")
			ins = num("\"inserted_us\":[0-9]+")
			if (src < 0 || enc < 0 || ins < 0 || id < 0) { bad++; next }
			printf "%d\t%.3f\t%.3f\t%.3f\t%.3f\n", id, kafka - src / 1000, (enc - src) / 1000,
				kafka - enc / 1000, kafka - ins / 1000
		}
		END { if (bad) print bad " records without the expected fields" > "/dev/stderr" }'
}

# p50 p99 p99.9 max of column $2 of file $1 (nearest rank).
percentiles()
{
	cut -f "$2" "$1" | sort -g | awk '
		function rank(p,   i) { i = int(p * NR); if (i < p * NR) i++; return i < 1 ? 1 : i }
		{ v[NR] = $1 }
		END { printf "%.1f %.1f %.1f %.1f", v[rank(0.5)], v[rank(0.99)], v[rank(0.999)], v[NR] }'
}

# pgbench committing single-row INSERTs at --rate for $1 seconds; output in $2.
run_pgbench()
{
	"$PGBIN/pgbench" -n -h "$PGSOCK" -p "$PG_PORT" -U bench -f "$WORK/latency.sql" \
		-R "$LAT_RATE" -T "$1" -c 4 -j 2 bench >"$2" 2>&1 || die "pgbench failed: $(tail -n 5 "$2")"
}

# The worker's session starts with a new producer, whose first records wait
# for its start (broker connection, producer id, topic metadata: ~1 s here).
# So the rate runs LAT_WARMUP seconds first; records of those rows are
# reported apart (warm-up max) and left out of the percentiles.
phase_latency()
{
	local topic=lat.public.lat_rows n base warm_id all=$WORK/latency-all.tsv samples=$WORK/latency.tsv col
	log "(c) latency: $LAT_RATE single-row transactions per second, ${LAT_WARMUP} s warm-up + $LAT_SECONDS s"
	cat >"$WORK/latency.sql" <<'SQL'
\set q random(1, 1000000)
INSERT INTO lat_rows (qty, label, amount, paid) VALUES (:q, 'order ' || :q || ' for Zoë', :q / 100.0, :q % 2 = 0);
SQL
	create_slot bench_latency
	worker_configure bench_latency lat on
	worker_start >/dev/null
	q "SELECT bench_wait_state('streaming', 'bench_latency', 60)" >/dev/null
	base=$(records_sent)
	run_pgbench "$LAT_WARMUP" "$WORK/pgbench-warmup.out"
	warm_id=$(q "SELECT coalesce(max(id), 0) FROM lat_rows")
	run_pgbench "$LAT_SECONDS" "$WORK/pgbench.out"
	n=$(q "SELECT count(*) FROM lat_rows")
	wait_acked $((base + n)) >/dev/null
	worker_stop
	latency_samples "$topic" >"$all"
	[[ $(wc -l <"$all") == "$n" ]] || die "read $(wc -l <"$all") records back from $topic, expected $n"
	awk -v w="$warm_id" '$1 > w' "$all" | cut -f 2- >"$samples"
	LAT[n]=$(wc -l <"$samples")
	LAT[warm_max]=$(awk -v w="$warm_id" '$1 <= w && $2 > m {m = $2} END {printf "%.0f", m}' "$all")
	LAT[tps]=$(sed -nE 's/^tps = ([0-9.]+).*/\1/p' "$WORK/pgbench.out" | sed -n 1p)
	for col in 1 2 3 4; do LAT[$col]=$(percentiles "$samples" "$col"); done
	log "  ${LAT[n]} records; commit -> append p50/p99/p99.9/max: ${LAT[1]} ms"
}

# ---- (d) many tables ------------------------------------------------------------------------

# --tables N tables shaped like bench_rows, many_0001 .. many_N, in their own
# publication (cdc_kafka_many)
create_many_tables()
{
	local t names=()
	for ((t = 1; t <= TABLES; t++)); do names+=("$(printf 'many_%04d' "$t")"); done
	{
		for t in "${names[@]}"; do echo "CREATE TABLE $t (LIKE bench_rows INCLUDING ALL);"; done
		echo "CREATE PUBLICATION cdc_kafka_many FOR TABLE $(IFS=,; echo "${names[*]}");"
	} | bench_psql >/dev/null
}

# Before anything is measured, the N tables' topics take a round's rows
# once, as the one table's topic was warmed up (warm_up_kafka).  The first
# round of writes into 3,000 new partitions took this machine's broker 20 to
# 40 times longer than the next ones, most of it in the kernel reclaiming
# page cache: each partition's two index files are 10 MB sparse files the
# broker maps, and the VM's disk reads ahead 8 MB on a fault.
warm_up_many_topics()
{
	log "(d) $TABLES tables: their topics' first writes, $ROWS rows (not measured)"
	{
		echo "TRUNCATE $(seq -f 'many_%04g' -s ', ' 1 "$TABLES");"
		echo "SELECT 1 FROM pg_create_logical_replication_slot('tables_warm', 'cdc_kafka');"
	} | bench_psql >/dev/null
	WORKLOAD_TABLES=$TABLES load_rows >/dev/null
	run_cdc_catchup twarm tables_warm tn on cdc_kafka_many
	q "SELECT pg_drop_replication_slot('tables_warm')" >/dev/null
}

# Per round: --rows rows into bench_rows (one topic), then the same number
# spread over the N tables (N topics, each transaction touching them all),
# each load streamed (schemas on) by a slot created just before it.
phase_tables()
{
	local r
	((TABLES > 0)) || return 0
	log "(d) $TABLES tables: creating them"
	create_many_tables
	warm_up_many_topics
	for ((r = 1; r <= REPEAT; r++)); do
		log "(d) $TABLES tables, round $r of $REPEAT: loading $ROWS rows into 1 table, then $ROWS into $TABLES"
		{
			echo "TRUNCATE bench_rows, $(seq -f 'many_%04g' -s ', ' 1 "$TABLES");"
			echo "SELECT 1 FROM pg_create_logical_replication_slot('tables_one_$r', 'cdc_kafka');"
		} | bench_psql >/dev/null
		WORKLOAD_TABLES=0 load_rows >/dev/null
		create_slot "tables_all_$r"
		WORKLOAD_TABLES=$TABLES load_rows >/dev/null
		q "CHECKPOINT" >/dev/null
		run_cdc_catchup "tone_$r" "tables_one_$r" "t1_$r" on
		run_cdc_catchup "tall_$r" "tables_all_$r" tn on cdc_kafka_many
		q "SELECT pg_drop_replication_slot('tables_one_$r'), pg_drop_replication_slot('tables_all_$r')" >/dev/null
	done
}

# ---- report ---------------------------------------------------------------------------------

# Over the rounds of run kind $1: median seconds (and all of them), start-up,
# steady rate and CPU; the highest memory.
summarise_rounds()
{
	local kind=$1 r all='' cpus='' rss=0 anon=0 hwm=0 bcpu='' startup='' steady=''
	for ((r = 1; r <= REPEAT; r++)); do
		all+="${SECS[${kind}_$r]} "
		startup+="${STARTUP_S[${kind}_$r]:-} "
		steady+="${STEADY[${kind}_$r]:-} "
		cpus+="${CPU[${kind}_$r]:-} "
		bcpu+="${BROKER_CPU[${kind}_$r]:-} "
		rss=$(max_of "$rss" "${RSS[${kind}_$r]:-0}")
		anon=$(max_of "$anon" "${ANON[${kind}_$r]:-0}")
		hwm=$(max_of "$hwm" "${HWM[${kind}_$r]:-0}")
	done
	SECS[$kind]=$(median <<<"$all")
	SECS[${kind}_all]=${all% }
	CPU[$kind]=$(median <<<"$cpus")
	BROKER_CPU[$kind]=$(median <<<"$bcpu")
	STARTUP_S[$kind]=$(median <<<"$startup")
	STEADY[$kind]=$(median <<<"$steady")
	RSS[$kind]=$rss ANON[$kind]=$anon HWM[$kind]=$hwm
}

throughput_line()
{
	local label=$1 key=$2 floor=$3 dbz=$4
	awk -v l="$label" -v s="${SECS[$key]}" -v n="$ROWS" -v f="$floor" -v d="$dbz" \
		-v st="${STARTUP_S[$key]:--}" -v sr="${STEADY[$key]:--}" -v all="${SECS[${key}_all]:-}" \
		'BEGIN { rate = n / s
		         xd = (d > 0) ? sprintf("%.2f", rate / d) : "-"
		         if (st != "-") st = sprintf("%.2f", st)
		         if (sr != "-") sr = sprintf("%.0f", sr)
		         printf "%-28s %8.2f %9.0f %7.2f %6s %9s %9s  %s\n", l, s, rate, rate / f, xd, st, sr, all }'
}

# One line of a resources table: label, run key.
resources_line()
{
	awk -v l="$1" -v c="${CPU[$2]:--}" -v b="${BROKER_CPU[$2]:--}" -v r="${RSS[$2]:--}" \
		-v a="${ANON[$2]:--}" -v h="${HWM[$2]:--}" \
		'BEGIN { if (c != "-") c = sprintf("%.2f", c)
		         if (b != "-") b = sprintf("%.2f", b)
		         printf "%-28s %7s %8s %7s %7s %7s\n", l, c, b, r, a, h }'
}

throughput_header()
{
	printf '%-28s %8s %9s %7s %6s %9s %9s  %s\n' run seconds rows/s x_floor x_dbz startup_s steady/s "$1"
}

resources_header() { printf '%-28s %7s %8s %7s %7s %7s\n' "$1" cpu_s broker_s rss_MB anon_MB hwm_MB; }

report_catchup()
{
	local floor_rate=$1 dbz_rate=$2
	echo "(a) catch-up: rows already committed, streamer started, timed to the last Kafka acknowledgement"
	throughput_header all_s
	throughput_line "floor: pg_recvlogical" floor "$floor_rate" "$dbz_rate"
	throughput_line "cdc_kafka schemas=on" on "$floor_rate" "$dbz_rate"
	throughput_line "cdc_kafka schemas=off" off "$floor_rate" "$dbz_rate"
	((!AVRO)) || throughput_line "cdc_kafka format=avro" avro "$floor_rate" "$dbz_rate"
	((!DEBEZIUM)) || throughput_line "Debezium 3.6.1 (schemas on)" dbz "$floor_rate" "$dbz_rate"
	throughput_line "Kafka alone, on-size msgs" kon "$floor_rate" "$dbz_rate"
	throughput_line "Kafka alone, off-size msgs" koff "$floor_rate" "$dbz_rate"
	echo "    x_floor round by round (median): schemas=on $(round_ratios floor on), schemas=off $(round_ratios floor off)," \
		"Kafka alone on-size $(round_ratios floor kon)"
	if ((AVRO)); then
		echo "    format=avro against schemas=on, rate round by round (median): $(round_ratios on avro);" \
			"bytes per record (status.bytes_sent, first round): on ${BYTES[on_1]}, off ${BYTES[off_1]}," \
			"avro ${BYTES[avro_1]} ($(calc "${BYTES[avro_1]} / ${BYTES[on_1]}" '%.3f')x on)"
	fi
	resources_header "    resources"
	resources_line "cdc_kafka schemas=on" on
	resources_line "cdc_kafka schemas=off" off
	((!AVRO)) || resources_line "cdc_kafka format=avro" avro
	resources_line "Kafka alone, on-size msgs" kon
	resources_line "Kafka alone, off-size msgs" koff
	((!DEBEZIUM)) || resources_line "Debezium 3.6.1 (schemas on)" dbz
}

report_live()
{
	local floor_rate=$1 dbz_rate=$2 key
	echo "(b) streaming while loading: first commit to the last Kafka acknowledgement"
	for key in live_on live_off; do SECS[${key}_all]="${LOAD_S[$key]} ${TAIL_S[$key]}"; done
	throughput_header 'load_s tail_s'
	throughput_line "cdc_kafka schemas=on" live_on "$floor_rate" "$dbz_rate"
	throughput_line "cdc_kafka schemas=off" live_off "$floor_rate" "$dbz_rate"
	resources_header "    resources"
	resources_line "cdc_kafka schemas=on" live_on
	resources_line "cdc_kafka schemas=off" live_off
}

report_latency()
{
	echo "(c) latency, schemas=on: ${LAT[n]} single-row transactions at $LAT_RATE/s (pgbench: ${LAT[tps]} tps)," \
		"after ${LAT_WARMUP} s at that rate (warm-up max: ${LAT[warm_max]} ms)"
	printf '%-36s %7s %7s %7s %7s\n' 'ms, per record' p50 p99 p99.9 max
	printf '%-36s %7s %7s %7s %7s\n' "commit -> Kafka append" ${LAT[1]}
	printf '%-36s %7s %7s %7s %7s\n' "  commit -> worker encodes" ${LAT[2]}
	printf '%-36s %7s %7s %7s %7s\n' "  worker encodes -> Kafka append" ${LAT[3]}
	printf '%-36s %7s %7s %7s %7s\n' "insert (clock_timestamp) -> append" ${LAT[4]}
}

report_tables()
{
	local one_rate
	echo "(d) $TABLES tables: $ROWS rows into 1 table, and $ROWS spread over $TABLES tables ($TABLES topics," \
		"$TXN_ROWS rows a transaction, each touching every table); schemas=on catch-up, median of $REPEAT rounds"
	summarise_rounds tone
	summarise_rounds tall
	one_rate=$(calc "$ROWS / ${SECS[tone]}" '%.3f')
	printf '%-28s %8s %9s %7s  %s\n' run seconds rows/s x_one all_s
	awk -v s="${SECS[tone]}" -v n="$ROWS" -v o="$one_rate" -v all="${SECS[tone_all]}" \
		'BEGIN { printf "%-28s %8.2f %9.0f %7.2f  %s\n", "cdc_kafka, 1 table", s, n / s, n / s / o, all }'
	awk -v l="cdc_kafka, $TABLES tables" -v s="${SECS[tall]}" -v n="$ROWS" -v o="$one_rate" -v all="${SECS[tall_all]}" \
		'BEGIN { printf "%-28s %8.2f %9.0f %7.2f  %s\n", l, s, n / s, n / s / o, all }'
	echo "    x_one round by round (median): $(round_ratios tone tall)"
	resources_header "    resources"
	resources_line "cdc_kafka, 1 table" tone
	resources_line "cdc_kafka, $TABLES tables" tall
}

report_targets()
{
	local floor_rate=$1 ratio verdict p99
	echo "targets:"
	ratio=$(round_ratios floor on | sed -E 's/.*\((.*)\)/\1/')
	verdict=$(awk -v r="$ratio" 'BEGIN {print (r >= 1.0) ? "PASS" : "MISS"}')
	printf '  %-48s measured %7s   %s\n' "catch-up, schemas=on >= 1.0 x floor (per round)" "${ratio}x" "$verdict"
	printf '  %-48s measured %7s   (reference, no target)\n' "catch-up, schemas=on / Kafka alone (kcat)" \
		"$(calc "${SECS[kon]} / ${SECS[on]}" '%.2f')x"
	if ((TABLES > 0)); then
		ratio=$(round_ratios tone tall | sed -E 's/.*\((.*)\)/\1/')
		verdict=$(awk -v r="$ratio" 'BEGIN {print (r >= 0.9) ? "PASS" : "MISS"}')
		printf '  %-48s measured %7s   %s\n' "$TABLES tables >= 0.9 x 1 table (per round)" "${ratio}x" "$verdict"
	fi
	p99=$(cut -d' ' -f2 <<<"${LAT[1]}")
	verdict=$(awk -v p="$p99" 'BEGIN {print (p <= 5) ? "PASS" : "MISS"}')
	printf '  %-48s measured %7s   %s\n' "latency commit -> Kafka, p99 <= 5 ms" "${p99} ms" "$verdict"
	((!PERF)) || echo "(--perf: the first schemas=on catch-up ran under perf record)"
}

report()
{
	local floor_rate dbz_rate=0
	summarise_rounds floor
	summarise_rounds on
	summarise_rounds off
	summarise_rounds kon
	summarise_rounds koff
	((!AVRO)) || summarise_rounds avro
	RSS[kon]=- ANON[kon]=- HWM[kon]=- RSS[koff]=- ANON[koff]=- HWM[koff]=- # kcat's memory is not sampled
	floor_rate=$(calc "$ROWS / ${SECS[floor]}" '%.3f')
	((!DEBEZIUM)) || dbz_rate=$(calc "$ROWS / ${SECS[dbz]}" '%.3f')

	echo "cdc_kafka streaming benchmark (bench/stream.sh), $(date -u '+%Y-%m-%d %H:%M UTC')"
	versions "before the catch-up runs"
	echo "workload:   $ROWS INSERTs in transactions of $TXN_ROWS (bench/decode.sh's table);" \
		"catch-up: median of $REPEAT rounds; compression.type=$COMPRESSION"
	echo
	report_catchup "$floor_rate" "$dbz_rate"
	echo
	report_live "$floor_rate" "$dbz_rate"
	echo
	report_latency
	echo
	if ((TABLES > 0)); then
		report_tables
		echo
	fi
	report_targets "$floor_rate"
}

main()
{
	parse_args "$@"
	stream_prereqs
	trap 'st=$?; stop_registry; (exit $st); cleanup' EXIT
	trap 'exit 130' INT TERM
	make_workdir
	start_kafka
	start_registry
	start_postgres "cdc_kafka.kafka_properties = 'compression.type=$COMPRESSION${KAFKA_PROPS:+; $KAFKA_PROPS}'"
	create_schema
	warm_up_kafka
	make_topics
	phase_catchup
	phase_live
	phase_latency
	phase_tables
	report | tee "$WORK/summary.txt"
	record_results "$WORK/summary.txt" "## Streaming benchmark: latest run of bench/stream.sh"
}

main "$@"
