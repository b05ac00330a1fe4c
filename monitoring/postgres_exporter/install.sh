#!/usr/bin/env bash
#
# install.sh - install postgres_exporter (the Go module
# github.com/prometheus-community/postgres_exporter) for the monitoring
# test (test/t/032_exporter.pl) and for anyone trying the queries file.
#
# Quiet but visible: one line per step with the time it took; on failure,
# the tool's own output.  Installs Go from Debian's packages only when no
# go command is found (as root).  Touches no PostgreSQL server.
#
# Everything Go downloads or builds stays under CDC_GO_CACHE (default
# /var/cache/cdc_kafka/go: GOPATH, GOBIN, GOMODCACHE, GOCACHE), kept
# between runs and readable by every user (the TAP suites run as postgres).
# The binary: $CDC_GO_CACHE/bin/postgres_exporter.
#
# monitoring/postgres_exporter/install.sh

set -euo pipefail

VERSION=${CDC_EXPORTER_VERSION:-v0.17.1}
MODULE=github.com/prometheus-community/postgres_exporter
CACHE=${CDC_GO_CACHE:-/var/cache/cdc_kafka/go}
export GOPATH="$CACHE" GOBIN="$CACHE/bin" GOMODCACHE="$CACHE/pkg/mod" GOCACHE="$CACHE/build-cache"
export PATH="$PATH:/usr/local/go/bin"
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

# step "what" command...: runs the command with its output in $LOG, prints
# one line with the time it took, and the output if it failed.
step() {
	local what=$1 start=$SECONDS
	shift
	if "$@" >"$LOG" 2>&1; then
		echo "exporter-setup: $what ($((SECONDS - start)) s)"
	else
		echo "exporter-setup: $what FAILED after $((SECONDS - start)) s:" >&2
		cat "$LOG" >&2
		return 1
	fi
}

install_go() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "no go command, and only root can install Debian's golang-go"
		return 1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q golang-go ||
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q golang-go; }
}

# `go install module/cmd@version` asks the module proxy for the module's
# version list (to report a deprecation); a proxy that serves the version
# but not the list refuses that.  Then download the exact version and
# install from its own directory: the same module, go.mod and go.sum.
install_exporter() {
	go install "$MODULE/cmd/postgres_exporter@$VERSION" && return 0
	echo "go install @$VERSION refused (above); installing from the downloaded module instead"
	local dir
	dir=$(go mod download -json "$MODULE@$VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	[ -n "$dir" ] || { echo "go mod download gave no directory"; return 1; }
	(cd "$dir" && go install ./cmd/postgres_exporter)
}

install_and_stamp() {
	install_exporter && echo "$VERSION" >"$GOBIN/postgres_exporter.version"
}

# the version installed, from the stamp written after a successful install
# (a binary built from the module directory does not know its version)
installed_version() {
	cat "$GOBIN/postgres_exporter.version" 2>/dev/null || true
}

mkdir -p "$CACHE"
if ! command -v go >/dev/null; then
	step "Go from Debian's golang-go" install_go
fi
# the module says go 1.23: Go 1.21 and later fetch that toolchain by
# themselves (GOTOOLCHAIN=auto, from the module proxy); older ones cannot
minor=$(go env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
if [ "${minor:-0}" -lt 21 ]; then
	echo "exporter-setup: $(go version) is too old for postgres_exporter $VERSION (Go 1.21 or later needed)" >&2
	exit 1
fi
if [ -x "$GOBIN/postgres_exporter" ] && [ "$(installed_version)" = "$VERSION" ]; then
	echo "exporter-setup: postgres_exporter $VERSION already in $GOBIN"
else
	step "postgres_exporter $VERSION (go install, $(go version | cut -d' ' -f3))" install_and_stamp
fi
# the module cache is read-only for its owner: make all of it readable
step "cache readable by every user" chmod -R a+rX "$CACHE"
