"""The batch writer on a local Spark with Delta: micro-batches of records
(as the Kafka source gives them) into UPSERT, SCD2 and append tables.
Skipped when the jars are not there (LAKE_JARS, from lake/install.sh)."""

import datetime as dt
import os
from decimal import Decimal

import pytest

from cdc_kafka_lake import decode
from records import Table, decimal_b64
from test_decode import DEC, field

JARS = os.environ.get("LAKE_JARS", "/var/cache/cdc_kafka/lake/jars")
pytestmark = pytest.mark.skipif(not os.path.isdir(JARS), reason=f"no jars in {JARS} (lake/install.sh)")

UTC = dt.timezone.utc
FIELDS = [
    field("id", "int32", optional=False),
    field("k2", "string", optional=False),
    field("v", "string"),
    field("price", "bytes", DEC, {"scale": "2", "connect.decimal.precision": "10"}),
    field("at", "string", "io.debezium.time.ZonedTimestamp"),
    field("big", "string"),
]


@pytest.fixture(scope="module")
def spark():
    from cdc_kafka_lake.cli import spark_session

    s = spark_session("local[1]", JARS, ["spark.sql.shuffle.partitions=2", "spark.default.parallelism=2"])
    yield s
    s.stop()


def batch(spark, records):
    from pyspark.sql import types as T

    header = T.StructType([T.StructField("key", T.StringType()), T.StructField("value", T.BinaryType())])
    schema = T.StructType(
        [
            T.StructField("key", T.BinaryType()),
            T.StructField("value", T.BinaryType()),
            T.StructField("headers", T.ArrayType(header)),
        ]
    )
    rows = []
    for rec in records:
        k, v = rec[0], rec[1]
        headers = [(h, b"{}") for h in rec[2]] if len(rec) > 2 else None
        rows.append((None if k is None else k.encode(), None if v is None else v.encode(), headers))
    return spark.createDataFrame(rows, schema)


def run(spark, writer, *batches):
    for i, records in enumerate(batches):
        writer(batch(spark, records), i)


def lake_rows(spark, path, order):
    return [r.asDict() for r in spark.read.format("delta").load(path).orderBy(*order).collect()]


def test_upsert_scd2_and_replay(spark, tmp_path):
    from cdc_kafka_lake.job import BatchWriter, Config

    t = Table("public.acct", FIELDS, ["id", "k2"])
    p = decode.PLACEHOLDER
    b1 = [
        t.r(id=1, k2="a", v="one", price=decimal_b64(100), at="2024-01-01T00:00:00Z", big="B1"),
        t.c(id=2, k2="a", v="two", price=decimal_b64(-250), at=None, big="B2"),
        t.u(id=1, k2="a", v="one'", price=decimal_b64(101), at="2024-01-01T00:00:00.5Z", big=p),
        t.c(id=3, k2="b", v="three", price=None, at=None, big="B3"),
        t.d(id=3, k2="b"),
        t.tombstone(id=3, k2="b"),
    ]
    # a key change (2,a) -> (2,z) leaving TOASTed big alone, a TOAST update of a
    # row of the lake, a re-insert
    lsn = t.lsn + 8
    b2 = [
        t.d(id=2, k2="a", lsn=lsn),
        t.tombstone(id=2, k2="a"),
        t.c(id=2, k2="z", v="two", price=decimal_b64(-250), at=None, big=p, lsn=lsn),
        # and again (2,z) -> (2,y): the value goes on through (2,z)'s create
        t.d(id=2, k2="z", lsn=lsn + 8),
        t.c(id=2, k2="y", v="two", price=decimal_b64(-250), at=None, big=p, lsn=lsn + 8),
        t.u(id=1, k2="a", v="one''", price=decimal_b64(102), at=None, big=p),
        t.c(id=3, k2="b", v="three again", price=None, at=None, big="B3'"),
    ]
    b3 = [t.t(), t.c(id=9, k2="x", v="after truncate", price=None, at=None, big=None)]
    results = {}
    for mode in ("upsert", "scd2"):
        lake = str(tmp_path / mode)
        w = BatchWriter(Config(lake=lake, default_mode=mode))
        run(spark, w, b1, b2)
        path = os.path.join(lake, "public", "acct")
        results[mode] = lake_rows(spark, path, ["id", "k2", "__lsn"])
        # the whole topic again: nothing changes
        run(spark, w, b1 + b2)
        assert lake_rows(spark, path, ["id", "k2", "__lsn"]) == results[mode]
        run(spark, w, b3)
        results[mode + "_t"] = lake_rows(spark, path, ["id", "k2", "__lsn"])
        run(spark, w, b1 + b2 + b3)
        assert lake_rows(spark, path, ["id", "k2", "__lsn"]) == results[mode + "_t"]

    up = [(r["id"], r["k2"], r["v"], r["price"], r["big"], r["__op"]) for r in results["upsert"]]
    assert up == [
        (1, "a", "one''", Decimal("1.02"), "B1", "u"),
        (2, "y", "two", Decimal("-2.50"), "B2", "c"),
        (3, "b", "three again", None, "B3'", "c"),
    ]
    assert results["upsert"][0]["at"] is None
    assert [(r["id"], r["k2"]) for r in results["upsert_t"]] == [(9, "x")]

    h = [
        (r["id"], r["k2"], r["v"], r["big"], r["__op"], r["is_current"], r["valid_to"] is None) for r in results["scd2"]
    ]
    assert h == [
        (1, "a", "one", "B1", "r", False, False),
        (1, "a", "one'", "B1", "u", False, False),
        (1, "a", "one''", "B1", "u", True, True),
        (2, "a", "two", "B2", "c", False, False),
        (2, "y", "two", "B2", "c", True, True),
        (2, "z", "two", "B2", "c", False, False),
        (3, "b", "three", "B3", "c", False, False),
        (3, "b", "three again", "B3'", "c", True, True),
    ]
    s = results["scd2"]
    assert s[0]["valid_to"] == s[1]["valid_from"] and s[1]["valid_to"] == s[2]["valid_from"]
    assert s[1]["at"] == dt.datetime(2024, 1, 1, 0, 0, 0, 500000)  # read back as naive UTC
    after = results["scd2_t"]
    assert [(r["id"], r["is_current"]) for r in after if r["is_current"]] == [(9, True)]
    assert len(after) == len(s) + 1


def test_key_change_across_batches(spark, tmp_path):
    """The delete and the create of a key change in two micro-batches (their
    keys' partitions read unevenly), either first: the create's TOAST
    placeholder still takes the old key's value, which a TOAST update of
    the old key just before changed."""
    from cdc_kafka_lake.job import BatchWriter, Config

    t = Table("public.acct", FIELDS, ["id", "k2"])
    p = decode.PLACEHOLDER
    row = dict(price=None, at=None)
    base = [t.c(id=1, k2="a", v="one", big="B1", **row), t.c(id=5, k2="e", v="five", big="B5", **row)]
    old_update = t.u(id=1, k2="a", v="one'", big="B1'", **row)
    lsn = t.lsn + 8
    delete = (*t.d(id=1, k2="a", lsn=lsn), ["__debezium.newkey"])
    create = (*t.c(id=1, k2="z", v="one'", big=p, lsn=lsn, **row), ["__debezium.oldkey"])
    later = t.u(id=1, k2="z", v="one''", big=p, **row)
    other = t.u(id=5, k2="e", v="five'", big=p, **row)
    orders = {
        # the delete's partition ahead: the old key and its delete in batch 1
        "delete first": ([old_update, delete, other], [create, later]),
        # the create's partition ahead: the old key's last update comes after
        "create first": ([create, later, other], [old_update, delete]),
    }
    for name, (b2, b3) in orders.items():
        for mode in ("upsert", "scd2"):
            lake = str(tmp_path / name.replace(" ", "_") / mode)
            w = BatchWriter(Config(lake=lake, default_mode=mode))
            run(spark, w, base, b2)
            path = os.path.join(lake, "public", "acct")
            held = lake_rows(spark, path, ["id", "k2", "__lsn"])
            # batch 2 applied only what does not wait for the other half
            assert {(r["id"], r["k2"], r["v"]) for r in held if r["__op"] != "d"} >= {(5, "e", "five'")}, name
            assert (1, "z") not in {(r["id"], r["k2"]) for r in held}, name
            w(batch(spark, b3), 2)
            rows = lake_rows(spark, path, ["id", "k2", "__lsn"])
            if mode == "upsert":
                got = [(r["id"], r["k2"], r["v"], r["big"]) for r in rows]
                assert got == [(1, "z", "one''", "B1'"), (5, "e", "five'", "B5")], name
            else:
                got = [(r["id"], r["k2"], r["v"], r["big"], r["is_current"]) for r in rows]
                assert got == [
                    (1, "a", "one", "B1", False),
                    (1, "a", "one'", "B1'", False),
                    (1, "z", "one'", "B1'", False),
                    (1, "z", "one''", "B1'", True),
                    (5, "e", "five", "B5", False),
                    (5, "e", "five'", "B5", True),
                ], name


def test_lone_key_change_half_goes_on_after_the_wait(spark, tmp_path):
    from cdc_kafka_lake.job import BatchWriter, Config

    t = Table("public.acct", FIELDS, ["id", "k2"])
    row = dict(price=None, at=None)
    lsn = t.lsn + 8
    w = BatchWriter(Config(lake=str(tmp_path), default_mode="upsert", key_change_wait=2))
    path = os.path.join(str(tmp_path), "public", "acct")
    run(spark, w, [(*t.c(id=2, k2="b", v="two", big=decode.PLACEHOLDER, lsn=lsn, **row), ["__debezium.oldkey"])])
    assert not os.path.exists(path) or lake_rows(spark, path, ["id"]) == []
    w(batch(spark, []), 1)
    w(batch(spark, []), 2)
    assert [(r["id"], r["v"], r["big"]) for r in lake_rows(spark, path, ["id"])] == [(2, "two", None)]


def test_append_dedups(spark, tmp_path):
    from cdc_kafka_lake.job import BatchWriter, Config

    t = Table("public.events", [field("id", "int64", optional=False), field("what", "string")], ["id"])
    b = [t.c(id=1, what="login"), t.c(id=2, what="play"), t.u(id=2, what="played")]
    w = BatchWriter(Config(lake=str(tmp_path), default_mode="append"))
    run(spark, w, b, b)
    rows = lake_rows(spark, str(tmp_path / "public" / "events"), ["__lsn"])
    assert [(r["id"], r["what"], r["__op"]) for r in rows] == [(1, "login", "c"), (2, "play", "c"), (2, "played", "u")]
