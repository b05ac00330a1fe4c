"""End-to-end checks of the lake against the source (test/t/035_lake.pl).

  check.py --upsert DIR --expected FILE    the UPSERT tables equal the source's rows
  check.py --scd2 DIR --history FILE       the SCD2 tables equal the trigger-recorded history
  check.py --same DIR1 DIR2                two lakes hold the same rows (a replay)

FILE is JSON: {"schema.table": {"key": [columns], "rows": [row, ...]}} with
each row as the source's canonical JSON (text forms: numeric::text,
encode(bytea, 'hex'), timestamps at UTC, ...), or for --history
{"schema.table": {"key": [...], "events": [{"op", "ts_ms", "old", "new"}, ...]}}
in the order the trigger recorded them.  Values are compared typed: the
source's text is read as the lake column's Spark type.  Prints one line per
check and up to 10 differences; exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import struct
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "src"))

from pyspark.sql import types as T  # noqa: E402

from cdc_kafka_lake.cli import lake_tables, spark_session  # noqa: E402

META = {"__op", "__lsn", "__pos", "__ts", "valid_from", "valid_to", "is_current", "__end_lsn", "__end_pos"}


def parse_ts(text: str) -> dt.datetime:
    date, _, time = text.partition(" ")
    frac = ""
    if "." in time:
        time, frac = time.split(".")
    y, mo, d = (int(x) for x in date.split("-"))
    h, mi, s = (int(x) for x in time.split(":"))
    return dt.datetime(y, mo, d, h, mi, s, int((frac + "000000")[:6]))


def parse_time(text: str) -> str:
    hms, _, frac = text.partition(".")
    return f"{hms}.{(frac + '000000')[:6]}"


TIME_COLUMNS: set[str] = set()


def typed(value, t: T.DataType, column: str = ""):
    """The source's canonical JSON value as the lake's Python value of type t
    (the columns named in TIME_COLUMNS are times of day, strings in the lake)."""
    if value is None:
        return None
    if column in TIME_COLUMNS:
        return parse_time(value)
    if isinstance(t, T.DecimalType):
        return Decimal(value)
    if isinstance(t, T.DoubleType):
        return float(value)
    if isinstance(t, T.FloatType):
        return struct.unpack("f", struct.pack("f", float(value)))[0]
    if isinstance(t, T.BinaryType):
        return bytes.fromhex(value)
    if isinstance(t, T.DateType):
        return dt.date.fromisoformat(value)
    if isinstance(t, (T.TimestampType, T.TimestampNTZType)):
        return parse_ts(value)
    if isinstance(t, T.ArrayType):
        return [typed(v, t.elementType) for v in value]
    return value


def lake_value(v):
    if isinstance(v, bytearray):
        return bytes(v)
    return v


class Lake:
    def __init__(self, spark, path: str):
        self.spark = spark
        self.tables = dict(lake_tables(path))

    def rows(self, table: str):
        df = self.spark.read.format("delta").load(self.tables[table])
        types = {f.name: f.dataType for f in df.schema.fields}
        return [{k: lake_value(v) for k, v in r.asDict().items()} for r in df.collect()], types


class Report:
    def __init__(self):
        self.failures = 0
        self.examples: list[str] = []

    def diff(self, text: str) -> None:
        self.failures += 1
        if len(self.examples) < 10:
            self.examples.append(text)


def data_of(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in META}


def check_upsert(lake: Lake, expected: dict, rep: Report) -> None:
    for table, exp in sorted(expected.items()):
        if table not in lake.tables:
            rep.diff(f"{table}: no lake table")
            continue
        rows, types = lake.rows(table)
        key = exp["key"]
        have = {tuple(r[k] for k in key): data_of(r) for r in rows}
        want = {}
        for src in exp["rows"]:
            tr = {c: typed(v, types[c], c) for c, v in src.items() if c in types}
            want[tuple(tr[k] for k in key)] = tr
        for k in sorted(set(want) | set(have), key=repr):
            if k not in have:
                rep.diff(f"{table} {k}: missing from the lake")
            elif k not in want:
                rep.diff(f"{table} {k}: in the lake, not in the source: {have[k]}")
            elif have[k] != want[k]:
                cols = [c for c in want[k] if want[k][c] != have[k].get(c)]
                rep.diff(
                    f"{table} {k}: "
                    + "; ".join(f"{c}: lake {have[k].get(c)!r:.80} source {want[k][c]!r:.80}" for c in cols)
                )
        print(f"upsert {table}: {len(have)} rows in the lake, {len(want)} in the source")


def ms(d: dt.datetime | None) -> int | None:
    if d is None:
        return None
    return int(round((d - dt.datetime(1970, 1, 1)).total_seconds() * 1000))


def expected_versions(exp: dict, types: dict) -> dict:
    key = exp["key"]
    versions: dict[tuple, list] = {}
    current: dict[tuple, dict] = {}

    def conv(row):
        return {c: typed(v, types[c], c) for c, v in row.items() if c in types}

    for ev in exp["events"]:
        op, t = ev["op"], ev["ts_ms"]
        if op == "TRUNCATE":
            for v in current.values():
                v["valid_to"] = t
            current.clear()
            continue
        if ev.get("old") is not None:
            old = conv(ev["old"])
            k = tuple(old[c] for c in key)
            if k in current:
                current.pop(k)["valid_to"] = t
        if ev.get("new") is not None:
            new = conv(ev["new"])
            k = tuple(new[c] for c in key)
            if k in current:  # an insert never finds one; kept for safety
                current.pop(k)["valid_to"] = t
            v = {"data": new, "valid_from": t, "valid_to": None}
            current[k] = v
            versions.setdefault(k, []).append(v)
    return versions


def check_scd2(lake: Lake, history: dict, rep: Report) -> None:
    for table, exp in sorted(history.items()):
        if table not in lake.tables:
            rep.diff(f"{table}: no lake table")
            continue
        rows, types = lake.rows(table)
        key = exp["key"]
        have: dict[tuple, list] = {}
        for r in sorted(rows, key=lambda r: (r["valid_from"], r["__lsn"], r["__pos"])):
            have.setdefault(tuple(r[k] for k in key), []).append(r)
        want = expected_versions(exp, types)
        n = 0
        for k in sorted(set(want) | set(have), key=repr):
            hv, wv = have.get(k, []), want.get(k, [])
            n += len(wv)
            if len(hv) != len(wv):
                rep.diff(f"{table} {k}: {len(hv)} versions in the lake, {len(wv)} in the history")
                continue
            for i, (h, w) in enumerate(zip(hv, wv, strict=True)):
                got = (data_of(h), ms(h["valid_from"]), ms(h["valid_to"]), h["is_current"])
                exp_v = (w["data"], w["valid_from"], w["valid_to"], w["valid_to"] is None)
                if got != exp_v:
                    cols = [c for c in w["data"] if w["data"][c] != got[0].get(c)]
                    rep.diff(
                        f"{table} {k} version {i + 1}: lake valid {got[1]}..{got[2]} current {got[3]}, "
                        f"history {exp_v[1]}..{exp_v[2]}; columns differing: {cols}"
                    )
        print(f"scd2 {table}: {len(rows)} versions in the lake, {n} in the history")


def check_same(a: Lake, b: Lake, rep: Report) -> None:
    if sorted(a.tables) != sorted(b.tables):
        rep.diff(f"tables differ: {sorted(a.tables)} and {sorted(b.tables)}")
    for table in sorted(set(a.tables) & set(b.tables)):
        ra, _ = a.rows(table)
        rb, _ = b.rows(table)

        def canon(rows):
            return sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)

        if canon(ra) != canon(rb):
            rep.diff(f"{table}: the replay differs ({len(ra)} and {len(rb)} rows)")
        print(f"same {table}: {len(ra)} and {len(rb)} rows")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--upsert")
    p.add_argument("--expected")
    p.add_argument("--scd2")
    p.add_argument("--history")
    p.add_argument("--same", nargs=2)
    p.add_argument("--time-columns", default="", help="comma-separated: times of day")
    a = p.parse_args()
    TIME_COLUMNS.update(c for c in a.time_columns.split(",") if c)
    spark = spark_session(os.environ.get("LAKE_MASTER", "local[2]"), None, [])
    rep = Report()
    if a.upsert:
        with open(a.expected) as f:
            check_upsert(Lake(spark, a.upsert), json.load(f), rep)
    if a.scd2:
        with open(a.history) as f:
            check_scd2(Lake(spark, a.scd2), json.load(f), rep)
    if a.same:
        check_same(Lake(spark, a.same[0]), Lake(spark, a.same[1]), rep)
    for e in rep.examples:
        print("  DIFF " + e)
    print(f"check: {rep.failures} differences")
    spark.stop()
    return 1 if rep.failures else 0


if __name__ == "__main__":
    sys.exit(main())
