#!/usr/bin/env python3
"""check-meta.py - META.json (PGXN) and debian/ agree with cdc_kafka.control.

Usage: check-meta.py [source tree]     (default: the tree this file is in)

Checks, each printed as one line, exit status 1 if any fails:
  - META.json is JSON and fits PGXN's meta spec 1.0.0 (the schema below:
    the fields and formats the spec requires and the ones we use);
  - its version and provides.cdc_kafka.version are the control file's
    default_version as a semantic version (1.0 -> 1.0.0);
  - the files it names exist;
  - its PostgreSQL prerequisite is the first major of debian/pgversions;
  - debian/changelog's latest version is the default_version.

The release that bumps default_version must bump META.json and
debian/changelog with it: this check fails until it does.
"""

import json
import os
import re
import sys

import jsonschema

SEMVER = (r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
          r"(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")

# The licence keys of the spec (a name PGXN does not know is refused).
LICENSES = [
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd",
    "freebsd", "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1",
    "lgpl_3_0", "mit", "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5",
    "postgresql", "qpl_1_0", "ssleay", "sun", "zlib", "open_source",
    "restricted", "unrestricted", "unknown",
]

TEXT = {"type": "string", "minLength": 1}
VERSION = {"type": "string", "pattern": SEMVER}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["name", "abstract", "version", "maintainer", "license",
                 "provides", "meta-spec"],
    "properties": {
        "name": {"type": "string", "pattern": r"^[^/\\\s]{2,}$"},
        "abstract": TEXT,
        "description": TEXT,
        "version": VERSION,
        "maintainer": {"anyOf": [TEXT, {"type": "array", "items": TEXT,
                                        "minItems": 1}]},
        "license": {"anyOf": [{"enum": LICENSES},
                              {"type": "array", "minItems": 1,
                               "items": {"enum": LICENSES}}]},
        "provides": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
                "type": "object",
                "required": ["file", "version"],
                "properties": {"file": TEXT, "version": VERSION,
                               "abstract": TEXT, "docfile": TEXT},
                "additionalProperties": False,
            },
        },
        "prereqs": {
            "type": "object",
            "propertyNames": {"enum": ["configure", "build", "test",
                                       "runtime", "develop"]},
            "additionalProperties": {
                "type": "object",
                "propertyNames": {"enum": ["requires", "recommends",
                                           "suggests", "conflicts"]},
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": {
                        "anyOf": [{"const": 0}, VERSION]},
                },
            },
        },
        "resources": {"type": "object"},
        "no_index": {"type": "object"},
        "tags": {"type": "array", "items": TEXT},
        "release_status": {"enum": ["stable", "testing", "unstable"]},
        "generated_by": TEXT,
        "meta-spec": {
            "type": "object",
            "required": ["version"],
            "properties": {
                "version": {"type": "string", "pattern": r"^1\.0\.[0-9]+$"},
                "url": {"const": "https://pgxn.org/meta/spec.txt"},
            },
            "additionalProperties": False,
        },
    },
    "patternProperties": {"^[xX]_": {}},
    "additionalProperties": False,
}


def control_value(text, key):
    m = re.search(r"^\s*%s\s*=\s*'([^']*)'" % re.escape(key), text, re.M)
    return m.group(1) if m else None


def as_semver(version):
    parts = version.split(".")
    while len(parts) < 3:
        parts.append("0")
    return ".".join(parts)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    failures = []

    def check(ok, what):
        print(("ok: " if ok else "FAILED: ") + what)
        if not ok:
            failures.append(what)

    def read(name):
        with open(os.path.join(top, name), encoding="utf-8") as f:
            return f.read()

    default_version = control_value(read("cdc_kafka.control"),
                                    "default_version")
    check(default_version is not None,
          "cdc_kafka.control has a default_version (%s)" % default_version)
    want = as_semver(default_version or "")

    try:
        meta = json.loads(read("META.json"))
    except ValueError as e:
        check(False, "META.json is JSON: %s" % e)
        return 1
    errors = sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(meta),
                    key=lambda e: list(e.path))
    for e in errors:
        print("  META.json%s: %s" % (
            "".join("[%r]" % p for p in e.path), e.message))
    check(not errors, "META.json fits PGXN meta spec 1.0.0")

    ext = meta.get("provides", {}).get("cdc_kafka", {})
    check(meta.get("version") == want,
          "META.json version %s is default_version %s"
          % (meta.get("version"), want))
    check(ext.get("version") == want,
          "META.json provides.cdc_kafka.version %s is default_version %s"
          % (ext.get("version"), want))
    for key in ("file", "docfile"):
        path = ext.get(key)
        check(path is not None and os.path.isfile(os.path.join(top, path)),
              "META.json provides.cdc_kafka.%s %s exists" % (key, path))

    majors = [line.strip() for line in read("debian/pgversions").splitlines()
              if line.strip() and not line.startswith("#")]
    lowest = majors[0].rstrip("+") + ".0.0" if majors else None
    pg = meta.get("prereqs", {}).get("runtime", {}).get(
        "requires", {}).get("PostgreSQL")
    check(pg == lowest,
          "META.json requires PostgreSQL %s, debian/pgversions starts at %s"
          % (pg, lowest))

    m = re.match(r"^(\S+) \(([^)]+)\)", read("debian/changelog"))
    deb = m.group(2) if m else None
    upstream = re.sub(r"-[^-]*$", "", re.sub(r"^[0-9]+:", "", deb or ""))
    check(m is not None and m.group(1) == "cdc-kafka",
          "debian/changelog is the changelog of source package cdc-kafka")
    check(upstream == default_version,
          "debian/changelog version %s is default_version %s"
          % (deb, default_version))

    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
