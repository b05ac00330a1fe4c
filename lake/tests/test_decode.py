"""Record decoding: Debezium's logical types into Spark's, by the schema."""

import datetime as dt
import json
from decimal import Decimal

import pytest
from pyspark.sql import types as T

from cdc_kafka_lake import decode
from records import Table, decimal_b64

UTC = dt.timezone.utc


def field(name, type_, lname=None, params=None, optional=True, **extra):
    f = {"type": type_, "optional": optional}
    if lname:
        f["name"] = lname
        f["version"] = 1
    if params:
        f["parameters"] = params
    f.update(extra)
    f["field"] = name
    return f


DEC = "org.apache.kafka.connect.data.Decimal"
FIELDS = [
    field("id", "int32", optional=False),
    field("price", "bytes", DEC, {"scale": "2", "connect.decimal.precision": "10"}),
    field("big", "bytes", DEC, {"scale": "0", "connect.decimal.precision": "50"}),
    field("money", "bytes", DEC, {"scale": "2"}),
    field(
        "vsd",
        "struct",
        "io.debezium.data.VariableScaleDecimal",
        fields=[field("scale", "int32", optional=False), field("value", "bytes", optional=False)],
    ),
    field("d", "int32", "io.debezium.time.Date"),
    field("ts3", "int64", "io.debezium.time.Timestamp"),
    field("ts6", "int64", "io.debezium.time.MicroTimestamp"),
    field("tstz", "string", "io.debezium.time.ZonedTimestamp"),
    field("t6", "int64", "io.debezium.time.MicroTime"),
    field("t3", "int32", "io.debezium.time.Time"),
    field("dur", "int64", "io.debezium.time.MicroDuration"),
    field("body", "string"),
    field("raw", "bytes"),
    field("tags", "array", items={"type": "string", "optional": True}),
    field("nums", "array", items={"type": "int32", "optional": True}),
    field("f", "double"),
    field("j", "string", "io.debezium.data.Json"),
]
TABLE = Table("public.things", FIELDS, ["id"])


def decode_one(rec, declared=None):
    return decode.Decoder(declared).decode(*rec)


def test_spark_types():
    types = {f["field"]: decode.spark_type(f) for f in FIELDS}
    assert types["price"] == T.DecimalType(10, 2)
    assert types["big"] == T.StringType()
    assert types["money"] == T.DecimalType(38, 2)
    assert types["vsd"] == T.DecimalType(38, 18)
    assert types["d"] == T.DateType()
    assert types["ts3"] == T.TimestampNTZType()
    assert types["ts6"] == T.TimestampNTZType()
    assert types["tstz"] == T.TimestampType()
    assert types["t6"] == T.StringType()
    assert types["dur"] == T.LongType()
    assert types["raw"] == T.BinaryType()
    assert types["tags"] == T.ArrayType(T.StringType(), True)
    assert types["f"] == T.DoubleType()


def test_values_by_logical_type():
    c = decode_one(
        TABLE.c(
            id=1,
            price=decimal_b64(-12345),
            big=decimal_b64(10**45),
            money=decimal_b64(1050),
            vsd={"scale": 1, "value": decimal_b64(15)},
            d=17109,
            ts3=1529507596945,
            ts6=1529507596945104,
            tstz="2016-11-04T11:51:30.123456Z",
            t6=86400000000,
            t3=3723004,
            dur=37091106780000,
            body="hello",
            raw="AAEC",
            tags=["a", None],
            nums=[1, 2],
            f="NaN",
            j='{"a": 1}',
        )
    )
    v = c.values
    assert v["price"] == Decimal("-123.45")
    assert v["big"] == "1" + "0" * 45
    assert v["money"] == Decimal("10.50")
    assert v["vsd"] == Decimal("1.5")
    assert v["d"] == dt.date(2016, 11, 4)
    assert v["ts3"] == dt.datetime(2018, 6, 20, 15, 13, 16, 945000)
    assert v["ts6"] == dt.datetime(2018, 6, 20, 15, 13, 16, 945104)
    assert v["tstz"] == dt.datetime(2016, 11, 4, 11, 51, 30, 123456, tzinfo=UTC)
    assert v["t6"] == "24:00:00.000000"
    assert v["t3"] == "01:02:03.004000"
    assert v["dur"] == 37091106780000
    assert v["raw"] == b"\x00\x01\x02"
    assert v["tags"] == ["a", None]
    assert v["f"] != v["f"]  # NaN
    assert v["j"] == '{"a": 1}'
    assert c.op == "c" and c.key == (1,) and c.keycols == ("id",) and c.table == "public.things"
    assert not c.unavailable


def test_decimal_bytes():
    for unscaled in (0, 1, -1, 127, 128, -128, -129, 12345, -12345, 2**70, -(2**70)):
        assert decode.decimal_from_bytes(decimal_b64(unscaled), 3) == Decimal(unscaled).scaleb(-3)
    assert decode.decimal_from_bytes("ZA==", 2) == Decimal("1.00")
    assert decode.decimal_from_bytes("z8c=", 2) == Decimal("-123.45")


def test_variable_scale_decimal_rounds_and_refuses_overflow():
    assert decode.variable_decimal({"scale": 20, "value": decimal_b64(1)}, "x") == Decimal("0E-18")
    with pytest.raises(decode.DecodeError, match="integer digits"):
        decode.variable_decimal({"scale": 0, "value": decimal_b64(10**25)}, "x")


def test_zoned_timestamp_forms():
    z = decode.parse_zoned
    assert z("2020-04-01T11:51:02Z", "c") == dt.datetime(2020, 4, 1, 11, 51, 2, tzinfo=UTC)
    assert z("2020-04-01T11:51:02.5Z", "c") == dt.datetime(2020, 4, 1, 11, 51, 2, 500000, tzinfo=UTC)
    assert z("2020-04-01T11:51:02.123456789Z", "c").microsecond == 123456
    assert z("infinity", "c") is None
    assert z("+21016-11-04T06:51:30.123456Z", "c") is None


def test_out_of_range_dates_are_null():
    c = decode_one(TABLE.c(id=2, d=-800000, ts6=9223372036825200000))
    assert c.values["d"] is None and c.values["ts6"] is None


def test_toast_placeholder_in_each_shape():
    p = decode.PLACEHOLDER
    c = decode_one(
        TABLE.u(
            id=3,
            body=p,
            raw="X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==",
            tags=[p],
            nums=list(p.encode()),
            j='{"__debezium_unavailable_value":"__debezium_unavailable_value"}',
        )
    )
    assert c.unavailable == {"body", "raw", "tags", "nums", "j"}
    assert all(c.values[k] is None for k in c.unavailable)
    # a value that merely contains the placeholder is a value
    c = decode_one(TABLE.u(id=3, body="x" + p, tags=[p, p]))
    assert not c.unavailable and c.values["body"] == "x" + p


def test_uuid_array_placeholder_is_javas_name_uuid():
    # java.util.UUID.nameUUIDFromBytes("__debezium_unavailable_value".getBytes())
    f = field("u", "array", items={"type": "string", "optional": True, "name": "io.debezium.data.Uuid"})
    assert decode.is_unavailable([decode._java_name_uuid(decode.PLACEHOLDER_BYTES)], f)
    assert decode._java_name_uuid(b"")[14] == "3"


def test_delete_tombstone_truncate_and_messages():
    d = decode_one(TABLE.d(id=4))
    assert d.op == "d" and d.key == (4,) and d.pos == 0
    assert decode_one(TABLE.tombstone(id=4)) is None
    t = decode_one(TABLE.t())
    assert t.op == "t" and t.key is None and t.values is None
    msg = json.dumps({"op": "m", "source": {"schema": "", "table": ""}, "message": {"prefix": "p"}})
    assert decode.Decoder().decode(None, msg) is None
    txn = json.dumps({"status": "BEGIN", "id": "1:2", "event_count": None, "data_collections": None, "ts_ms": 1})
    assert decode.Decoder().decode(None, txn) is None


def test_snapshot_read_and_transaction_order():
    r = decode_one(TABLE.r(id=5, body="x"))
    assert r.op == "r" and r.pos == 1
    key, value = TABLE.u(id=5, body="y")
    doc = json.loads(value)
    doc["payload"]["transaction"] = {"id": "7:1", "total_order": 3, "data_collection_order": 1}
    assert decode.Decoder().decode(key, json.dumps(doc)).pos == 3


def test_composite_key_in_key_order():
    fields = [field("b", "string", optional=False), field("a", "int64", optional=False), field("v", "string")]
    t = Table("s.comp", fields, ["a", "b"])
    c = decode_one(t.c(a=7, b="x", v="1"))
    assert c.keycols == ("a", "b") and c.key == (7, "x")


def test_schemas_off_by_declared_schema():
    t = Table("public.plain", [], ["id"], schemas=False)
    declared = {
        "public.plain": {
            "key": ["id"],
            "columns": {"id": "int32", "price": "Decimal(10,2)", "d": "Date", "at": "ZonedTimestamp", "b": "string"},
        }
    }
    c = decode_one(t.c(id=1, price=decimal_b64(1050), d=1, at="2020-01-01T00:00:00Z", b=decode.PLACEHOLDER), declared)
    assert c.values == {
        "id": 1,
        "price": Decimal("10.50"),
        "d": dt.date(1970, 1, 2),
        "at": dt.datetime(2020, 1, 1, tzinfo=UTC),
        "b": None,
    }
    assert c.unavailable == {"b"} and c.key == (1,)
    with pytest.raises(decode.DecodeError, match="no schema and none is declared"):
        decode_one(t.c(id=1))


def test_declared_short_forms():
    assert decode.declared_field("MicroTimestamp")["name"] == "io.debezium.time.MicroTimestamp"
    assert decode.spark_type(decode.declared_field("Decimal(5,1)")) == T.DecimalType(5, 1)
    assert decode.spark_type(decode.declared_field("array<Date>")) == T.ArrayType(T.DateType(), True)
    with pytest.raises(decode.DecodeError):
        decode.declared_field("Nonsense")
