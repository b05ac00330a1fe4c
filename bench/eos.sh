#!/usr/bin/env bash
#
# bench/eos.sh -- what does exactly-once delivery cost?  cdc_kafka's worker in
# cdc_kafka.delivery = at_least_once and exactly_once, side by side on the
# same machine, broker and workload, schemas on (the default).
#
# WHAT IT MEASURES (one run measures everything; only same-run ratios count)
#   (1) catch-up throughput: --rows row changes (INSERTs, in transactions of
#       --txn-rows rows) are committed while the worker is stopped, onto a
#       slot per run created before the load; the worker then starts on its
#       slot (SELECT cdc_kafka.start()) and is timed from just before that
#       call to the moment the last row is delivered:
#         at_least_once  cdc_kafka.status.last_ack_time once records_sent has
#                        grown by --rows and nothing is in flight (Kafka's
#                        acknowledgement, acks=all: as bench/stream.sh times
#                        it; the records are then visible to every consumer)
#         exactly_once   cdc_kafka.status.kafka_committed_at once
#                        kafka_committed_lsn lies past the last load
#                        transaction's start (an LSN read inside that
#                        transaction, before its commit) and
#                        kafka_committed_index is -1 (that transaction
#                        complete): the Kafka transaction holding the last
#                        row is committed, so a read_committed consumer sees it
#       Both are the worker's own clock, and include the session's start
#       (producer; for exactly_once also its transactions' initialisation and
#       reading the last committed position from the offsets topic; one short
#       exactly_once session runs before the rounds, so that the broker's
#       transaction state log and the offsets topic exist).  The two modes run --repeat rounds,
#       interleaved (odd rounds at_least_once first, even rounds exactly_once
#       first), each on its own slot and topic; the medians are shown, and the
#       ratio exactly_once / at_least_once of the rates round by round (runs
#       seconds apart) and its median, which the target (>= 0.8) is judged on.
#       After each run a read_committed consumer (kcat) reads the topic: it
#       must hold --rows records with --rows distinct keys.
#       For exactly_once the Kafka transactions the run committed
#       (status.kafka_transactions) and records per transaction are shown.
#   (2) commit-to-visible latency at a steady rate: pgbench commits
#       single-row INSERTs at --rate transactions per second for
#       --latency-seconds (after 5 s at that rate as a warm-up, left out of
#       the figures: a session's new producer needs about a second to start;
#       for exactly_once also to initialise its transactions) into a table
#       whose rows carry clock_timestamp() at insert.  A consumer
#       (kcat -X isolation.level=read_committed -X fetch.wait.max.ms=10, so
#       that a long poll does not sit between the commit marker and the
#       fetch) follows the topic from before the first commit; each record
#       is stamped with the consumer's clock as kcat prints it (perl,
#       Time::HiRes); the topics are created with
#       message.timestamp.type=LogAppendTime, so a record's Kafka timestamp is
#       the broker's clock when it appended it.  Per record:
#         commit -> visible  receive time - source.ts_us (the commit time
#                            PostgreSQL wrote in the commit record)
#         commit -> append   Kafka timestamp - source.ts_us: the worker's
#                            poll, decoding, librdkafka's linger, the broker
#         append -> visible  receive time - Kafka timestamp: for exactly_once
#                            mostly the wait for the Kafka transaction's
#                            commit (the consumer sees nothing of it before)
#       Kafka timestamps have millisecond resolution (truncated).
#       Runs: at_least_once, then exactly_once once per value of
#       --transaction-max-ms (cdc_kafka.transaction_max_ms, the time bound of
#       one Kafka transaction; default 100 and 1000, the setting's default).
#       Same host, same clock.
#   Worker memory and CPU: VmHWM (reset before each run) and user+system
#   seconds of the worker process (with librdkafka's threads), and the
#   broker's CPU during the run, as bench/stream.sh.
#
# HOW TO READ THE OUTPUT (stdout, also written into bench/RESULTS.md; progress
# goes to stderr)
#   seconds   median wall time, start() -> last row delivered (see above)
#   rows/s    --rows / seconds
#   x_alo     rows/s / at_least_once's rows/s (medians); the target is
#             judged on the round-by-round line below the table
#   kafka_txns, rec/txn  Kafka transactions committed in the run and records
#             per transaction (exactly_once only)
#   all_s     every round's seconds, in order
#   latency   p50/p99/p99.9/max of commit -> visible, p50/p99 of its two
#             parts, in ms over every record after the warm-up; Kafka
#             transactions and records per transaction over the whole run
#             (warm-up included)
#   PASS/MISS for the target (throughput exactly_once >= 0.8 x
#   at_least_once); the latency ratios have no target.  This is a
#   benchmark, not a test: it exits 0 whether the target is met or missed,
#   non-zero only when something failed to run.  The machine is shared: the
#   load average before and after is printed.
#
# THE SERVERS (throwaway, in a fresh directory: mktemp -d, or --workdir)
#   As bench/stream.sh (bench/lib.sh): Kafka 4.4.0, one KRaft node
#   (test/kafka/kafka.sh: transaction state log with replication factor 1),
#   127.0.0.1:--kafka-port, warmed up with 200 MB from kcat; every topic a
#   run writes is created beforehand (kafka.sh topics, --partitions
#   partitions).  PostgreSQL 15 on 127.0.0.1:--pg-port and a socket in the
#   directory, bench/lib.sh's settings (fsync off, synchronous_commit on,
#   autovacuum off, no checkpoint during a run), cdc_kafka.databases =
#   'bench', snapshot_mode = no_data, slots created by the script,
#   publication FOR TABLE the two benchmark tables.  Per run (ALTER SYSTEM +
#   reload while the worker is stopped): slot_name, topic_prefix, delivery,
#   transaction_max_ms (reset to its default for the catch-up); each run
#   checks the slot and delivery mode its session used.  Every other
#   setting is its default: schemas on, compression lz4, the offsets topic
#   __cdc_kafka_offsets (created by the worker), transaction_max_records
#   100000, transaction_max_kb 65536, transaction_max_ms 1000.
#
# THE WORKLOAD
#   (1) bench/decode.sh's table and values (bench/workload.sh), in
#   transactions of --txn-rows rows: with the default 1000, exactly_once
#   groups whole PostgreSQL transactions into each Kafka transaction, none is
#   split (a transaction larger than a bound would be).  One record per row,
#   ~3.6 kB with schemas on.  (2) bench/stream.sh's lat_rows table.
#
# USAGE
#   bench/eos.sh [--rows N] [--txn-rows N] [--repeat N] [--latency-seconds N]
#                [--rate N] [--transaction-max-ms LIST] [--modes LIST]
#                [--partitions N] [--pg-port N] [--kafka-port N] [--workdir DIR]
#                [--perf] [--no-record] [--keep]
#     --rows N             row changes per catch-up run (default 200000)
#     --txn-rows N         rows per loading transaction (default 1000)
#     --repeat N           catch-up rounds of both modes (default 3)
#     --latency-seconds N  length of each steady-rate run (default 30)
#     --rate N             its transactions per second (default 200)
#     --transaction-max-ms LIST  comma-separated values of
#                          cdc_kafka.transaction_max_ms, one exactly_once
#                          latency run each (default 100,1000)
#     --modes LIST         at_least_once,exactly_once (the default) or one of
#                          them; exactly_once needs a build with
#                          cdc_kafka.delivery (the ratio needs both)
#     --partitions N       partitions of every topic (default 3)
#     --pg-port N          PostgreSQL TCP port on 127.0.0.1 (default 47213)
#     --kafka-port N       Kafka client port; N+1 is the controller's (default 41876)
#     --workdir DIR        directory for both servers (must not exist)
#     --perf               perf record the worker during the first
#                          exactly_once catch-up (its figures are then
#                          slightly lower); the report goes to
#                          bench/work/eos-profile/
#     --no-record          do not write the figures into bench/RESULTS.md
#     --keep               leave both servers running and the directory in place
#   PGBIN (default /usr/lib/postgresql/15/bin) names the PostgreSQL whose
#   installed cdc_kafka is measured.  Needs kcat, pgbench and perl with
#   Time::HiRes (apt-get installs kcat and pgbench when missing).  About 3
#   minutes with the defaults on 2 cores; --rows 20000 --repeat 1
#   --latency-seconds 5 for a quick run.
#
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROWS=200000
TXN_ROWS=1000
REPEAT=3
LAT_SECONDS=30
LAT_RATE=200
LAT_WARMUP=5 # seconds at --rate before the measured ones
TMAX_LIST=100,1000
MODES=at_least_once,exactly_once
PARTITIONS=3
PG_PORT=47213
KAFKA_PORT=41876
WORKDIR=""
DEBEZIUM=0 # lib.sh's: no Debezium here
PERF=0
RECORD=1
KEEP=0
TIMEOUT=1800 # seconds any one run may take

PERF_DIR=$HERE/work/eos-profile # --perf

LAST_TXN_LSN="" # read inside the last load transaction, before its commit
HAS_DELIVERY=0  # the build has cdc_kafka.delivery
EOS_TXNS=0      # see kafka_txns
TMAX_GUC=cdc_kafka.transaction_max_ms # (the first build of fix/eos called it transaction_max_time)

# Figures per run key (alo_1, eos_1, ..., lat_alo, lat_eos_100, ...), besides
# bench/lib.sh's.
declare -A TXNS RECS LAT LAT_APPEND LAT_VISIBLE LAT_N LAT_TPS LAT_TXNS LAT_RECS

# ---- options ------------------------------------------------------------------

eos_option()
{
	OPT_WORDS=2
	case $1 in
		--txn-rows) TXN_ROWS=${2-} ;;
		--latency-seconds) LAT_SECONDS=${2-} ;;
		--rate) LAT_RATE=${2-} ;;
		--transaction-max-ms) TMAX_LIST=${2-} ;;
		--modes) MODES=${2-} ;;
		*) OPT_WORDS=0; return ;;
	esac
	(($# >= 2)) || die "$1 needs a value"
}

has_mode() { [[ ,$MODES, == *",$1,"* ]]; }

parse_args()
{
	local m v
	parse_options eos_option "$@"
	check_uints ROWS TXN_ROWS REPEAT LAT_SECONDS LAT_RATE PARTITIONS PG_PORT KAFKA_PORT
	for m in ${MODES//,/ }; do
		[[ $m == at_least_once || $m == exactly_once ]] || die "--modes: at_least_once and/or exactly_once, not $m"
	done
	[[ -n ${MODES//,/} ]] || die "--modes needs a mode"
	for v in ${TMAX_LIST//,/ }; do
		is_uint "$v" || die "--transaction-max-ms needs positive integers, not $v"
	done
}

eos_prereqs()
{
	local pkgs=()
	[[ -x $PGBIN/pgbench || -x /usr/bin/pgbench ]] || pkgs+=(postgresql-client-15)
	perl -MTime::HiRes -e 1 2>/dev/null || die "needs perl with Time::HiRes"
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

-- (2): each row carries the time it was inserted
CREATE TABLE lat_rows (
	id          bigserial PRIMARY KEY,
	qty         int NOT NULL,
	label       text NOT NULL,
	amount      numeric(12,2),
	placed_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
	paid        boolean NOT NULL,
	inserted_us bigint NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
);

-- Not FOR ALL TABLES: that would also capture cdc_kafka.worker_state.
CREATE PUBLICATION cdc_kafka FOR TABLE bench_rows, lat_rows;

-- Wait until a Kafka transaction of the session on slot `want_slot`,
-- committed after `since` (epoch seconds), holds the PostgreSQL transaction
-- that follows `after` (exactly_once; the status shows the previous
-- session's commit until the new one commits); returns the commit time
-- (epoch seconds), the Kafka transactions and the records of
-- the worker so far, its slot and delivery mode.
CREATE FUNCTION bench_wait_committed(after pg_lsn, want_slot name, since float8, timeout_s float8,
                                     OUT committed_at float8, OUT txns bigint,
                                     OUT records bigint, OUT slot name, OUT delivery text)
LANGUAGE plpgsql AS $$
DECLARE
	deadline timestamptz := clock_timestamp() + timeout_s * interval '1 second';
	st record;
BEGIN
	LOOP
		SELECT * INTO st FROM cdc_kafka.status;
		IF st.slot_name = want_slot AND extract(epoch FROM st.kafka_committed_at) > since
		   AND st.kafka_committed_lsn > after AND coalesce(st.kafka_committed_index, -1) = -1 THEN
			committed_at := extract(epoch FROM st.kafka_committed_at);
			txns := st.kafka_transactions;
			records := st.records_sent;
			slot := st.slot_name;
			delivery := st.delivery;
			RETURN;
		END IF;
		IF st.state IN ('error', 'blocked', 'slot_lost', 'fenced') THEN
			RAISE EXCEPTION 'cdc_kafka worker is %: %', st.state, coalesce(st.last_error, st.detail);
		END IF;
		IF clock_timestamp() > deadline THEN
			RAISE EXCEPTION 'timed out: Kafka transactions committed up to % (index %), waiting for past % (state %: %)',
				st.kafka_committed_lsn, st.kafka_committed_index, after, st.state, st.detail;
		END IF;
		PERFORM pg_sleep(0.02);
	END LOOP;
END
$$;
EOF
		bench_wait_functions
	} | bench_psql >/dev/null
	q "ALTER SYSTEM SET cdc_kafka.snapshot_mode = 'no_data'" # slots created here, nothing to snapshot
	bench_psql -c "ALTER SYSTEM SET cdc_kafka.databases = 'bench'" -c "SELECT pg_reload_conf()" >/dev/null
	q "SELECT bench_wait_state('stopped', NULL, 60)" >/dev/null
	HAS_DELIVERY=$(q "SELECT count(*) FROM pg_settings WHERE name = 'cdc_kafka.delivery'")
	if has_mode exactly_once && ((!HAS_DELIVERY)); then
		die "this build of cdc_kafka has no cdc_kafka.delivery: run with --modes at_least_once, or install a build with exactly-once"
	fi
	if ((HAS_DELIVERY)); then
		TMAX_GUC=$(q "SELECT name FROM pg_settings
		              WHERE name IN ('cdc_kafka.transaction_max_ms', 'cdc_kafka.transaction_max_time') ORDER BY name LIMIT 1")
		[[ -n $TMAX_GUC ]] || die "this build of cdc_kafka has no cdc_kafka.transaction_max_ms"
	fi
	log "cdc_kafka worker of database bench is up (pid $(q 'SELECT pid FROM cdc_kafka.status'), stopped)"
}

# ---- the worker -------------------------------------------------------------------

# Settings of the next session: slot, topic prefix, delivery mode,
# transaction_max_ms ('' = its default).  The worker is stopped; it re-reads
# its settings on the SIGHUP of the reload.
worker_configure()
{
	local args=(-c "ALTER SYSTEM SET cdc_kafka.slot_name = '$1'" -c "ALTER SYSTEM SET cdc_kafka.topic_prefix = '$2'")
	if ((HAS_DELIVERY)); then
		args+=(-c "ALTER SYSTEM SET cdc_kafka.delivery = '$3'")
		if [[ -n $4 ]]; then
			args+=(-c "ALTER SYSTEM SET $TMAX_GUC = $4")
		else
			args+=(-c "ALTER SYSTEM RESET $TMAX_GUC")
		fi
	fi
	bench_psql "${args[@]}" -c "SELECT pg_reload_conf()" >/dev/null
	sleep 1
}

# Kafka transactions the worker committed: status.kafka_transactions counts
# them across sessions since the worker started, and shows them only while
# the session is exactly_once; EOS_TXNS is its value at the end of the last
# exactly_once session.
kafka_txns() { if ((HAS_DELIVERY)); then q "SELECT coalesce(kafka_transactions, 0) FROM cdc_kafka.status"; else echo 0; fi; }

# The delivery mode of the session that ran: '' when the build has none.
session_delivery() { if ((HAS_DELIVERY)); then q "SELECT delivery FROM cdc_kafka.status"; fi; }

# Create the topics given (kafka.sh topics: one JVM each), before anything is
# measured, so that no run waits for a topic's creation.
create_plain_topics()
{
	local t
	log "creating $# topics"
	for t in "$@"; do
		bash "$KAFKA_SH" topics --dir "$WORK/kafka" -- --create --topic "$t" --partitions "$PARTITIONS" \
			--replication-factor 1 --config message.timestamp.type=LogAppendTime >>"$WORK/create-topics.log" 2>&1 ||
			die "could not create topic $t: $(tail -n 5 "$WORK/create-topics.log")"
	done
}

make_topics()
{
	local r v topics=(l_alo.public.lat_rows)
	for ((r = 1; r <= REPEAT; r++)); do
		! has_mode at_least_once || topics+=("c_alo_$r.public.bench_rows")
		! has_mode exactly_once || topics+=("c_eos_$r.public.bench_rows")
	done
	if has_mode exactly_once; then
		for v in ${TMAX_LIST//,/ }; do topics+=("l_eos_$v.public.lat_rows"); done
	fi
	create_plain_topics "${topics[@]}"
}

# What a read_committed consumer sees of topic $1: "records distinct_keys".
committed_count()
{
	kcat -C -b "$BS" -t "$1" -o beginning -e -q -X isolation.level=read_committed -f '%k\n' \
		2>"$WORK/kcat-count.err" | awk '{n++; if (!($0 in seen)) {seen[$0] = 1; d++}} END {print n + 0, d + 0}'
}

check_committed()
{
	local n d
	read -r n d <<<"$(committed_count "$1")"
	[[ $n == "$2" && $d == "$2" ]] ||
		die "a read_committed consumer sees $n records ($d distinct keys) in $1, expected $2"
}

# The broker's one-time work for the first transactional producer (the
# transaction state log, 10 partitions) and the worker's offsets topic are
# not the runs' to pay: one short exactly_once session first.
warm_up_eos()
{
	local lsn t0
	has_mode exactly_once || return 0
	log "warming up exactly_once (transaction state log, offsets topic)"
	create_slot eos_warm_up
	worker_configure eos_warm_up w exactly_once ""
	worker_start >/dev/null
	q "SELECT bench_wait_state('streaming', 'eos_warm_up', 120)" >/dev/null
	t0=$(q "SELECT extract(epoch FROM clock_timestamp())")
	lsn=$(bench_psql -c "BEGIN" -c "INSERT INTO lat_rows (qty, label, paid) SELECT i, 'warm-up', true FROM generate_series(1, 10) i" \
		-c "SELECT pg_current_wal_insert_lsn()" -c "COMMIT")
	EOS_TXNS=$(q "SELECT txns FROM bench_wait_committed('$lsn', 'eos_warm_up', $t0, 120)")
	worker_stop
	bench_psql -c "SELECT pg_drop_replication_slot('eos_warm_up')" -c "TRUNCATE lat_rows" >/dev/null
}

# ---- (1) catch-up ------------------------------------------------------------------------

create_catchup_slots()
{
	local r
	for ((r = 1; r <= REPEAT; r++)); do
		! has_mode at_least_once || create_slot "eos_alo_$r"
		! has_mode exactly_once || create_slot "eos_eos_$r"
	done
}

# The load, with `SELECT pg_current_wal_insert_lsn()` inside the last
# transaction, before its commit: every earlier transaction ends before that
# LSN, the last one after it.
load_for_catchup()
{
	local out start last
	log "loading $ROWS rows in transactions of $TXN_ROWS (the worker stopped)"
	out=$(workload_sql | awk '
		{ line[NR] = $0 }
		/^INSERT INTO bench_rows/ { last = NR }
		END {
			for (i = 1; i <= NR; i++) {
				if (i == last) print "BEGIN;"
				print line[i]
				if (i > last && line[i] ~ /;$/ && !done) { print "SELECT pg_current_wal_insert_lsn();"; print "COMMIT;"; done = 1 }
			}
		}' | bench_psql | grep -v '^$')
	LAST_TXN_LSN=$(grep -m1 -E '^[0-9A-F]+/[0-9A-F]+$' <<<"$out") || die "no LSN from the load"
	start=$(grep -v / <<<"$out" | sed -n 1p)
	last=$(grep -v / <<<"$out" | tail -n 1)
	q "CHECKPOINT" >/dev/null
	[[ $(q "SELECT count(*) FROM bench_rows") == "$ROWS" ]] || die "the load did not insert $ROWS rows"
	log "load took $(calc "$last - $start" '%.1f') s;" \
		"$(q "SELECT pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), min(restart_lsn))) FROM pg_replication_slots") of WAL to stream"
}

# One catch-up: run key, mode, slot, topic prefix.
run_catchup()
{
	local key=$1 mode=$2 slot=$3 prefix=$4 base pid t0 records last_ack used txns delivery end
	worker_configure "$slot" "$prefix" "$mode" ""
	base=$(records_sent)
	pid=$(worker_pid)
	measure_begin "$pid"
	if ((PERF)) && [[ $key == eos_1 ]]; then perf_begin "$pid"; fi
	t0=$(worker_start)
	if [[ $mode == exactly_once ]]; then
		read -r end txns records used delivery <<<"$(bench_psql -F ' ' -c \
			"SELECT committed_at, txns, records, slot, delivery FROM bench_wait_committed('$LAST_TXN_LSN', '$slot', $t0, $TIMEOUT)")"
	else
		read -r records end used <<<"$(bench_psql -F ' ' -c "SELECT records, last_ack, slot FROM bench_wait_acked($((base + ROWS)), $TIMEOUT)")"
		txns=$EOS_TXNS
		delivery=$(session_delivery)
	fi
	if [[ -n $PERF_PID ]] && [[ $key == eos_1 ]]; then perf_end; fi
	measure_end "$pid" "$key"
	worker_stop
	records=$(records_sent) # exactly_once: the status's count may lag the commit
	[[ $used == "$slot" ]] || die "the worker streamed slot $used, not $slot (settings not reloaded in time?)"
	((!HAS_DELIVERY)) || [[ $delivery == "$mode" ]] || die "the session ran in delivery $delivery, not $mode"
	((records - base == ROWS)) || die "the worker sent $((records - base)) records, expected $ROWS"
	check_committed "$prefix.public.bench_rows" "$ROWS"
	SECS[$key]=$(calc "$end - $t0")
	TXNS[$key]=$((txns - EOS_TXNS))
	EOS_TXNS=$txns
	RECS[$key]=$((records - base))
	log "  $mode: ${SECS[$key]} s, worker CPU ${CPU[$key]} s, VmHWM ${HWM[$key]} MB, ${TXNS[$key]} Kafka transactions"
}

phase_catchup()
{
	local r order m
	create_catchup_slots
	load_for_catchup
	LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
	for ((r = 1; r <= REPEAT; r++)); do
		log "(1) catch-up, round $r of $REPEAT"
		if ((r % 2)); then order="alo eos"; else order="eos alo"; fi
		for m in $order; do
			case $m in
				alo) ! has_mode at_least_once || run_catchup "alo_$r" at_least_once "eos_alo_$r" "c_alo_$r" ;;
				eos) ! has_mode exactly_once || run_catchup "eos_$r" exactly_once "eos_eos_$r" "c_eos_$r" ;;
			esac
		done
	done
	q "SELECT count(pg_drop_replication_slot(slot_name)) FROM pg_replication_slots
	    WHERE slot_name LIKE 'eos\_%' AND NOT active" >/dev/null
}

# ---- (2) latency ----------------------------------------------------------------------------

# A read_committed consumer of topic $1 from its beginning; per record, when
# kcat printed it: "receive_ms id commit_us append_ms" into file $2.  Sets
# CONSUMER_PID.
CONSUMER_PID=""
start_consumer()
{
	kcat -C -b "$BS" -t "$1" -o beginning -u -q -X isolation.level=read_committed -X fetch.wait.max.ms=10 \
		-f '%T %s\n' 2>"$WORK/kcat-latency.err" > >(perl -MTime::HiRes=time -ne '
			BEGIN { $| = 1 }
			my $now = time() * 1000;
			my ($append) = /^(\d+) /;
			my ($src) = /"source":\{[^}]*"ts_us":(\d+)/;
			my ($id) = /"after":\{"id":(\d+)/;
			if (defined $src && defined $id) { printf "%.3f\t%d\t%d\t%d\n", $now, $id, $src, $append }
			else { print STDERR "a record without source.ts_us or after.id\n" }' >"$2" 2>>"$WORK/kcat-latency.err") &
	CONSUMER_PID=$!
	BG_PIDS+=("$CONSUMER_PID")
}

# Wait until file $1 has $2 lines (timeout $3 s).
wait_lines()
{
	local deadline=$((SECONDS + $3))
	while (($(wc -l <"$1") < $2)); do
		((SECONDS < deadline)) || die "the read_committed consumer saw $(wc -l <"$1") of $2 records after $3 s"
		sleep 0.1
	done
}

# pgbench committing single-row INSERTs at --rate for $1 seconds; output in $2.
run_pgbench()
{
	"$PGBIN/pgbench" -n -h "$PGSOCK" -p "$PG_PORT" -U bench -f "$WORK/latency.sql" \
		-R "$LAT_RATE" -T "$1" -c 4 -j 2 bench >"$2" 2>&1 || die "pgbench failed: $(tail -n 5 "$2")"
}

# p50 p99 p99.9 max of column $2 of file $1 (nearest rank).
percentiles()
{
	cut -f "$2" "$1" | sort -g | awk '
		function rank(p,   i) { i = int(p * NR); if (i < p * NR) i++; return i < 1 ? 1 : i }
		{ v[NR] = $1 }
		END { printf "%.1f %.1f %.1f %.1f", v[rank(0.5)], v[rank(0.99)], v[rank(0.999)], v[NR] }'
}

# One steady-rate run: run key, mode, transaction_max_ms ('' = default), topic prefix.
run_latency()
{
	local key=$1 mode=$2 tmax=$3 prefix=$4 slot=eos_$1 n warm_id base txns recv=$WORK/latency-$1.tsv delivery
	bench_psql -c "TRUNCATE lat_rows" -c "CHECKPOINT" >/dev/null
	create_slot "$slot"
	worker_configure "$slot" "$prefix" "$mode" "$tmax"
	worker_start >/dev/null
	q "SELECT bench_wait_state('streaming', '$slot', 60)" >/dev/null
	delivery=$(session_delivery)
	((!HAS_DELIVERY)) || [[ $delivery == "$mode" ]] || die "the session runs in delivery $delivery, not $mode"
	base=$(records_sent)
	: >"$recv"
	start_consumer "$prefix.public.lat_rows" "$recv"
	run_pgbench "$LAT_WARMUP" "$WORK/pgbench-warmup.out"
	warm_id=$(q "SELECT coalesce(max(id), 0) FROM lat_rows")
	run_pgbench "$LAT_SECONDS" "$WORK/pgbench.out"
	n=$(q "SELECT count(*) FROM lat_rows")
	wait_lines "$recv" "$n" 120
	txns=$(kafka_txns)
	[[ $mode == at_least_once ]] || { LAT_TXNS[$key]=$((txns - EOS_TXNS)); EOS_TXNS=$txns; }
	LAT_RECS[$key]=$(($(records_sent) - base))
	worker_stop
	kill "$CONSUMER_PID" 2>/dev/null || true
	wait "$CONSUMER_PID" 2>/dev/null || true
	q "SELECT pg_drop_replication_slot('$slot')" >/dev/null
	awk -v w="$warm_id" '$2 > w {printf "%.3f\t%.3f\t%.3f\n", $1 - $3 / 1000, $4 - $3 / 1000, $1 - $4}' \
		"$recv" >"$WORK/latency-$key.ms"
	LAT_N[$key]=$(wc -l <"$WORK/latency-$key.ms")
	[[ $(cut -f2 "$recv" | sort -u | wc -l) == "$n" ]] || die "the consumer saw $(cut -f2 "$recv" | sort -u | wc -l) distinct rows of $n"
	LAT[$key]=$(percentiles "$WORK/latency-$key.ms" 1)
	LAT_APPEND[$key]=$(percentiles "$WORK/latency-$key.ms" 2 | cut -d' ' -f1,2)
	LAT_VISIBLE[$key]=$(percentiles "$WORK/latency-$key.ms" 3 | cut -d' ' -f1,2)
	LAT_TPS[$key]=$(sed -nE 's/^tps = ([0-9.]+).*/\1/p' "$WORK/pgbench.out" | sed -n 1p | cut -d. -f1)
	log "  ${LAT_N[$key]} records; commit -> visible p50/p99/p99.9/max: ${LAT[$key]} ms"
}

LAT_KEYS=()
phase_latency()
{
	local v
	cat >"$WORK/latency.sql" <<'SQL'
\set q random(1, 1000000)
INSERT INTO lat_rows (qty, label, amount, paid) VALUES (:q, 'order ' || :q || ' for Zoë', :q / 100.0, :q % 2 = 0);
SQL
	if has_mode at_least_once; then
		log "(2) latency, at_least_once: $LAT_RATE transactions/s, ${LAT_WARMUP} s warm-up + $LAT_SECONDS s"
		run_latency lat_alo at_least_once "" l_alo
		LAT_KEYS+=(lat_alo)
	fi
	if has_mode exactly_once; then
		for v in ${TMAX_LIST//,/ }; do
			log "(2) latency, exactly_once, transaction_max_ms=$v: $LAT_RATE transactions/s, ${LAT_WARMUP} s warm-up + $LAT_SECONDS s"
			run_latency "lat_eos_$v" exactly_once "$v" "l_eos_$v"
			LAT_KEYS+=("lat_eos_$v")
		done
	fi
}

# ---- report ---------------------------------------------------------------------------------

summarise_rounds()
{
	local kind=$1 r all='' cpus='' bcpu='' txns='' hwm=0
	for ((r = 1; r <= REPEAT; r++)); do
		all+="${SECS[${kind}_$r]} "
		cpus+="${CPU[${kind}_$r]:-} "
		bcpu+="${BROKER_CPU[${kind}_$r]:-} "
		txns+="${TXNS[${kind}_$r]} "
		hwm=$(max_of "$hwm" "${HWM[${kind}_$r]:-0}")
	done
	SECS[$kind]=$(median <<<"$all")
	SECS[${kind}_all]=${all% }
	CPU[$kind]=$(median <<<"$cpus")
	BROKER_CPU[$kind]=$(median <<<"$bcpu")
	TXNS[$kind]=$(median <<<"$txns")
	HWM[$kind]=$hwm
}

catchup_line()
{
	local label=$1 key=$2 alo_rate=$3
	awk -v l="$label" -v s="${SECS[$key]}" -v n="$ROWS" -v a="$alo_rate" -v t="${TXNS[$key]}" \
		-v c="${CPU[$key]}" -v b="${BROKER_CPU[$key]}" -v h="${HWM[$key]}" -v all="${SECS[${key}_all]}" \
		'BEGIN { rate = n / s
		         x = (a > 0) ? sprintf("%.2f", rate / a) : "-"
		         rpt = (t > 0) ? sprintf("%.0f", n / t) : "-"
		         if (t == 0) t = "-"
		         printf "%-26s %8.2f %8.0f %6s %7.2f %8.2f %6s %10s %7s  %s\n", l, s, rate, x, c, b, h, t, rpt, all }'
}

# Rate of exactly_once / at_least_once, round by round, then their median.
round_ratios_eos()
{
	local r list=''
	for ((r = 1; r <= REPEAT; r++)); do
		list+="$(calc "${SECS[alo_$r]} / ${SECS[eos_$r]}" '%.2f') "
	done
	echo "$list($(median <<<"$list"))"
}

report_catchup()
{
	local alo_rate=0
	echo "(1) catch-up: $ROWS INSERTs (transactions of $TXN_ROWS) committed with the worker stopped; start() ->" \
		"last row acknowledged (at_least_once) / its Kafka transaction committed (exactly_once); median of $REPEAT rounds"
	printf '%-26s %8s %8s %6s %7s %8s %6s %10s %7s  %s\n' run seconds rows/s x_alo cpu_s broker_s hwm_MB \
		kafka_txns rec/txn all_s
	if has_mode at_least_once; then
		alo_rate=$(calc "$ROWS / ${SECS[alo]}" '%.3f')
		catchup_line "at_least_once" alo "$alo_rate"
	fi
	! has_mode exactly_once || catchup_line "exactly_once" eos "$alo_rate"
	if has_mode at_least_once && has_mode exactly_once; then
		echo "    exactly_once / at_least_once rows/s, round by round (median): $(round_ratios_eos)"
	fi
}

report_latency()
{
	local key label txns rpt fmt='%-36s %7s %4s | %6s %6s %6s %6s | %6s %6s | %6s %6s | %6s %7s\n'
	echo "(2) latency: single-row transactions at $LAT_RATE/s for $LAT_SECONDS s (after ${LAT_WARMUP} s at that rate)," \
		"seen by a read_committed consumer (kcat); ms per record"
	echo "    visible: commit (source.ts_us) -> the consumer prints it; append: the broker's append (LogAppendTime)"
	printf '%-36s %7s %4s | %-27s | %-13s | %-13s | %s\n' '' '' '' 'commit -> visible' 'commit->app' 'app->visible' \
		'Kafka transactions'
	# shellcheck disable=SC2059 # the format is the table's
	printf "$fmt" run records tps p50 p99 p99.9 max p50 p99 p50 p99 txns rec/txn
	for key in "${LAT_KEYS[@]}"; do
		if [[ $key == lat_alo ]]; then
			label=at_least_once txns=- rpt=-
		else
			label="exactly_once, ${TMAX_GUC#cdc_kafka.}=${key#lat_eos_}"
			txns=${LAT_TXNS[$key]}
			rpt=$(calc "${LAT_RECS[$key]} / ($txns > 0 ? $txns : 1)" '%.1f')
		fi
		# shellcheck disable=SC2059,SC2086 # LAT* hold several figures each
		printf "$fmt" "$label" "${LAT_N[$key]}" "${LAT_TPS[$key]}" ${LAT[$key]} ${LAT_APPEND[$key]} \
			${LAT_VISIBLE[$key]} "$txns" "$rpt"
	done
}

report_targets()
{
	local ratio verdict key p50 p99 alo50 alo99
	echo "targets and ratios (exactly_once / at_least_once):"
	if has_mode at_least_once && has_mode exactly_once; then
		ratio=$(round_ratios_eos | sed -E 's/.*\((.*)\)/\1/')
		verdict=$(awk -v r="$ratio" 'BEGIN {print (r >= 0.8) ? "PASS" : "MISS"}')
		printf '  %-52s measured %6sx   %s\n' "catch-up rows/s >= 0.8 x at_least_once (per round)" "$ratio" "$verdict"
		read -r alo50 alo99 _ <<<"${LAT[lat_alo]}"
		for key in "${LAT_KEYS[@]}"; do
			[[ $key != lat_alo ]] || continue
			read -r p50 p99 _ <<<"${LAT[$key]}"
			printf '  %-52s %9s / %-9s   (no target)\n' "latency p50 / p99, ${TMAX_GUC#cdc_kafka.}=${key#lat_eos_}" \
				"$(calc "$p50 / $alo50" '%.1f')x" "$(calc "$p99 / $alo99" '%.1f')x"
		done
	else
		echo "  (one mode only: no ratio)"
	fi
	((!PERF)) || echo "(--perf: the first exactly_once catch-up ran under perf record)"
}

report()
{
	! has_mode at_least_once || summarise_rounds alo
	! has_mode exactly_once || summarise_rounds eos
	echo "cdc_kafka exactly-once benchmark (bench/eos.sh), $(date -u '+%Y-%m-%d %H:%M UTC')"
	versions "before the catch-up runs" | sed 's/; Debezium: [^ ]*$//'
	echo "settings:   schemas on, compression lz4, the Kafka transactions' bounds at their defaults" \
		"(100000 records, 256 MB, 1000 ms) but for the latency runs' ${TMAX_GUC#cdc_kafka.}; $PARTITIONS partitions per topic"
	echo
	report_catchup
	echo
	report_latency
	echo
	report_targets
}

main()
{
	parse_args "$@"
	eos_prereqs
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	make_workdir
	start_kafka
	start_postgres
	create_schema
	warm_up_kafka
	make_topics
	warm_up_eos
	phase_catchup
	phase_latency
	report | tee "$WORK/summary.txt"
	record_results "$WORK/summary.txt" "## Exactly-once benchmark: latest run of bench/eos.sh"
}

main "$@"
