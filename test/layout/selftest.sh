#!/usr/bin/env bash
#
# selftest.sh - show that test/check-layout.py fails when a layout rule is
# broken.  In a copy of the built tree, each case injects one violation (a
# plugin file including a worker header, a new cycle, an unprefixed export, a
# common file calling palloc, ...), rebuilds the one object it touched, and
# checks that the checker exits 1 with the expected message and more
# violations than the untouched copy has.  One more case, clean_tree, builds
# a small tree that keeps every rule and checks that the checker passes it.
#
# Usage: test/layout/selftest.sh [case ...]     (default: every case)
#
# Run after make (the copy takes the built objects along).  PostgreSQL is the
# one of PG_CONFIG, else $PG_BIN/pg_config (PG_BIN defaults to
# /usr/lib/postgresql/15/bin), as for test/run-all.sh.
#
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_CONFIG=${PG_CONFIG:-$PG_BIN/pg_config}
CHECK="$SRC/test/check-layout.py"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cdc-layout-selftest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# ---- helpers --------------------------------------------------------------

# The tree the checker reads, objects included, times kept (cp -a), so
# that make rebuilds only what a case touches.
make_base() {
	mkdir -p "$TMP/base/test"
	cp -a "$SRC/Makefile" "$SRC/cdc_kafka.control" "$SRC/src" "$SRC/sql" "$TMP/base/"
	cp -a "$SRC/test/unit" "$TMP/base/test/"
	if ! compgen -G "$TMP/base/src/*/*.o" >/dev/null; then
		echo "selftest: no objects in $SRC/src: run make first" >&2
		exit 2
	fi
}

# Append C text to a file of the case's tree.
append() {
	printf '%s\n' "$2" >>"$CASE/$1"
}

# Insert a line before the first line matching a pattern.
insert_before() {
	local file=$1 pattern=$2 line=$3
	awk -v p="$pattern" -v l="$line" \
		'!done && index($0, p) == 1 { print l; done = 1 } { print }' \
		"$CASE/$file" >"$CASE/$file.new"
	mv "$CASE/$file.new" "$CASE/$file"
}

# Rebuild objects of the case's tree (warnings of injected code go to a log).
rebuild() {
	make -C "$CASE" -s PG_CONFIG="$PG_CONFIG" "$@" >>"$CASE/make.log" 2>&1 || {
		cat "$CASE/make.log" >&2
		return 1
	}
}

violations() {
	sed -n 's/^layout: [0-9]* rules checked, \([0-9]*\) violations$/\1/p' <<<"$1"
}

# ---- the cases: one function each, editing the tree in $CASE ---------------
# (case_<name>: the message expected, as an extended regular expression, is
# the first line of the function's comment; see EXPECT below)

case_a_file() {
	append src/stray.c 'int stray_value;'
}

case_a_dir() {
	mkdir "$CASE/src/util"
	append src/util/util.c 'int util_value;'
}

case_b_plugin_includes_worker() {
	insert_before src/plugin/recout.c '#include "plugin/recout.h"' '#include "worker/status.h"'
	rebuild src/plugin/recout.o
}

case_b_unqualified() {
	sed -i 's|#include "plugin/relinfo.h"|#include "relinfo.h"|' "$CASE/src/plugin/encoder.c"
	rebuild src/plugin/encoder.o
}

case_b_common_includes_postgres() {
	insert_before src/common/binenc.c '#include <' '#include "postgres.h"'
	rebuild src/common/binenc.o
}

case_c_shadowing_header() {
	printf '#ifndef CDC_COMMON_BASE64_H\n#define CDC_COMMON_BASE64_H\n#endif\n' \
		>"$CASE/src/common/base64.h"
}

case_d_cycle() {
	# decimal calls temporal, which calls decimal
	append src/common/decimal.c '
extern int	temporal_date_days();
int
decimal_selftest_cycle(void)
{
	return temporal_date_days();
}'
	rebuild src/common/decimal.o
}

case_d_upward() {
	append src/plugin/recout.c '
extern void status_wake();
void
recout_selftest_upward(void)
{
	status_wake();
}'
	rebuild src/plugin/recout.o
}

case_e_common_calls_palloc() {
	append src/common/binenc.c '
extern void *palloc(unsigned long size);
void *
binenc_selftest_alloc(unsigned long size)
{
	return palloc(size);
}'
	rebuild src/common/binenc.o
}

case_f_unprefixed() {
	append src/worker/status.c 'int			selftest_counter = 0;'
	rebuild src/worker/status.o
}

case_f_unnamed_entry_point() {
	append src/worker/api.c '
void		cdc_kafka_selftest(void);
void
cdc_kafka_selftest(void)
{
}'
	rebuild src/worker/api.o
}

case_g_interposed() {
	append src/common/watermark.c 'int			work_mem = 4096;'
	rebuild src/common/watermark.o
}

case_h_foreign_declaration() {
	insert_before src/common/binenc.h '#endif' 'extern void watermark_reset(void);'
}

case_h_unused_export() {
	append src/plugin/recout.c '
int
recout_selftest_unused(void)
{
	return 0;
}'
	rebuild src/plugin/recout.o
}

case_h_no_header() {
	rm "$CASE/src/worker/producer.h"
}

declare -A EXPECT=(
	[a_file]='^rule a: src/stray\.c: a file outside the rooms'
	[a_dir]='^rule a: src/util: a directory outside the rooms'
	[b_plugin_includes_worker]='^rule b: src/plugin/recout\.c: #include "worker/status\.h": plugin may include headers of plugin and common only'
	[b_unqualified]='^rule b: src/plugin/encoder\.c: #include "relinfo\.h": include project headers as "plugin/relinfo\.h"'
	[b_common_includes_postgres]='^rule b: src/common/binenc\.c: #include "postgres\.h": common includes nothing of PostgreSQL'
	[c_shadowing_header]="^rule c: src/common/base64\.h has the name of PostgreSQL's \"common/base64\.h\""
	[d_cycle]='^rule d: cycle common/decimal -> common/temporal -> common/decimal \(common/decimal calls temporal_date_days; common/temporal calls decimal_'
	[d_upward]='^rule d: plugin/recout -> worker/status: plugin may use plugin and common only \(calls status_wake\)'
	[e_common_calls_palloc]='^rule e: src/common/binenc\.o calls palloc, which the postgres executable defines'
	[f_unprefixed]='^rule f: src/worker/status\.o exports selftest_counter: name it status_\.\.\.'
	[f_unnamed_entry_point]='^rule f: src/worker/api\.o exports cdc_kafka_selftest: name it api_\.\.\.'
	[g_interposed]='^rule g: src/common/watermark\.o exports work_mem, which the postgres executable exports too'
	[h_foreign_declaration]='^rule h: src/common/binenc\.h declares watermark_reset, which common/watermark defines'
	[h_unused_export]='^rule h: src/plugin/recout\.o exports recout_selftest_unused, which no other module uses'
	[h_no_header]='^rule h: worker/producer exports producer_.* but has no header src/worker/producer\.h'
)
ORDER=(a_file a_dir b_plugin_includes_worker b_unqualified b_common_includes_postgres
	c_shadowing_header d_cycle d_upward e_common_calls_palloc f_unprefixed
	f_unnamed_entry_point g_interposed h_foreign_declaration h_unused_export
	h_no_header clean_tree)

# ---- a small tree that keeps every rule: the checker must pass it ---------

write() {
	mkdir -p "$(dirname "$CASE/$1")"
	printf '%s\n' "$2" >"$CASE/$1"
}

clean_tree() {
	CASE="$TMP/clean"
	write sql/clean--1.0.sql "CREATE FUNCTION hello() RETURNS void
AS 'MODULE_PATHNAME', 'cdc_kafka_hello' LANGUAGE C;"
	write src/common/num.h 'extern int num_twice(int x);'
	write src/common/num.c '#include <stddef.h>
#include "common/num.h"
int num_twice(int x) { return 2 * x; }'
	write src/plugin/fmt.h '#include "common/num.h"
extern int fmt_value(int x);'
	write src/plugin/fmt.c '#include "plugin/fmt.h"
int fmt_value(int x) { return num_twice(x); }
void _PG_output_plugin_init(void *cb) { (void) cb; }'
	write src/worker/entry.c '#include "plugin/fmt.h"
static const char *bgw_function_name = "cdc_kafka_worker_main";
const void *pg_finfo_cdc_kafka_hello(void) { return bgw_function_name; }
int cdc_kafka_hello(void) { return fmt_value(1); }
void cdc_kafka_worker_main(void) { fmt_value(2); }
void _PG_init(void) { }'
	for c in "$CASE"/src/*/*.c; do
		cc -c -I"$CASE/src" -o "${c%.c}.o" "$c"
	done
}

run_clean_tree() {
	local out status=0
	clean_tree
	out=$(python3 "$CHECK" --root "$TMP/clean" --pg-config "$PG_CONFIG") || status=$?
	if [ "$status" -eq 0 ] && [ "$out" = "layout: 8 rules checked, 0 violations" ]; then
		echo "selftest: clean_tree: ok"
		return 0
	fi
	echo "selftest: clean_tree: FAILED (exit $status; a tree keeping the rules must pass)"
	sed 's/^/  got: /' <<<"$out"
	return 1
}

# ---- main -----------------------------------------------------------------

run_case() {
	local name=$1 baseline=$2 out status=0 count
	CASE="$TMP/$name"
	cp -a "$TMP/base" "$CASE"
	if ! "case_$name"; then
		echo "selftest: $name: FAILED (could not inject the violation)"
		return 1
	fi
	out=$(python3 "$CHECK" --root "$CASE" --pg-config "$PG_CONFIG") || status=$?
	count=$(violations "$out")
	if [ "$status" -eq 1 ] && grep -qE "${EXPECT[$name]}" <<<"$out" &&
		[ -n "$count" ] && [ "$count" -gt "$baseline" ]; then
		echo "selftest: $name: ok"
		rm -rf "$CASE"
		return 0
	fi
	echo "selftest: $name: FAILED (exit $status, $count violations, $baseline before)"
	echo "  expected: ${EXPECT[$name]}"
	sed 's/^/  got: /' <<<"$out"
	return 1
}

main() {
	local cases=("$@") passed=0 failed=0 out status=0 baseline
	[ ${#cases[@]} -gt 0 ] || cases=("${ORDER[@]}")
	make_base
	out=$(python3 "$CHECK" --root "$TMP/base" --pg-config "$PG_CONFIG") || status=$?
	baseline=$(violations "$out")
	if [ "$status" -gt 1 ] || [ -z "$baseline" ]; then
		echo "selftest: the checker does not run on the untouched tree:" >&2
		echo "$out" >&2
		exit 2
	fi
	for name in "${cases[@]}"; do
		if [ "$name" = clean_tree ]; then
			if run_clean_tree; then
				passed=$((passed + 1))
			else
				failed=$((failed + 1))
			fi
			continue
		fi
		if [ -z "${EXPECT[$name]:-}" ]; then
			echo "selftest: unknown case \"$name\" (${ORDER[*]})" >&2
			exit 2
		fi
		if run_case "$name" "$baseline"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

main "$@"
