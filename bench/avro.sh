#!/usr/bin/env bash
#
# bench/avro.sh -- what format 'avro' costs and saves against JSON with
# schemas: bytes per record and decoding throughput, in the same run.
#
# Builds bench/decode.sh's cluster and rows (--keep: its slots stay), starts
# a schema registry (test/registry/registry.sh, Apicurio in memory), then
# decodes the same rows through cdc_kafka's slot, interleaved, --repeat
# times each after one unmeasured round (the Avro one registers the
# schemas):
#   json   schemas on (the default JSON records),
#   avro   format avro (schemas derived, registered once, values encoded
#          with libavro; Confluent wire format),
# timed inside the server as decode.sh times its decoders (every output row
# produced and stored in the function's tuplestore, nothing sent to the
# client).  Prints rows, bytes per record, median seconds, rows/s and the
# ratios avro/json.  Measures the value records (output_format value); keys
# are a few bytes in both formats.
#
# USAGE
#   bench/avro.sh [--rows N] [--repeat N] [--port N] [--registry-port N]
#                 [--plugin PATH/cdc_kafka.so]   (decode.sh's --plugin)
#
set -euo pipefail

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
REGISTRY_SH=$ROOT/test/registry/registry.sh

ROWS=1000000
REPEAT=3
PORT=54341
REGISTRY_PORT=28097
CLUSTER=""
REGISTRY_DIR=""
SLOT=bench_cdc_kafka_schemas_on
PLUGIN_ARGS=()

log() { printf '[avro.sh] %s\n' "$*" >&2; }
die() { printf '[avro.sh] ERROR: %s\n' "$*" >&2; exit 1; }

parse_args()
{
	while (($#)); do
		case $1 in
			--rows | --repeat | --port | --registry-port)
				(($# >= 2)) || die "$1 needs a value"
				[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer"
				case $1 in
					--rows) ROWS=$2 ;;
					--repeat) REPEAT=$2 ;;
					--port) PORT=$2 ;;
					--registry-port) REGISTRY_PORT=$2 ;;
				esac
				shift ;;
			--plugin)
				(($# >= 2)) || die "$1 needs a value"
				PLUGIN_ARGS=(--plugin "$2")
				shift ;;
			-h | --help) sed -n '/^# USAGE/,/^#$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
			*) die "unknown argument: $1 (see --help)" ;;
		esac
		shift
	done
}

as_server_user()
{
	if ((EUID == 0)); then runuser -u postgres -- "$@"; else "$@"; fi
}

bench_psql()
{
	"$PGBIN/psql" -X -q -A -t -F ' ' -v ON_ERROR_STOP=1 -h "$CLUSTER" -p "$PORT" -U bench -d bench "$@"
}

cleanup()
{
	[[ -z $REGISTRY_DIR ]] || as_server_user bash "$REGISTRY_SH" stop --dir "$REGISTRY_DIR" >/dev/null 2>&1 || true
	[[ -n $CLUSTER && -d $CLUSTER ]] || return 0
	as_server_user "$PGBIN/pg_ctl" -D "$CLUSTER/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$CLUSTER"
}

start_servers()
{
	CLUSTER=$(mktemp -u "${TMPDIR:-/tmp}/cdc_kafka_avro.XXXXXX")
	log "building decode.sh's $ROWS-row cluster in $CLUSTER"
	"$HERE/decode.sh" --rows "$ROWS" --repeat 1 --keep --workdir "$CLUSTER" --port "$PORT" "${PLUGIN_ARGS[@]}" \
		>"$CLUSTER.decode.txt" 2>"$CLUSTER.decode.log" || die "decode.sh failed, see $CLUSTER.decode.log"
	REGISTRY_DIR=$CLUSTER/registry
	REGISTRY_URL=$(as_server_user bash "$REGISTRY_SH" start --dir "$REGISTRY_DIR" \
		--port "$REGISTRY_PORT" 2>"$CLUSTER.registry.log") ||
		die "the schema registry did not start, see $CLUSTER.registry.log"
	log "schema registry at $REGISTRY_URL"
	bench_psql <<'EOF'
CREATE FUNCTION bench_decode_binary(slot name, upto pg_lsn, opts text[],
                                    OUT out_rows bigint, OUT out_bytes bigint,
                                    OUT seconds float8)
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	SELECT count(*), coalesce(sum(octet_length(data)), 0)
	  INTO out_rows, out_bytes
	  FROM pg_logical_slot_peek_binary_changes(slot, upto, NULL, VARIADIC opts);
	seconds := extract(epoch FROM clock_timestamp() - t0);
END
$$;
EOF
}

# One decode of format $1: "rows bytes seconds".
decode_once()
{
	local opts
	case $1 in
		json) opts="{schemas,true}" ;;
		avro) opts="{format,avro,schema_registry_url,$REGISTRY_URL,schema_name_adjustment_mode,avro}" ;;
	esac
	bench_psql -c "SELECT out_rows, out_bytes, round(seconds::numeric, 3)
	                 FROM bench_decode_binary('$SLOT', (SELECT end_lsn FROM bench_meta), '$opts')"
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

main()
{
	local f i rows bytes secs
	declare -A ROWS_OF BYTES_OF TIMES
	parse_args "$@"
	trap cleanup EXIT
	start_servers
	for f in json avro; do
		log "warm-up round: $f"
		decode_once "$f" >/dev/null
	done
	for ((i = 1; i <= REPEAT; i++)); do
		for f in json avro; do
			read -r rows bytes secs < <(decode_once "$f")
			log "round $i, $f: $rows records, $bytes bytes, $secs s"
			ROWS_OF[$f]=$rows BYTES_OF[$f]=$bytes
			TIMES[$f]+="$secs "
		done
	done
	echo "cdc_kafka format avro vs json (bench/avro.sh), $(date -u '+%Y-%m-%d %H:%M') UTC"
	echo "workload:   $ROWS rows of bench/decode.sh's table; median of $REPEAT decodes after 1 warm-up; values only"
	echo "load avg:   $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	printf '%-8s %9s %12s %9s %9s %10s\n' format records bytes B/record median_s rows/s
	for f in json avro; do
		secs=$(echo "${TIMES[$f]}" | median)
		printf '%-8s %9d %12d %9.0f %9.3f %10.0f\n' "$f" "${ROWS_OF[$f]}" "${BYTES_OF[$f]}" \
			"$(awk "BEGIN {print ${BYTES_OF[$f]} / ${ROWS_OF[$f]}}")" "$secs" \
			"$(awk "BEGIN {print ${ROWS_OF[$f]} / $secs}")"
		TIMES[$f]=$secs
	done
	printf 'avro / json: bytes %.3f, time %.3f\n' \
		"$(awk "BEGIN {print ${BYTES_OF[avro]} / ${BYTES_OF[json]}}")" \
		"$(awk "BEGIN {print ${TIMES[avro]} / ${TIMES[json]}}")"
}

main "$@"
