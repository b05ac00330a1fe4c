#!/usr/bin/env bash
#
# build.sh - the "package" suite of test/run-all.sh: build the Debian
# packages of debian/ (pg_buildext, one postgresql-<major>-cdc-kafka per
# major) and test the one for the system's PostgreSQL as a user gets it.
#
#   1. install what the build needs (dpkg-dev, debhelper, fakeroot,
#      postgresql-server-dev-all for pg_buildext, python3-jsonschema);
#   2. check META.json and debian/changelog against cdc_kafka.control
#      (test/pkg/check-meta.py);
#   3. dpkg-buildpackage -us -uc -b in a copy of the tree;
#   4. check the package's contents and dependencies;
#   5. dpkg -i it, after moving aside any file of it already there and owned
#      by no package (a "make install" of the same files);
#   6. on a cluster of its own: the loaded library is the package's, the
#      worker starts, a change is decoded (test/pkg/smoke.sh), then the
#      pg_regress suites against the packaged install (make regresscheck);
#   7. dpkg -r it, and put back what step 5 moved aside.
#
# One line per step with the time it took; a step that fails prints its
# output (apt-get's, dpkg-buildpackage's, ...), kept in $OUT/logs.  It starts
# no server but its own throwaway ones and never stops or restarts another:
# while it installs packages, Debian's postgresql-common is told to create no
# cluster and invoke-rc.d to start nothing (both restored afterwards), and
# postgresql-server-dev-all is taken in the version of the installed
# postgresql-common when the archive has it, so that is not upgraded.
#
# Root or sudo: apt-get, dpkg -i/-r.  As root, the clusters and the
# regression suites run as the "postgres" OS user.  Files: $OUT
# (default $CDC_TEST_DIR/package, CDC_TEST_DIR as test/run-all.sh's).
#
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${CDC_PKG_DIR:-${CDC_TEST_DIR:-/var/tmp/cdc_kafka-test}/package}
PYTHON=/usr/bin/python3   # Debian's, which python3-jsonschema is for
export DEBIAN_FRONTEND=noninteractive

BUILD_DEPS=(dpkg-dev debhelper fakeroot postgresql-server-dev-all python3-jsonschema)

if [ "$(id -u)" -eq 0 ]; then
	AS_ROOT=()
	AS_PG=(runuser -u postgres --)
else
	AS_ROOT=(sudo)
	AS_PG=()
fi

STEP=0
# step WHAT COMMAND...: run it, print one line with the time it took; on
# failure its output too (kept in $OUT/logs either way).  The command runs in
# a subshell with errexit on: nothing it sets reaches this shell.
step() {
	local what=$1 t0=$SECONDS rc=0 log
	shift
	STEP=$((STEP + 1))
	log="$OUT/logs/$(printf %02d $STEP).log"
	set +e
	(set -e; "$@") >"$log" 2>&1
	rc=$?
	set -e
	if [ $rc -eq 0 ]; then
		echo "package: $what ($((SECONDS - t0)) s)"
	else
		echo "package: $what: FAILED after $((SECONDS - t0)) s, exit status $rc; its output ($log):"
		tail -n 100 "$log" | sed 's/^/    /'
		exit $rc
	fi
}

# ---- 1. what the build needs ----------------------------------------------

# Whatever apt-get installs, no cluster is created and no server started or
# stopped (scripts/apt.sh).
. "$SRC/scripts/apt.sh"

install_build_deps() {
	local missing=() pkg common
	for pkg in "${BUILD_DEPS[@]}"; do
		apt_installed "$pkg" || missing+=("$pkg")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	apt_guard
	step "apt-get update" "${AS_ROOT[@]}" apt-get update
	# postgresql-server-dev-all wants postgresql-common of its own version
	common=$(dpkg-query -W -f='${Version}' postgresql-common 2>/dev/null || true)
	if [ -n "$common" ] && apt-cache madison postgresql-server-dev-all | grep -qF " $common "; then
		missing=("${missing[@]/#postgresql-server-dev-all/postgresql-server-dev-all=$common}")
	fi
	step "apt-get install ${missing[*]}" \
		"${AS_ROOT[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
	apt_unguard
}

# ---- 3, 4: build and inspect ----------------------------------------------

# The tracked and new files of the tree (not what a build or a test left).
copy_tree() {
	rm -rf "$OUT/build"
	mkdir -p "$BUILDDIR"
	if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$SRC" ls-files -z --cached --others --exclude-standard |
			rsync -a --from0 --files-from=- --ignore-missing-args "$SRC/" "$BUILDDIR/"
	else
		rsync -a --exclude .git --exclude '*.o' --exclude '*.so' --exclude '*.bc' \
			--exclude results --exclude tmp_check --exclude log --exclude work \
			--exclude target --exclude 'test/kafka/lib' "$SRC/" "$BUILDDIR/"
	fi
}

build_packages() {
	cd "$BUILDDIR"
	dpkg-buildpackage -us -uc -b -j"$(nproc)"
}

# check_contents DEB MAJOR: the library, the control file, every SQL script
# of the tree, under that major's directories, and nothing else but its
# bitcode (JIT) and documentation; Depends on the server and on librdkafka.
check_contents() {
	local deb=$1 v=$2 list f depends extra
	list=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|')
	extra=$(grep -Ev "^(/usr/lib/postgresql/$v/lib/(cdc_kafka\.so\$|bitcode/cdc_kafka[./])|/usr/share/postgresql/$v/extension/cdc_kafka[.-]|/usr/share/doc/postgresql-$v-cdc-kafka/)" <<<"$list" || true)
	[ -z "$extra" ] || { echo "$deb has files a user does not need:"; echo "$extra"; return 1; }
	for f in "/usr/lib/postgresql/$v/lib/cdc_kafka.so" \
		"/usr/share/postgresql/$v/extension/cdc_kafka.control" \
		$(cd "$SRC" && ls sql/cdc_kafka--*.sql | sed "s|^sql/|/usr/share/postgresql/$v/extension/|"); do
		grep -qx "$f" <<<"$list" || { echo "$deb lacks $f; it has:"; echo "$list"; return 1; }
	done
	depends=$(dpkg-deb -f "$deb" Depends)
	echo "Depends: $depends"
	grep -Eq "(^|, )postgresql-$v(,|$| )" <<<"$depends" || { echo "no Depends on postgresql-$v"; return 1; }
	grep -Eq "(^|, )librdkafka1( |,|$)" <<<"$depends" || { echo "no Depends on librdkafka1"; return 1; }
	echo "$list"
}

# ---- 5, 7: install and remove ---------------------------------------------

# Files of the package already on the system and owned by no package (a
# "make install") go to $OUT/moved-aside, back after dpkg -r.
move_aside() {
	local deb=$1 f present=() owned
	rm -rf "$OUT/moved-aside"
	for f in $(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|'); do
		[ ! -e "$f" ] || present+=("$f")
	done
	[ ${#present[@]} -gt 0 ] || return 0
	# one dpkg -S for all (it takes a second per call): "package: path" lines
	owned=$(dpkg -S "${present[@]}" 2>/dev/null | sed 's/^[^:]*: //' || true)
	for f in "${present[@]}"; do
		grep -qxF "$f" <<<"$owned" && continue
		echo "moving aside $f"
		mkdir -p "$OUT/moved-aside$(dirname "$f")"
		"${AS_ROOT[@]}" mv "$f" "$OUT/moved-aside$f"
	done
}

put_back() {
	[ -d "$OUT/moved-aside" ] || return 0
	(cd "$OUT/moved-aside" && find . ! -type d) | sed 's|^\.||' | while read -r f; do
		"${AS_ROOT[@]}" mkdir -p "$(dirname "$f")"
		"${AS_ROOT[@]}" mv "$OUT/moved-aside$f" "$f"
	done
	rm -rf "$OUT/moved-aside"
}

remove_package() {
	local deb=$1 f
	"${AS_ROOT[@]}" dpkg -r "$PACKAGE"
	! apt_installed "$PACKAGE" || { echo "$PACKAGE still installed"; return 1; }
	for f in $(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|'); do
		[ ! -e "$f" ] || { echo "$f left behind"; return 1; }
	done
}

# ---- 6: test the install --------------------------------------------------

# On success, its results go (make clean): test/run-all.sh's rsync into
# $CDC_TEST_DIR keeps directories named results or log, so $OUT would stay.
run_regress() {
	local pgc="/usr/lib/postgresql/$MAJOR/bin/pg_config"
	"${AS_PG[@]}" make -C "$BUILDDIR" -s PG_CONFIG="$pgc" regresscheck
	"${AS_PG[@]}" make -C "$BUILDDIR" -s PG_CONFIG="$pgc" clean
}

INSTALLED=""
cleanup() {
	local rc=$?
	apt_unguard
	if [ -n "$INSTALLED" ]; then
		"${AS_ROOT[@]}" dpkg -r "$PACKAGE" >>"$OUT/logs/cleanup.log" 2>&1 || true
		echo "package: removed $PACKAGE after a failure"
	fi
	put_back
	exit $rc
}

main() {
	local deb ver
	mkdir -p "$OUT/logs"
	rm -f "$OUT"/logs/*
	trap cleanup EXIT

	install_build_deps
	step "META.json and debian/changelog agree with cdc_kafka.control" \
		"$PYTHON" "$SRC/test/pkg/check-meta.py" "$SRC"

	ver=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
	BUILDDIR="$OUT/build/cdc-kafka-$ver"
	step "copy the tree to $BUILDDIR" copy_tree
	step "dpkg-buildpackage -us -uc -b" build_packages
	ls "$OUT"/build/*.deb | sed 's|^|package:   built |'

	# the package of the system's PostgreSQL (Debian 12: 15)
	MAJOR=""
	for deb in "$OUT"/build/postgresql-*-cdc-kafka_*.deb; do
		v=$(basename "$deb" | sed -E 's/^postgresql-([0-9]+)-cdc-kafka_.*/\1/')
		step "contents of $(basename "$deb")" check_contents "$deb" "$v"
		if [ -x "/usr/lib/postgresql/$v/bin/postgres" ] && [ -z "$MAJOR" ]; then
			MAJOR=$v
			DEB=$deb
		fi
	done
	[ -n "$MAJOR" ] || { echo "package: no package for an installed PostgreSQL server"; exit 1; }
	PACKAGE="postgresql-$MAJOR-cdc-kafka"

	if apt_installed "$PACKAGE"; then
		echo "package: $PACKAGE is already installed; remove it first (dpkg -r $PACKAGE)"
		exit 1
	fi
	step "move aside files of $PACKAGE owned by no package (make install)" move_aside "$DEB"
	INSTALLED=1
	step "dpkg -i $(basename "$DEB")" "${AS_ROOT[@]}" dpkg -i "$DEB"

	[ -z "${AS_PG[*]}" ] || chown -R postgres:postgres "$OUT/build"
	step "the installed package on a cluster of its own (test/pkg/smoke.sh)" \
		"${AS_PG[@]}" bash "$BUILDDIR/test/pkg/smoke.sh" "/usr/lib/postgresql/$MAJOR/bin" "$PACKAGE" \
		"$(sed -nE "s/^default_version *= *'([^']*)'.*/\1/p" "$SRC/cdc_kafka.control")"
	step "pg_regress suites against the installed package (make regresscheck)" run_regress

	step "dpkg -r $PACKAGE" remove_package "$DEB"
	INSTALLED=""
	put_back
	echo "package: $PACKAGE built, installed, tested and removed"
}

main
