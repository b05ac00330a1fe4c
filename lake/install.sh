#!/usr/bin/env bash
#
# install.sh - install what the lake job (lake/, Spark + Delta Lake) needs,
# cached under $CDC_LAKE_CACHE (default /var/cache/cdc_kafka/lake), kept
# between runs:
#
#   venv/   a Python virtual environment (Debian's python3) with PyPI's
#           pyspark and delta-spark, pytest and ruff
#   jars/   from Maven Central (lake/pom.xml): the Kafka source of
#           Structured Streaming and Delta Lake, with the runtime
#           dependencies pyspark does not already ship
#
# One line per step with its time (scripts/step.sh; pip's and Maven's output
# in the step's log); a step whose result is there with the same versions
# says so and does nothing.  Java 17 or newer must be installed
# (scripts/install-deps.sh installs it): without it the script stops with a
# clear error.  The last line printed on stdout is the environment a caller
# needs, e.g.
#
#   LAKE_PYTHON=/var/cache/cdc_kafka/lake/venv/bin/python LAKE_JARS=/var/cache/cdc_kafka/lake/jars
#
# Usage: lake/install.sh        (as root, or a user who can write the cache)
#
set -euo pipefail

LAKE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$LAKE")
STEP_WHO=lake-install
. "$SRC/scripts/step.sh"

CACHE=${CDC_LAKE_CACHE:-/var/cache/cdc_kafka/lake}
# pyspark and the Maven artifacts go together: delta-spark_4.1 is built for
# Spark 4.1, spark-sql-kafka-0-10 must be Spark's own version (lake/pom.xml)
PYSPARK_VERSION=4.1.1
DELTA_VERSION=4.1.0
PIP_PACKAGES=("pyspark==$PYSPARK_VERSION" "delta-spark==$DELTA_VERSION" "pytest>=8" "ruff>=0.6")

die() { echo "$STEP_WHO: error: $*" >&2; exit 1; }

check_java() {
	local v
	command -v java >/dev/null 2>&1 ||
		die "no java found: Spark needs Java 17 or newer (apt-get install openjdk-17-jre-headless, or bash scripts/install-deps.sh)"
	v=$(java -version 2>&1 | sed -nE '1s/.*version "([0-9]+).*/\1/p')
	[ -n "$v" ] && [ "$v" -ge 17 ] ||
		die "Spark needs Java 17 or newer, found: $(java -version 2>&1 | head -1)"
	echo "$STEP_WHO: java $v: present"
}

# Debian's python3, not one in a user's home (pyenv's under /root): the
# suites run the venv as the postgres user.
PYTHON=${LAKE_BASE_PYTHON:-/usr/bin/python3}

check_python() {
	[ -x "$PYTHON" ] || die "no $PYTHON found (apt-get install python3 python3-venv)"
	"$PYTHON" -c 'import ensurepip, venv' 2>/dev/null ||
		die "$PYTHON cannot make virtual environments (apt-get install python3-venv)"
}

stamp_of() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }

# The venv is built where it stays (a venv cannot move), marked complete last.
make_venv() {
	local dir=$CACHE/venv stamp
	stamp=$(stamp_of "${PIP_PACKAGES[@]}" "$PYTHON" "$("$PYTHON" --version 2>&1)")
	if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$stamp" ]; then
		echo "$STEP_WHO: Python environment (pyspark $PYSPARK_VERSION, delta-spark $DELTA_VERSION): present in $dir"
		return 0
	fi
	rm -rf "$dir"
	STEP_LOG=lake-venv step "creating a Python environment in $dir" "$PYTHON" -m venv "$dir"
	STEP_LOG=lake-pip step "installing from PyPI: ${PIP_PACKAGES[*]} (about 450 MB the first time)" \
		env PIP_CACHE_DIR="$CACHE/pip" PIP_DISABLE_PIP_VERSION_CHECK=1 \
		"$dir/bin/pip" install --progress-bar off "${PIP_PACKAGES[@]}"
	echo "$stamp" >"$dir/.complete"
}

# Maven's jars, less those pyspark ships (by artifact name, whatever the
# version): two versions of one library on the class path is a lottery.
make_jars() {
	local dir=$CACHE/jars stamp tmp sparkjars jar base
	stamp=$(stamp_of "$(cat "$LAKE/pom.xml")" "$PYSPARK_VERSION")
	if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$stamp" ]; then
		echo "$STEP_WHO: Maven jars (spark-sql-kafka-0-10, delta-spark): present in $dir"
		return 0
	fi
	command -v mvn >/dev/null 2>&1 || die "no mvn found (apt-get install maven, or bash scripts/install-deps.sh)"
	tmp=$(mktemp -d "$CACHE/jars.tmp.XXXXXX")
	STEP_LOG=lake-maven step "fetching from Maven Central: spark-sql-kafka-0-10 and delta-spark (lake/pom.xml)" \
		mvn -B -f "$LAKE/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
		-DoutputDirectory="$tmp"
	sparkjars=$("$CACHE/venv/bin/python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
	for jar in "$tmp"/*.jar; do
		base=$(basename "$jar" | sed -E 's/-[0-9][^-]*(-[A-Za-z0-9.]+)?\.jar$//')
		if compgen -G "$sparkjars/$base-[0-9]*.jar" >/dev/null; then rm -f "$jar"; fi
	done
	echo "$stamp" >"$tmp/.complete"
	rm -rf "$dir"
	mv -T "$tmp" "$dir"
	echo "$STEP_WHO: kept $(find "$dir" -name '*.jar' | wc -l) jars that pyspark lacks: $(cd "$dir" && ls ./*.jar | sed 's|^\./||' | tr '\n' ' ')"
}

main() {
	check_java
	check_python
	mkdir -p "$CACHE" 2>/dev/null && [ -w "$CACHE" ] ||
		die "cannot write $CACHE: run this once as root, or set CDC_LAKE_CACHE to a directory of yours"
	make_venv
	make_jars
	# the suites run as the postgres user: readable by everyone
	[ "$(id -u)" -ne 0 ] || chmod -R a+rX "$CACHE"
	echo "LAKE_PYTHON=$CACHE/venv/bin/python LAKE_JARS=$CACHE/jars"
}

main
