#!/usr/bin/env python3
"""Check src/common/avroenc.c against Debezium's Avro converter, record by record.

Pairs the conformance run's Debezium JSON records (JsonConverter with schemas)
with the same records written by Debezium with Apicurio's AvroConverter
(test/registry/probe/run.sh), and feeds test/unit/avroenc_check three lines per
key and value: the schema the converter registered, the JSON payload, and the
Avro bytes it wrote after the wire format's 5-byte header.

usage: check.py REFERENCE_DIR JSON_CAPTURE CHECKER
  REFERENCE_DIR  the probe's output (records-default.jsonl, subjects.json, schemas/)
  JSON_CAPTURE   test/conformance/work/debezium/default.jsonl of the same workload
  CHECKER        the built test/unit/avroenc_check
"""
import json
import re
import subprocess
import sys

# A column filled by DEFAULT now() differs between the two runs too.
RUN_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def schemas_by_id(ref):
    with open(f"{ref}/subjects.json") as f:
        subjects = json.load(f)
    out = {}
    for subject in subjects:
        for version in subject["versions"]:
            with open(f"{ref}/{version['file']}") as s:
                out[version["id"]] = json.dumps(json.load(s), separators=(",", ":"))
    return out


VOLATILE_TOP = ("ts_ms", "ts_us", "ts_ns", "transaction")


def unwrap(avro_json):
    """A scalar of Avro's JSON encoding without its union wrapper."""
    if isinstance(avro_json, dict) and len(avro_json) == 1:
        (inner,) = avro_json.values()
        if not isinstance(inner, (dict, list)):
            return inner
    return avro_json


def take_volatile(payload, avro_json):
    """The two captures come from two runs: clocks, LSNs and txIds differ.

    Those fields are taken from the Avro record, so what is compared is
    the encoding, not the runs.
    """
    if not isinstance(payload, dict) or not isinstance(avro_json, dict):
        return payload
    if isinstance(payload.get("source"), dict) and isinstance(avro_json.get("source"), dict):
        for name, value in avro_json["source"].items():
            payload["source"][name] = unwrap(value)
    for name in VOLATILE_TOP:
        if name in payload and name in avro_json and name != "transaction":
            payload[name] = unwrap(avro_json[name])
    for image in ("before", "after"):
        row, avro_row = payload.get(image), unwrap_record(avro_json.get(image))
        if not isinstance(row, dict) or not isinstance(avro_row, dict):
            continue
        for name, value in row.items():
            other = unwrap(avro_row.get(name))
            if isinstance(value, str) and isinstance(other, str) and \
                    RUN_TIME.match(value) and RUN_TIME.match(other):
                row[name] = other
    return payload


def unwrap_record(avro_json):
    """A record of Avro's JSON encoding without its union wrapper."""
    if isinstance(avro_json, dict) and len(avro_json) == 1:
        (inner,) = avro_json.values()
        if isinstance(inner, dict):
            return inner
    return avro_json


def cases(ref, capture):
    schemas = schemas_by_id(ref)
    with open(f"{ref}/records-default.jsonl") as a, open(capture) as j:
        for avro_line, json_line in zip(a, j):
            avro_rec, json_rec = json.loads(avro_line), json.loads(json_line)
            if avro_rec["topic"] != json_rec["topic"]:
                sys.exit(f"captures out of step: {avro_rec['topic']} vs {json_rec['topic']}")
            if "error" in avro_rec:
                continue        # the converter refused it (field names)
            for part in ("key", "value"):
                a_part, j_part = avro_rec[part], json_rec[part]
                if a_part is None or j_part is None:
                    continue
                payload = take_volatile(j_part["payload"], a_part["avro_json"])
                payload = json.dumps(payload, separators=(",", ":"))
                yield schemas[a_part["id"]], payload, a_part["hex"][10:]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    ref, capture, checker = sys.argv[1:]
    text = "".join(f"{s}\n{p}\n{h}\n" for s, p, h in cases(ref, capture))
    run = subprocess.run([checker], input=text, text=True, check=False)
    sys.exit(run.returncode)


if __name__ == "__main__":
    main()
