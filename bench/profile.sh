#!/usr/bin/env bash
#
# bench/profile.sh -- where does decoding through cdc_kafka spend its time?
#
# Builds a small cluster with bench/decode.sh --keep (same settings, same
# workload, default 50,000 rows), then for each decoder (cdc_kafka schemas
# off, schemas on, and test_decoding for reference):
#   perf       samples the backend (cpu-clock, frame-pointer call graphs: the
#              server and cdc_kafka are built with -fno-omit-frame-pointer)
#              during --loops decodes, and prints the hottest functions by
#              self time and by inclusive time;
#   callgrind  (with --callgrind) runs one decode in a single-user backend
#              under valgrind and prints the instruction count and the
#              hottest functions by inclusive instructions.  Instruction
#              counts do not depend on the load of the machine, and exclude
#              the kernel (page faults, temp-file writes).
# perf.data, callgrind.out.* and the reports stay in --out (default
# bench/work/profile, ignored by git).  perf needs linux-perf and callgrind
# needs valgrind (Debian packages).  The server's own symbols are only
# those it exports (Debian strips it): static functions appear as addresses.
#
# USAGE
#   bench/profile.sh [--rows N] [--loops N] [--callgrind] [--out DIR] [--port N]
#
set -euo pipefail

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

ROWS=50000
LOOPS=10
CALLGRIND=0
OUT=$HERE/work/profile
PORT=54339

# decoder -> slot and options, as bench/decode.sh names them
PROFILED=(cdc_off cdc_on td)
declare -A SLOT=([td]=bench_test_decoding [cdc_off]=bench_cdc_kafka_schemas_off \
	[cdc_on]=bench_cdc_kafka_schemas_on)
declare -A OPTIONS=([td]="{}" [cdc_off]="{schemas,false}" [cdc_on]="{schemas,true}")

CLUSTER=""

log() { printf '[profile.sh] %s\n' "$*" >&2; }
die() { printf '[profile.sh] ERROR: %s\n' "$*" >&2; exit 1; }

parse_args()
{
	while (($#)); do
		case $1 in
			--rows | --loops | --out | --port)
				(($# >= 2)) || die "$1 needs a value"
				case $1 in
					--rows) ROWS=$2 ;;
					--loops) LOOPS=$2 ;;
					--out) OUT=$2 ;;
					--port) PORT=$2 ;;
				esac
				shift ;;
			--callgrind) CALLGRIND=1 ;;
			-h | --help) sed -n '/^# USAGE/,/^#$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
			*) die "unknown argument: $1 (see --help)" ;;
		esac
		shift
	done
	[[ $LOOPS =~ ^[1-9][0-9]*$ ]] || die "--loops needs a positive integer"
}

as_server_user()
{
	if ((EUID == 0)); then runuser -u postgres -- "$@"; else "$@"; fi
}

cleanup()
{
	[[ -n $CLUSTER && -d $CLUSTER ]] || return 0
	as_server_user "$PGBIN/pg_ctl" -D "$CLUSTER/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$CLUSTER"
}

make_cluster()
{
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd)
	CLUSTER=$(mktemp -u "${TMPDIR:-/tmp}/cdc_kafka_profile.XXXXXX")
	log "building a $ROWS-row cluster in $CLUSTER"
	"$HERE/decode.sh" --rows "$ROWS" --repeat 1 --keep --workdir "$CLUSTER" --port "$PORT" \
		>"$OUT/decode.txt" 2>"$OUT/decode.log" || die "decode.sh failed, see $OUT/decode.log"
}

# SQL of one decode, as decode.sh times it.
decode_sql()
{
	echo "SELECT out_rows FROM bench_decode('${SLOT[$1]}'," \
		"(SELECT end_lsn FROM bench_meta), '${OPTIONS[$1]}');"
}

# perf record one backend while it runs LOOPS decodes of decoder $1.
perf_one()
{
	local d=$1 pid perfpid i
	coproc PSQL { "$PGBIN/psql" -X -q -A -t -h "$CLUSTER" -p "$PORT" -U bench bench; }
	echo "SELECT pg_backend_pid();" >&"${PSQL[1]}"
	read -r pid <&"${PSQL[0]}"
	perf record -q -e cpu-clock -F 4000 --call-graph=fp -p "$pid" -o "$OUT/perf.$d.data" \
		2>/dev/null &
	perfpid=$!
	sleep 1
	for ((i = 0; i < LOOPS; i++)); do
		decode_sql "$d" >&"${PSQL[1]}"
		read -r _ <&"${PSQL[0]}"
	done
	kill -INT "$perfpid"
	wait "$perfpid" || true
	echo '\q' >&"${PSQL[1]}"
	wait "$PSQL_PID" 2>/dev/null || true
}

perf_report()
{
	local d=$1
	local data=$OUT/perf.$d.data
	{
		echo "=== $d: self time by function (perf, cpu-clock)"
		perf report -i "$data" --no-children --sort dso,symbol -g none --percent-limit 0.7 \
			--stdio 2>/dev/null | grep '%'
		echo "=== $d: inclusive time by function"
		perf report -i "$data" --children --sort symbol -g none --percent-limit 3 \
			--stdio 2>/dev/null | grep '%' | grep -v '0x0000'
	} >"$OUT/perf.$d.txt"
	head -n 40 "$OUT/perf.$d.txt"
}

callgrind_one()
{
	local d=$1
	local file=$OUT/callgrind.out.$d
	decode_sql "$d" | as_server_user valgrind --tool=callgrind --callgrind-out-file="$file" \
		"$PGBIN/postgres" --single -D "$CLUSTER/data" bench >"$OUT/callgrind.$d.log" 2>&1 ||
		die "callgrind run failed, see $OUT/callgrind.$d.log"
	{
		echo "=== $d: instructions (whole single-user backend, one decode)"
		grep -o 'Collected : [0-9]*' "$OUT/callgrind.$d.log"
		echo "=== $d: inclusive instructions by function"
		callgrind_annotate --inclusive=yes "$file" 2>/dev/null | grep -E '^ *[0-9,]+ ' |
			grep -v -E '\?\?\?:0x|below main|libc-start|ld-linux' | awk 'NR <= 45'
	} >"$OUT/callgrind.$d.txt"
	head -n 30 "$OUT/callgrind.$d.txt"
}

main()
{
	local d
	parse_args "$@"
	command -v perf >/dev/null || die "perf is missing: apt-get install linux-perf"
	((!CALLGRIND)) || command -v valgrind >/dev/null || die "valgrind is missing: apt-get install valgrind"
	trap cleanup EXIT
	make_cluster
	cat "$OUT/decode.txt"
	for d in "${PROFILED[@]}"; do
		log "perf: $LOOPS decodes of $d"
		perf_one "$d"
		perf_report "$d"
	done
	((CALLGRIND)) || return 0
	as_server_user "$PGBIN/pg_ctl" -D "$CLUSTER/data" -m fast -w stop >/dev/null
	((EUID != 0)) || chmod 777 "$OUT"
	for d in "${PROFILED[@]}"; do
		log "callgrind: one decode of $d"
		callgrind_one "$d"
	done
}

main "$@"
