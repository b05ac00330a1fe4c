# apt.sh - installing Debian packages without creating, starting or
# stopping a PostgreSQL server, for scripts that source this file
# (scripts/install-deps.sh, test/pkg/build.sh).
#
#   apt_guard; apt-get install ...; apt_unguard
#
# The caller also calls apt_unguard when it exits early (a trap), so that a
# failed install leaves nothing behind; apt_unguard does nothing unguarded.
# Needs root or sudo.

APT_SUDO=()
[ "$(id -u)" -eq 0 ] || APT_SUDO=(sudo)

apt_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# Package scripts must not create, start or stop a server here.  Two
# switches, both set only while apt-get runs, and undone afterwards:
#
# - postgresql-15's first install creates cluster "15 main" on port 5432
#   (its postinst runs pg_createcluster unless createcluster.conf says
#   create_main_cluster = off).  We add a drop-in saying off to
#   /etc/postgresql-common/createcluster.d (createcluster.conf includes that
#   directory): no cluster of any version is created while apt-get runs.  A drop-in rather
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
# Stopping the cluster after the install instead, as install-deps.sh once
# did, stops the user's own "15 main" whenever any package was missing.
APT_POLICY=/usr/sbin/policy-rc.d
APT_POLICY_SAVED=$APT_POLICY.cdc_kafka-saved
APT_DROPIN_DIR=/etc/postgresql-common/createcluster.d
APT_DROPIN=$APT_DROPIN_DIR/zz-cdc_kafka-apt.conf
APT_GUARDED=0

# Two runs at once would save each other's policy-rc.d: the second waits.
apt_guard() {
	exec 9>"/tmp/cdc_kafka-apt.lock"
	flock 9
	APT_GUARDED=1
	if [ -e "$APT_POLICY" ]; then
		"${APT_SUDO[@]}" mv "$APT_POLICY" "$APT_POLICY_SAVED"
	fi
	printf '#!/bin/sh\n# cdc_kafka scripts/apt.sh, while apt-get runs\nexit 101\n' |
		"${APT_SUDO[@]}" tee "$APT_POLICY" >/dev/null
	"${APT_SUDO[@]}" chmod 755 "$APT_POLICY"
	"${APT_SUDO[@]}" mkdir -p "$APT_DROPIN_DIR"
	printf '# cdc_kafka scripts/apt.sh, while apt-get runs\ncreate_main_cluster = false\n' |
		"${APT_SUDO[@]}" tee "$APT_DROPIN" >/dev/null
}

apt_unguard() {
	[ "$APT_GUARDED" -eq 1 ] || return 0
	APT_GUARDED=0
	"${APT_SUDO[@]}" rm -f "$APT_POLICY" "$APT_DROPIN"
	[ ! -e "$APT_POLICY_SAVED" ] || "${APT_SUDO[@]}" mv "$APT_POLICY_SAVED" "$APT_POLICY"
	"${APT_SUDO[@]}" rmdir "$APT_DROPIN_DIR" 2>/dev/null || true
	flock -u 9
}

