#!/usr/bin/env bash
#
# build.sh - build cdc_kafka the way the test command does, with warnings as
# errors (make WERROR=1), and install it into the PostgreSQL of $PG_BIN
# (default Debian's, /usr/lib/postgresql/15/bin), as root or through sudo.
# One line per step with its time; the compiler's first errors if it fails.
# scripts/demo.sh and test/run-all.sh both build through it, so whichever
# runs second finds the objects up to date, built in the same mode (the
# Makefile rebuilds when the mode changes).
#
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
STEP_WHO=build
. "$SRC/scripts/step.sh"
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_CONFIG=$PG_BIN/pg_config
MAKE=(make -C "$SRC" -s PG_CONFIG="$PG_CONFIG" WERROR=1)

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

[ -x "$PG_CONFIG" ] || { echo "build: no $PG_CONFIG (set PG_BIN)" >&2; exit 1; }

MARKER=$(mktemp)
trap 'rm -f "$MARKER"' EXIT
compiled() {
	local n
	n=$(find "$SRC/src" -name '*.o' -newer "$MARKER" | wc -l)
	if [ "$n" -eq 0 ]; then echo "up to date"; elif [ "$n" -eq 1 ]; then echo "1 file compiled"; else echo "$n files compiled"; fi
}

STEP_LOG=build STEP_SHOW=head STEP_NOTE=compiled \
	step "cdc_kafka with warnings as errors for $("$PG_CONFIG" --version | cut -d" " -f1,2) ($PG_CONFIG)" \
	"${MAKE[@]}"
STEP_LOG=install step "installing into $("$PG_CONFIG" --pkglibdir) and $("$PG_CONFIG" --sharedir)/extension" \
	as_root "${MAKE[@]}" install
