#!/usr/bin/env bash
#
# check-avro.sh - cdc_kafka's Avro schemas and bytes against Debezium's.
#
# Captures Debezium 3.6.1 with Apicurio's AvroConverter over the conformance
# workload (probe/run.sh: its own PostgreSQL and registry), then derives the
# Avro schema of every key and value of the conformance run's Debezium JSON
# capture and compares it byte for byte with the one the converter
# registered (make avroschemacheck), and encodes every payload under it and
# compares the bytes with what the converter wrote (make avroenccheck).  Then
# cdc_kafka's own Avro records of the probe's workload (its slot next to
# Debezium's, the same registry) and Debezium's, both read back by the
# AvroConverter as a consumer reads them, are compared record by record by
# the conformance harness's Compare.  Run
# after test/conformance/run.sh, whose capture it reads (or give another
# with AVRO_JSON_CAPTURE).  Exit status 0 only if nothing differs.
#
# test/registry/check-avro.sh
#
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-${PG_BIN:-/usr/lib/postgresql/15/bin}/pg_config}
REFERENCE=$HERE/work/reference
JSON_CAPTURE=${AVRO_JSON_CAPTURE:-$ROOT/test/conformance/work/debezium/default.jsonl}

[ -f "$JSON_CAPTURE" ] ||
	{ echo "check-avro: no Debezium JSON capture at $JSON_CAPTURE: run test/conformance/run.sh first" >&2; exit 2; }
rm -rf "$REFERENCE"
bash "$HERE/probe/run.sh" --out "$REFERENCE"
# the schema check reads the JSON records next to the Avro ones
cp "$JSON_CAPTURE" "$REFERENCE/json-default.jsonl"
make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" avroschemacheck AVRO_REFERENCE="$REFERENCE"
make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" avroenccheck AVRO_REFERENCE="$REFERENCE" \
	AVRO_JSON_CAPTURE="$REFERENCE/json-default.jsonl"
# cdc_kafka's own Avro records against Debezium's, both read back by the AvroConverter,
# compared by the conformance harness's rules
java -Xmx1g -cp "$ROOT/test/conformance/target/classes:$ROOT/test/conformance/target/lib/*" \
	cdckafka.conformance.Compare --profile default \
	"$REFERENCE/read-debezium.jsonl" "$REFERENCE/read-ours.jsonl"
