#!/usr/bin/env bash
#
# test.sh - the lake suite of test/run-all.sh: ruff, the pytest tests of
# lake/ (decoding and merge logic in pure Python, the batch writer on a local
# Spark), then the end-to-end TAP suite test/t/035_lake.pl (PostgreSQL with
# the worker, a Kafka broker, the Spark job, the lake compared with the
# source).  Needs lake/install.sh's environment: LAKE_PYTHON, LAKE_JARS.
#
# Usage: lake/test.sh     (PG_BIN: the PostgreSQL whose pg_config builds the TAP run)
#
set -euo pipefail

LAKE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$LAKE")
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
: "${LAKE_PYTHON:?run lake/install.sh first (LAKE_PYTHON=.../venv/bin/python)}"
: "${LAKE_JARS:?run lake/install.sh first (LAKE_JARS=.../jars)}"
BIN=$(dirname "$LAKE_PYTHON")
export LAKE_PYTHON LAKE_JARS
# Spark next to the broker on a busy machine: give the broker longer to start
export KAFKA_START_TIMEOUT=${KAFKA_START_TIMEOUT:-180}

echo "lake: ruff"
(cd "$LAKE" && "$BIN/ruff" check --no-cache . && "$BIN/ruff" format --no-cache --check .)

echo "lake: pytest (decoding, merge logic, the batch writer on local Spark)"
(cd "$LAKE" && "$LAKE_PYTHON" -m pytest -q -p no:cacheprovider tests)

echo "lake: end to end (test/t/035_lake.pl)"
# prove_installcheck replaces log/tap with this run's logs: keep the tap
# suite's, put these in log/lake
rm -rf "$SRC/log/lake" "$SRC/log/tap.keep"
[ ! -d "$SRC/log/tap" ] || mv "$SRC/log/tap" "$SRC/log/tap.keep"
rc=0
CDC_LAKE_SUITE=1 make -C "$SRC" -s PG_CONFIG="$PG_BIN/pg_config" prove_installcheck \
	PROVE_TESTS=test/t/035_lake.pl || rc=$?
[ ! -d "$SRC/log/tap" ] || mv "$SRC/log/tap" "$SRC/log/lake"
[ ! -d "$SRC/log/tap.keep" ] || mv "$SRC/log/tap.keep" "$SRC/log/tap"
exit $rc
