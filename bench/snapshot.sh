#!/usr/bin/env bash
#
# bench/snapshot.sh -- how fast does cdc_kafka's initial snapshot send a
# table's existing rows to Kafka, against the cheapest way to read the same
# table out of PostgreSQL (COPY to /dev/null) and against Debezium's initial
# snapshot of it?
#
# WHAT IT MEASURES (one run measures everything; only same-run ratios count)
#   One table of --rows rows (bench/decode.sh's: bigint primary key, int,
#   text of 20-40 characters, numeric(12,2), timestamptz, boolean), loaded
#   once, VACUUM ANALYZE, its heap and index read into shared buffers
#   (pg_prewarm; shared_buffers = 1GB), then, interleaved, --repeat rounds of:
#     COPY            COPY bench_rows TO '/dev/null' (server side, as
#                     superuser): the floor, reading and formatting every row
#                     and nothing else; psql's \timing of the statement
#     COPY ordered    COPY (SELECT * FROM bench_rows ORDER BY id) TO
#                     '/dev/null': the same in key order, as the snapshot
#                     reads (an index scan)
#     cdc_kafka       the worker's initial snapshot (cdc_kafka.snapshot_mode
#                     = initial, the default), in three variants:
#                       schemas=on, lz4     the defaults (JsonConverter
#                                           schemas on; the producer's
#                                           compression.type is lz4 unless
#                                           kafka_properties says otherwise)
#                       schemas=off, lz4
#                       schemas=on, none    cdc_kafka.kafka_properties =
#                                           'compression.type=none'
#                     A round: the extension and the slot are gone (the
#                     worker waits for CREATE EXTENSION); a fresh slot_name,
#                     topic_prefix, schemas and kafka_properties are set
#                     (ALTER SYSTEM + reload); CREATE EXTENSION cdc_kafka and
#                     cdc_kafka.start() (which wakes the worker at once,
#                     rather than at its next 5-second check).  The worker
#                     creates its slot, adopts the slot's snapshot and reads
#                     the table through a cursor in key order.  Timed from
#                     its log line "cdc_kafka created replication slot ...;
#                     initial snapshot of 1 tables" to "cdc_kafka finished
#                     the initial snapshot of slot ..." (log_line_prefix %m:
#                     milliseconds), which it writes once Kafka acknowledged
#                     every record (acks=all).  So the time includes the
#                     start of a new producer (its connection to the broker)
#                     but not the slot's creation.  Then stop(), drop_slot(),
#                     DROP EXTENSION.  Checked: the worker acknowledged
#                     --rows records (cdc_kafka.status), the topic holds
#                     --rows messages (kcat -Q end offsets), the first 100
#                     and the last message of every partition are op "r",
#                     one of them marked snapshot "first", one "last".
#     cdc_kafka incremental  the same rows read by an incremental snapshot
#                     under load (issue 13's target: at least 0.5x the
#                     initial snapshot's rows/s, schemas=on, lz4, same round):
#                     the worker streams from a new slot taken without a
#                     snapshot (snapshot_mode no_data), pgbench UPDATEs
#                     random rows at --inc-rate per second (single-row
#                     transactions, 2 clients), and cdc_kafka.snapshot(
#                     'bench_rows') reads the table in chunks of
#                     incremental_snapshot_chunk_size (1024) rows between
#                     watermarks.  Timed from the log line "incremental
#                     snapshot N of ... started" to "incremental snapshot N
#                     done, R rows", written once the slot is past the last
#                     chunk.  Checked: the worker acknowledged, and the
#                     topic holds, the R reads plus every committed UPDATE
#                     (counted by sum(qty), which each adds 1 to); R is
#                     --rows less the rows an UPDATE changed while their
#                     chunk was open (their reads are dropped, as DBLog
#                     and Debezium do).
#   and, after the rounds (its runs are slow), Debezium 3.6.1's initial
#   snapshot of the same table (bench/debezium: embedded engine, pgoutput,
#   JsonConverter with schemas, snapshot.mode=initial on a slot that does not
#   exist yet, so that the connector creates it and reads the table in the
#   snapshot it exported, as the worker does; table.include.list = the
#   table), its records produced by a KafkaProducer (acks=all, idempotent,
#   librdkafka's batching budget), once per --dbz-compression codec (lz4 and
#   none: each compared with the cdc_kafka schemas=on variant of the same
#   compression), --dbz-repeat times each.  Timed inside its JVM from the
#   engine's start (JVM start-up not counted; the slot's creation is) to the
#   acknowledgement of the last of the --rows records.  The same topic
#   checks.
#   rows/s = --rows / seconds; the median over the rounds is shown.
#
# HOW TO READ THE OUTPUT (stdout, also written into bench/RESULTS.md; progress
# goes to stderr)
#   seconds    median time (cdc_kafka: between the two log lines)
#   rows/s     --rows / seconds
#   x_copy     rows/s / plain COPY's rows/s; x_ordcopy the same against the
#              ordered COPY.  Below the table: x_copy round by round (each
#              run against the COPY of its own round) and their median, which
#              the target (schemas=on, lz4 >= 0.5) is judged on: the load of
#              a shared machine drifts between rounds
#   x_dbz      rows/s / Debezium's rows/s with the same compression
#              (schemas=off is compared with Debezium's schemas-on records)
#   startup_s  from the first log line (Debezium: the engine's start) to the
#              broker's append of the first record; steady/s: rows / (last
#              append - first append).  Topics are created beforehand with
#              message.timestamp.type=LogAppendTime.
#   B/rec      bytes per record handed to Kafka (topic, key, value and
#              headers, from cdc_kafka.status.bytes_sent; for Debezium the
#              key and value of a sample); disk_MB: the topic's size in the
#              broker's log (after compression)
#   resources  cpu_s: CPU (user+system) of the worker process (Debezium: its
#              JVM, start-up excluded); main_s: of the worker's main thread
#              (reading the table, encoding, handing records to librdkafka,
#              delivery reports), rdk_s: of librdkafka's threads (cpu_s -
#              main_s); us/row: main_s per row in microseconds; broker_s: the
#              Kafka broker's CPU; rss_MB highest VmRSS sampled every 0.2 s,
#              anon_MB highest RssAnon (private memory), hwm_MB VmHWM (reset
#              before each run).  VmRSS includes the shared buffers the worker
#              touched: the whole table.
#   PASS/MISS for issue 13's targets: schemas=on, lz4 at least 0.5x COPY
#   (per round) and 20x Debezium's lz4 run (medians); the incremental
#   snapshot at least 0.5x the initial one (per round).  This is a
#   benchmark, not a test: it exits 0 whether the targets are met or
#   missed, non-zero only when something failed
#   to run.  The machine may be shared: the load average before and after is
#   printed; only ratios from one run mean anything.
#
# THE SERVERS (throwaway, in a fresh directory: mktemp -d, or --workdir)
#   Kafka 4.4.0, one KRaft node (test/kafka/kafka.sh), 127.0.0.1:--kafka-port,
#   warmed up with 200 MB from kcat; every topic created beforehand with
#   --partitions partitions.
#   PostgreSQL 15 on 127.0.0.1:--pg-port and a socket in the directory, trust
#   authentication, superuser "bench", run as the "postgres" OS user when
#   started as root.  bench/lib.sh's settings (cdc_kafka preloaded, wal_level
#   logical, output_plugin_libraries with cdc_kafka, fsync off, autovacuum
#   off, jit off, ...) and shared_buffers = 1GB, log_line_prefix = '%m [%p] ',
#   log_timezone = UTC, cdc_kafka.databases = 'bench' (set once the database
#   exists).  Publications FOR TABLE bench_rows (cdc_kafka's, created
#   beforehand so that the worker does not create one FOR ALL TABLES, and
#   Debezium's).  Every other cdc_kafka setting is its default
#   (snapshot_fetch_size 10240, max_inflight_bytes 64MB, librdkafka's linger
#   5 ms).  The installed cdc_kafka.so is loaded when the server starts; its
#   sha256 is printed.
#
# USAGE
#   bench/snapshot.sh [--rows N] [--repeat N] [--dbz-repeat N]
#                     [--dbz-compression LIST] [--partitions N] [--pg-port N]
#                     [--kafka-port N] [--workdir DIR] [--skip-debezium]
#                     [--inc-rate N] [--perf] [--no-record] [--keep]
#     --rows N             rows of the table (default 1000000)
#     --repeat N           rounds of COPY, COPY ordered and the four
#                          cdc_kafka variants (default 3)
#     --dbz-repeat N       Debezium runs per codec (default 1)
#     --dbz-compression L  Debezium's compression.type, comma-separated
#                          (default lz4,none)
#     --partitions N       partitions of every topic (default 3)
#     --pg-port N          PostgreSQL TCP port on 127.0.0.1 (default 54369)
#     --kafka-port N       Kafka client port; N+1 is the controller's (default 39812)
#     --workdir DIR        directory for both servers (must not exist)
#     --skip-debezium      leave out the Debezium runs
#     --inc-rate N         UPDATEs per second during the incremental
#                          snapshot (default 500)
#     --perf               perf record the worker during the first
#                          schemas=on, lz4 snapshot (its figures are then
#                          slightly lower); the report goes to
#                          bench/work/snapshot-profile/
#     --no-record          do not write the figures into bench/RESULTS.md
#     --keep               leave both servers running and the directory in place
#   Needs cdc_kafka installed (make && make install, as root; installed here
#   when missing and running as root), Java 17 with Maven and kcat (apt-get
#   installs what is missing, as root or through sudo).  About 6 minutes with
#   the defaults on 2 cores; --rows 100000 --repeat 1 --skip-debezium for a
#   quick run.  Shares its helpers with bench/stream.sh (bench/lib.sh).
#
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROWS=1000000
TXN_ROWS=100000 # rows per loading transaction
REPEAT=3
DBZ_REPEAT=1
DBZ_CODECS=lz4,none
PARTITIONS=3
PG_PORT=54369
KAFKA_PORT=39812
WORKDIR=""
DEBEZIUM=1
PERF=0
RECORD=1
KEEP=0
TIMEOUT=1800 # seconds any one run may take
TARGET=0.5   # schemas=on, lz4 rows/s >= TARGET x COPY's
PERF_DIR=$HERE/work/snapshot-profile # --perf

INC_RATE=500 # --inc-rate: UPDATEs per second during the incremental snapshot
INC_TARGET=0.5 # incremental rows/s >= INC_TARGET x the initial snapshot's
DBZ_TARGET=20  # schemas=on, lz4 rows/s >= DBZ_TARGET x Debezium's (lz4)

# cdc_kafka's variants, in the order each round runs them.
VARIANTS=(on off on_none inc)
declare -A V_SCHEMAS=([on]=on [off]=off [on_none]=on [inc]=on)
declare -A V_PROPS=([on]='' [off]='' [on_none]='compression.type=none' [inc]='')
declare -A V_CODEC=([on]=lz4 [off]=lz4 [on_none]=none [inc]=lz4)
declare -A V_LABEL=([on]='cdc_kafka schemas=on, lz4' [off]='cdc_kafka schemas=off, lz4'
	[on_none]='cdc_kafka schemas=on, none' [inc]='cdc_kafka incremental, lz4')

# Figures per run key (copy_1, ord_1, on_1, off_1, on_none_1, ..., dbz_lz4_1),
# besides bench/lib.sh's.
declare -A MAIN_CPU REC_BYTES DISK_MB INC_UPDATES
LOAD_PID=''
ACKED_RECORDS=0 # the worker's records_sent and bytes_sent so far (they
ACKED_BYTES=0   # survive DROP EXTENSION: its shared memory does)
TABLE_INFO=""

# ---- options ------------------------------------------------------------------

# The options of this script alone (see common_option).
snapshot_option()
{
	OPT_WORDS=2
	case $1 in
		--dbz-repeat) DBZ_REPEAT=${2-} ;;
		--dbz-compression) DBZ_CODECS=${2-} ;;
		--inc-rate) INC_RATE=${2-} ;;
		*) OPT_WORDS=0; return ;;
	esac
	(($# >= 2)) || die "$1 needs a value"
}

parse_args()
{
	local codec
	parse_options snapshot_option "$@"
	for codec in ${DBZ_CODECS//,/ }; do
		[[ $codec =~ ^(none|gzip|snappy|lz4|zstd)$ ]] || die "--dbz-compression: none, gzip, snappy, lz4 or zstd"
	done
	check_uints ROWS REPEAT DBZ_REPEAT PARTITIONS PG_PORT KAFKA_PORT INC_RATE
	((INC_RATE > 0)) || die "--inc-rate: at least 1"
}

# ---- the table ------------------------------------------------------------------

create_schema()
{
	{
		bench_rows_ddl
		cat <<'EOF'
-- cdc_kafka's worker and Debezium capture this table alone.
CREATE PUBLICATION cdc_kafka FOR TABLE bench_rows;
CREATE PUBLICATION dbz_publication FOR TABLE bench_rows;
CREATE EXTENSION pg_prewarm;
EOF
		bench_wait_functions
	} | bench_psql >/dev/null
}

load_table()
{
	local times
	log "loading $ROWS rows in transactions of $TXN_ROWS"
	times=$(load_rows)
	bench_psql -c "VACUUM (ANALYZE) bench_rows" -c "CHECKPOINT" >/dev/null
	q "SELECT pg_prewarm('bench_rows') + pg_prewarm('bench_rows_pkey')" >/dev/null
	TABLE_INFO=$(q "SELECT pg_size_pretty(pg_table_size('bench_rows')) || ' heap, '
	                   || pg_size_pretty(pg_relation_size('bench_rows_pkey')) || ' primary key'")
	log "load took $(calc "$(cut -d' ' -f3 <<<"$times") - $(cut -d' ' -f1 <<<"$times")" '%.1f') s;" \
		"table $TABLE_INFO, in shared buffers"
}

# ---- the worker -------------------------------------------------------------------

worker_pid()
{
	q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker' AND datname = 'bench'"
}

# Start the database's worker; it waits for CREATE EXTENSION.
start_worker()
{
	local pid='' i
	bench_psql -c "ALTER SYSTEM SET cdc_kafka.databases = 'bench'" -c "SELECT pg_reload_conf()" >/dev/null
	for ((i = 0; i < 300 && ${#pid} == 0; i++)); do
		sleep 0.2
		pid=$(worker_pid)
	done
	[[ -n $pid ]] || die "no cdc_kafka worker for database bench after 60 s"
	log "cdc_kafka worker of database bench is up (pid $pid, waiting for CREATE EXTENSION)"
}

# Settings of the next snapshot (the extension is not there: the worker waits).
worker_configure()
{
	local slot=$1 prefix=$2 schemas=$3 props=$4
	bench_psql -c "ALTER SYSTEM SET cdc_kafka.slot_name = '$slot'" \
		-c "ALTER SYSTEM SET cdc_kafka.topic_prefix = '$prefix'" \
		-c "ALTER SYSTEM SET cdc_kafka.schemas = '$schemas'" \
		-c "ALTER SYSTEM SET cdc_kafka.kafka_properties = '$props'" \
		-c "SELECT pg_reload_conf()" >/dev/null
	sleep 1
}

# After a snapshot: stop streaming, drop the slot and the extension.
worker_reset()
{
	worker_stop
	bench_psql -c "SELECT cdc_kafka.drop_slot()" -c "DROP EXTENSION cdc_kafka" >/dev/null
}

# The server log from byte offset $1 on.
log_since() { tail -c "+$(($1 + 1))" "$PGSOCK/server.log"; }

# Wait for a line of the server log (from byte offset $1) that holds $2;
# prints it.  An ERROR or FATAL line meanwhile ends the run.
wait_for_log()
{
	local from=$1 pattern=$2 deadline=$((SECONDS + TIMEOUT)) text line
	while ((SECONDS < deadline)); do
		text=$(log_since "$from")
		line=$(grep -F -m1 -- "$pattern" <<<"$text" || true)
		if [[ -n $line ]]; then
			echo "$line"
			return
		fi
		line=$(grep -E -m3 '^[^ ]+ [^ ]+ [^ ]+ \[[0-9]+\] (ERROR|FATAL|PANIC):' <<<"$text" || true)
		[[ -z $line ]] || die "the server logged: $line"
		sleep 0.1
	done
	die "timed out after $TIMEOUT s waiting for the server to log: $pattern"
}

# Epoch seconds of a log line ("%m [%p] ...", log_timezone UTC).
log_time()
{
	local d t
	read -r d t _ <<<"$1"
	date -u -d "$d $t" +%s.%N
}

# The first 100 and the last message of every partition: op "r", and one of
# them the snapshot's first record, one its last.
check_read_records()
{
	local topic=$1 p counts n r f l
	counts=$(for ((p = 0; p < PARTITIONS; p++)); do
		kcat -C -b "$BS" -t "$topic" -p "$p" -o beginning -c 100 -e -q -f "$p %o %s\n"
		kcat -C -b "$BS" -t "$topic" -p "$p" -o -1 -c 1 -e -q -f "$p %o %s\n"
	done 2>/dev/null | awk '!seen[$1 " " $2]++ { n++; if (/"op":"r"/) r++
	                                            if (/"snapshot":"first"/) f++
	                                            if (/"snapshot":"last"/) l++ }
	                        END { print n + 0, r + 0, f + 0, l + 0 }')
	read -r n r f l <<<"$counts"
	((n > 0 && r == n)) || die "topic $topic: $((n - r)) of the $n messages sampled are not op \"r\""
	((f == 1 && l == 1)) || die "topic $topic: $f messages marked snapshot \"first\" and $l \"last\" among those sampled"
}

# Size of a topic in the broker's log (MB, after compression).
topic_disk_mb()
{
	find "$WORK/kafka/node1/data" -path "*/$1-*" -name '*.log' -printf '%s\n' |
		awk '{s += $1} END {printf "%.0f", s / 1048576}'
}

# ---- the runs ---------------------------------------------------------------------

# COPY to /dev/null: run key, the table or a query in parentheses.
run_copy()
{
	local key=$1 what=$2 out ms
	out=$(bench_psql -c '\timing on' -c "COPY $what TO '/dev/null'")
	ms=$(sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' <<<"$out")
	[[ -n $ms ]] || die "no timing from psql for COPY $what: $out"
	SECS[$key]=$(calc "$ms / 1000")
	log "  COPY $what: ${SECS[$key]} s"
}

# One initial snapshot by the worker: run key, variant (on, off, on_none).
run_cdc_snapshot()
{
	local key=$1 v=$2 slot=snap_$1 prefix=s_$1 pid from main0 created finished t0 t1 records bytes
	worker_configure "$slot" "$prefix" "${V_SCHEMAS[$v]}" "${V_PROPS[$v]}"
	pid=$(worker_pid)
	[[ -n $pid ]] || die "the cdc_kafka worker is gone"
	from=$(stat -c %s "$PGSOCK/server.log")
	measure_begin "$pid"
	main0=$(cpu_ticks "$pid/task/$pid")
	if ((PERF)) && [[ $key == on_1 ]]; then perf_begin "$pid"; fi
	bench_psql -c "CREATE EXTENSION cdc_kafka" -c "SELECT cdc_kafka.start()" >/dev/null
	finished=$(wait_for_log "$from" "cdc_kafka finished the initial snapshot of slot \"$slot\"")
	MAIN_CPU[$key]=$(calc "($(cpu_ticks "$pid/task/$pid") - $main0) / $CLK_TCK" '%.2f')
	measure_end "$pid" "$key"
	if [[ -n $PERF_PID ]] && [[ $key == on_1 ]]; then perf_end; fi
	created=$(log_since "$from" | grep -F -m1 "cdc_kafka created replication slot \"$slot\"") ||
		die "no line \"created replication slot\" for $slot in the server log"
	[[ $created == *"initial snapshot of 1 tables" ]] || die "the snapshot was not of one table: $created"
	t0=$(log_time "$created")
	t1=$(log_time "$finished")
	SECS[$key]=$(calc "$t1 - $t0")
	records=$(q "SELECT records FROM bench_wait_acked($((ACKED_RECORDS + ROWS)), 60)")
	bytes=$(q "SELECT bytes_sent FROM cdc_kafka.status")
	((records - ACKED_RECORDS == ROWS)) ||
		die "the worker acknowledged $((records - ACKED_RECORDS)) records, expected $ROWS"
	REC_BYTES[$key]=$(calc "($bytes - $ACKED_BYTES) / $ROWS" '%.0f')
	ACKED_RECORDS=$records ACKED_BYTES=$bytes
	worker_reset
	check_topic "$prefix.public.bench_rows" "$ROWS"
	check_read_records "$prefix.public.bench_rows"
	kafka_times "$key" "$prefix.public.bench_rows" "$t0"
	DISK_MB[$key]=$(topic_disk_mb "$prefix.public.bench_rows")
	log "  ${V_LABEL[$v]}: ${SECS[$key]} s, worker CPU ${CPU[$key]} s (main thread ${MAIN_CPU[$key]} s)," \
		"VmHWM ${HWM[$key]} MB"
}

# pgbench UPDATEs random rows of the table at --inc-rate per second until
# killed; each adds 1 to a row's qty, so sum(qty) counts the committed ones.
start_update_load()
{
	printf '\\set id random(1, %d)\nUPDATE bench_rows SET qty = qty + 1 WHERE id = :id;\n' "$ROWS" \
		>"$WORK/updates.sql"
	"$PGBIN/pgbench" -n -h "$PGSOCK" -p "$PG_PORT" -U bench -f "$WORK/updates.sql" -R "$INC_RATE" \
		-T "$TIMEOUT" -c 2 -j 1 bench >"$WORK/pgbench.out" 2>&1 &
	LOAD_PID=$!
	BG_PIDS+=("$LOAD_PID")
}

stop_update_load()
{
	kill -TERM "$LOAD_PID" 2>/dev/null || true
	wait "$LOAD_PID" 2>/dev/null || true
	LOAD_PID=''
}

# One incremental snapshot of the table, under load: run key.  The worker
# streams from a new slot taken without a snapshot (no_data) while pgbench
# updates rows; cdc_kafka.snapshot('bench_rows') then reads the table in
# chunks between watermarks.  Timed from the log line "incremental snapshot
# N of ... started" to "incremental snapshot N done, R rows", which it writes
# once the slot is past the last chunk (every read acknowledged).  Checked:
# R = --rows, and every read and every committed UPDATE acknowledged and in
# the topic.
run_cdc_incremental()
{
	local key=$1 slot=snap_$1 prefix=s_$1 pid from main0 job started finished t0 t1 sum0 reads updates records bytes
	worker_configure "$slot" "$prefix" on ''
	bench_psql -c "ALTER SYSTEM SET cdc_kafka.snapshot_mode = 'no_data'" -c "SELECT pg_reload_conf()" >/dev/null
	pid=$(worker_pid)
	[[ -n $pid ]] || die "the cdc_kafka worker is gone"
	from=$(stat -c %s "$PGSOCK/server.log")
	bench_psql -c "CREATE EXTENSION cdc_kafka" -c "SELECT cdc_kafka.start()" >/dev/null
	wait_for_log "$from" "cdc_kafka created replication slot \"$slot\"" >/dev/null
	q "SELECT bench_wait_state('streaming', '$slot', 60)" >/dev/null
	sum0=$(q "SELECT sum(qty) FROM bench_rows")
	start_update_load
	sleep 2
	measure_begin "$pid"
	main0=$(cpu_ticks "$pid/task/$pid")
	job=$(q "SELECT cdc_kafka.snapshot('bench_rows'::regclass)")
	finished=$(wait_for_log "$from" "incremental snapshot $job done")
	MAIN_CPU[$key]=$(calc "($(cpu_ticks "$pid/task/$pid") - $main0) / $CLK_TCK" '%.2f')
	measure_end "$pid" "$key"
	stop_update_load
	reads=$(sed -nE 's/.* done, ([0-9]+) rows$/\1/p' <<<"$finished")
	updates=$(q "SELECT sum(qty) - $sum0 FROM bench_rows")
	# a read whose row changed while its chunk was open is dropped (DBLog)
	((reads <= ROWS && reads >= ROWS - updates)) ||
		die "the incremental snapshot sent $reads reads of $ROWS rows, with $updates UPDATEs: $finished"
	started=$(log_since "$from" | grep -F -m1 "incremental snapshot $job of") ||
		die "no line \"incremental snapshot $job of\" in the server log"
	t0=$(log_time "$started")
	t1=$(log_time "$finished")
	SECS[$key]=$(calc "$t1 - $t0")
	records=$(q "SELECT records FROM bench_wait_acked($((ACKED_RECORDS + reads + updates)), 120)")
	bytes=$(q "SELECT bytes_sent FROM cdc_kafka.status")
	((records - ACKED_RECORDS == reads + updates)) ||
		die "the worker acknowledged $((records - ACKED_RECORDS)) records, expected $reads reads and $updates updates"
	REC_BYTES[$key]=$(calc "($bytes - $ACKED_BYTES) / ($reads + $updates)" '%.0f')
	ACKED_RECORDS=$records ACKED_BYTES=$bytes
	INC_UPDATES[$key]="$updates/$((ROWS - reads))"
	worker_reset
	bench_psql -c "ALTER SYSTEM RESET cdc_kafka.snapshot_mode" -c "SELECT pg_reload_conf()" >/dev/null
	# no startup_s nor steady/s: the UPDATEs reach the topic before the reads
	check_topic "$prefix.public.bench_rows" "$((reads + updates))"
	DISK_MB[$key]=$(topic_disk_mb "$prefix.public.bench_rows")
	log "  ${V_LABEL[inc]}: ${SECS[$key]} s with $updates UPDATEs streamed meanwhile, worker CPU ${CPU[$key]} s" \
		"(main thread ${MAIN_CPU[$key]} s), VmHWM ${HWM[$key]} MB"
}

# Debezium's initial snapshot: run key, compression.
run_dbz_snapshot()
{
	local key=$1 codec=$2 slot=$1 prefix=$1 topic=$1.public.bench_rows
	run_debezium "$key" "$slot" "$prefix" "$codec" --snapshot-mode initial
	# the slot Debezium created, once its walsender has gone
	q "DO \$\$ BEGIN
	     FOR i IN 1 .. 100 LOOP
	       EXIT WHEN NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = '$slot' AND active);
	       PERFORM pg_sleep(0.1);
	     END LOOP;
	     PERFORM pg_drop_replication_slot('$slot');
	   END \$\$" >/dev/null
	check_read_records "$topic"
	REC_BYTES[$key]=$(kcat -C -b "$BS" -t "$topic" -p 0 -o beginning -c 1000 -e -q -f '%K %S\n' 2>/dev/null |
		awk '{s += $1 + $2; n++} END {printf "%.0f", n ? s / n : 0}')
	DISK_MB[$key]=$(topic_disk_mb "$topic")
	MAIN_CPU[$key]='-'
}

make_topics()
{
	local r v codec topics=()
	for ((r = 1; r <= REPEAT; r++)); do
		for v in "${VARIANTS[@]}"; do topics+=("s_${v}_$r.public.bench_rows"); done
	done
	if ((DEBEZIUM)); then
		for codec in ${DBZ_CODECS//,/ }; do
			for ((r = 1; r <= DBZ_REPEAT; r++)); do topics+=("dbz_${codec}_$r.public.bench_rows"); done
		done
	fi
	create_topics "${topics[@]}"
}

run_rounds()
{
	local r v codec
	bench_psql -c "COPY bench_rows TO '/dev/null'" \
		-c "COPY (SELECT * FROM bench_rows ORDER BY id) TO '/dev/null'" # warm-up, not measured
	LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
	for ((r = 1; r <= REPEAT; r++)); do
		log "round $r of $REPEAT"
		run_copy "copy_$r" bench_rows
		run_copy "ord_$r" "(SELECT * FROM bench_rows ORDER BY id)"
		for v in "${VARIANTS[@]}"; do
			if [[ $v == inc ]]; then run_cdc_incremental "${v}_$r"; else run_cdc_snapshot "${v}_$r" "$v"; fi
		done
	done
	((DEBEZIUM)) || return 0
	for codec in ${DBZ_CODECS//,/ }; do
		for ((r = 1; r <= DBZ_REPEAT; r++)); do
			log "Debezium 3.6.1, compression $codec, run $r of $DBZ_REPEAT"
			run_dbz_snapshot "dbz_${codec}_$r" "$codec"
		done
	done
}

# ---- report ---------------------------------------------------------------------------------

# Medians (the highest memory) over runs $2_1 .. $2_$3, under key $1.
summarise()
{
	local key=$1 kind=$2 n=$3 r k fig list
	for fig in SECS CPU MAIN_CPU BROKER_CPU STARTUP_S STEADY REC_BYTES DISK_MB; do
		local -n arr=$fig
		list=''
		for ((r = 1; r <= n; r++)); do list+="${arr[${kind}_$r]:-} "; done
		# shellcheck disable=SC2004 # arr is an associative array
		arr[$key]=$(median <<<"$list")
		unset -n arr
	done
	SECS[${key}_all]=''
	RSS[$key]=0 ANON[$key]=0 HWM[$key]=0
	for ((r = 1; r <= n; r++)); do
		k=${kind}_$r
		SECS[${key}_all]+="${SECS[$k]} "
		[[ ${RSS[$k]:-0} == - ]] || RSS[$key]=$(max_of "${RSS[$key]}" "${RSS[$k]:-0}")
		[[ ${ANON[$k]:-0} == - ]] || ANON[$key]=$(max_of "${ANON[$key]}" "${ANON[$k]:-0}")
		HWM[$key]=$(max_of "${HWM[$key]}" "${HWM[$k]:-0}")
	done
	((ANON[$key] > 0)) || ANON[$key]=-
}

rate() { calc "$ROWS / ${SECS[$1]}" '%.3f'; }

# One line of the throughput table: label, run key, Debezium's key (or '').
throughput_line()
{
	local label=$1 key=$2 dbz=${3:-} d=0
	[[ -z $dbz || -z ${SECS[$dbz]:-} ]] || d=$(rate "$dbz")
	awk -v l="$label" -v s="${SECS[$key]}" -v n="$ROWS" -v c="${SECS[copy]}" -v o="${SECS[ord]}" -v d="$d" \
		-v st="${STARTUP_S[$key]:--}" -v sr="${STEADY[$key]:--}" -v b="${REC_BYTES[$key]:--}" \
		-v m="${DISK_MB[$key]:--}" -v all="${SECS[${key}_all]:-}" \
		'BEGIN { rate = n / s
		         xd = (d > 0) ? sprintf("%.2f", rate / d) : "-"
		         if (st != "-") st = sprintf("%.2f", st)
		         if (sr != "-") sr = sprintf("%.0f", sr)
		         printf "%-28s %7.2f %8.0f %6.2f %9.2f %6s %9s %8s %6s %7s  %s\n",
		                l, s, rate, rate * c / n, rate * o / n, xd, st, sr, b, m, all }'
}

throughput_header()
{
	printf '%-28s %7s %8s %6s %9s %6s %9s %8s %6s %7s  %s\n' run seconds rows/s x_copy x_ordcopy x_dbz \
		startup_s steady/s B/rec disk_MB all_s
}

# A figure with two decimals ('-' stays '-').
dec2() { if [[ ${1:--} == - ]]; then echo -; else calc "$1" '%.2f'; fi; }

# One line of the resources table: run key, label.
resources_line()
{
	local key=$1 rdk='-' us='-'
	if [[ ${MAIN_CPU[$key]:--} != - ]]; then
		rdk=$(calc "${CPU[$key]} - ${MAIN_CPU[$key]}" '%.2f')
		us=$(calc "${MAIN_CPU[$key]} * 1000000 / $ROWS" '%.1f')
	fi
	printf '%-28s %7s %7s %7s %7s %8s %7s %7s %7s\n' "$2" "$(dec2 "${CPU[$key]}")" "$(dec2 "${MAIN_CPU[$key]}")" \
		"$rdk" "$us" "$(dec2 "${BROKER_CPU[$key]}")" "${RSS[$key]}" "${ANON[$key]}" "${HWM[$key]}"
}

report()
{
	local v codec ratio verdict
	summarise copy copy "$REPEAT"
	summarise ord ord "$REPEAT"
	for v in "${VARIANTS[@]}"; do summarise "$v" "$v" "$REPEAT"; done
	if ((DEBEZIUM)); then
		for codec in ${DBZ_CODECS//,/ }; do summarise "dbz_$codec" "dbz_$codec" "$DBZ_REPEAT"; done
	fi

	echo "cdc_kafka initial snapshot benchmark (bench/snapshot.sh), $(date -u '+%Y-%m-%d %H:%M UTC')"
	versions "before the first round"
	echo "workload:   $ROWS rows of bench/decode.sh's table ($TABLE_INFO, in shared buffers);" \
		"median of $REPEAT rounds$( ((!DEBEZIUM)) || echo "; Debezium: $DBZ_REPEAT run(s) per codec")"
	echo
	echo "initial snapshot: cdc_kafka from its log line \"created replication slot\" to \"finished the initial" \
		"snapshot\" (every record acknowledged); Debezium from the engine's start to the last acknowledgement"
	throughput_header
	throughput_line "COPY bench_rows TO /dev/null" copy
	throughput_line "COPY ... ORDER BY id" ord
	for v in "${VARIANTS[@]}"; do
		throughput_line "${V_LABEL[$v]}" "$v" "$([[ $v == inc ]] || echo "dbz_${V_CODEC[$v]}")"
	done
	if ((DEBEZIUM)); then
		for codec in ${DBZ_CODECS//,/ }; do
			throughput_line "Debezium 3.6.1, $codec" "dbz_$codec" "dbz_$codec"
		done
	fi
	printf '    x_copy round by round (median):'
	for v in "${VARIANTS[@]}"; do
		printf ' %s %s%s' "${V_LABEL[$v]#cdc_kafka }" "$(round_ratios copy "$v")" "$([[ $v == "${VARIANTS[-1]}" ]] || echo ';')"
	done
	echo
	printf '    resources                  %7s %7s %7s %7s %8s %7s %7s %7s\n' cpu_s main_s rdk_s us/row \
		broker_s rss_MB anon_MB hwm_MB
	for v in "${VARIANTS[@]}"; do resources_line "$v" "${V_LABEL[$v]}"; done
	if ((DEBEZIUM)); then
		for codec in ${DBZ_CODECS//,/ }; do resources_line "dbz_$codec" "Debezium 3.6.1, $codec"; done
	fi
	echo
	ratio=$(round_ratios copy on | sed -E 's/.*\((.*)\)/\1/')
	verdict=$(awk -v r="$ratio" -v t="$TARGET" 'BEGIN {print (r >= t) ? "PASS" : "MISS"}')
	echo "targets:"
	printf '  %-56s measured %5sx   %s\n' "initial snapshot, schemas=on >= $TARGET x COPY (per round)" "$ratio" "$verdict"
	printf '  %-56s measured %5sx   (reference)\n' "  the same against the ordered COPY (medians)" \
		"$(calc "${SECS[ord]} / ${SECS[on]}" '%.2f')"
	if ((DEBEZIUM)) && [[ -n ${SECS[dbz_lz4]:-} ]]; then
		ratio=$(calc "${SECS[dbz_lz4]} / ${SECS[on]}" '%.2f')
		verdict=$(awk -v r="$ratio" -v t="$DBZ_TARGET" 'BEGIN {print (r >= t) ? "PASS" : "MISS"}')
		printf '  %-56s measured %5sx   %s\n' "initial snapshot, schemas=on, lz4 >= $DBZ_TARGET x Debezium's (medians)" \
			"$ratio" "$verdict"
	fi
	ratio=$(round_ratios on inc | sed -E 's/.*\((.*)\)/\1/')
	verdict=$(awk -v r="$ratio" -v t="$INC_TARGET" 'BEGIN {print (r >= t) ? "PASS" : "MISS"}')
	printf '  %-56s measured %5sx   %s\n' "incremental under load >= $INC_TARGET x initial (per round)" "$ratio" "$verdict"
	printf '    incremental vs initial round by round (median): %s; UPDATEs streamed meanwhile / reads they superseded: %s\n' \
		"$(round_ratios on inc)" "$(for ((r = 1; r <= REPEAT; r++)); do printf '%s ' "${INC_UPDATES[inc_$r]}"; done)"
	((!PERF)) || echo "(--perf: the first schemas=on, lz4 snapshot ran under perf record)"
}

main()
{
	local pkgs=()
	parse_args "$@"
	[[ -x $PGBIN/psql && -x $PGBIN/pgbench ]] || pkgs+=(postgresql-client-15)
	check_prereqs "${pkgs[@]}"
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	make_workdir
	start_kafka
	start_postgres "shared_buffers = '1GB'" "log_line_prefix = '%m [%p] '" "log_timezone = 'UTC'" \
		"cdc_kafka.snapshot_mode = 'initial'"
	create_schema
	load_table
	start_worker
	warm_up_kafka
	make_topics
	run_rounds
	report | tee "$WORK/summary.txt"
	record_results "$WORK/summary.txt" "## Snapshot benchmark: latest run of bench/snapshot.sh"
}

main "$@"
