"""Debezium records (Kafka Connect's JsonConverter, with or without schemas)
turned into typed Python values and Spark types.

Pure Python: nothing here starts Spark (pyspark.sql.types is plain Python).
A column is described by its Kafka Connect field schema, as JsonConverter
writes it ({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal",
"parameters": {"scale": "2", ...}}): the record's own schema when records
carry schemas, else the declared schema (see ``declared_field``).  The
schema decides the Spark type and the conversion; values are never guessed
from their look.

Logical types and what they become:

  org.apache.kafka.connect.data.Decimal   base64 two's complement -> DecimalType(p, s)
                                          (p > 38: StringType, the exact text)
  io.debezium.data.VariableScaleDecimal   {scale, value} -> DecimalType(38, 18), rounded
                                          half-even; too many integer digits is an error
  io.debezium.time.Date, connect Date     days since 1970-01-01 -> DateType
  io.debezium.time.Timestamp / Micro / Nano, connect Timestamp
                                          wall clock since the epoch -> TimestampNTZType
  io.debezium.time.ZonedTimestamp         ISO-8601 instant -> TimestampType
  io.debezium.time.Time / MicroTime / NanoTime, connect Time
                                          time of day -> StringType 'HH:MM:SS.ffffff'
  io.debezium.time.MicroDuration          LongType (microseconds, as Debezium counts them)
  Json, Xml, Uuid, Enum, ZonedTime, ...   StringType
  Bits, bytes                             BinaryType
  arrays, maps, structs                   ArrayType, MapType, StructType of the above

Values outside what Python's datetime holds (years before 1 or after 9999,
PostgreSQL's infinities) become null, with a warning once per column.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import logging
import uuid
from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation
from typing import Any

from pyspark.sql import types as T

log = logging.getLogger(__name__)

PLACEHOLDER = "__debezium_unavailable_value"
PLACEHOLDER_BYTES = PLACEHOLDER.encode()

EPOCH_DATE = dt.date(1970, 1, 1)
EPOCH = dt.datetime(1970, 1, 1)
UTC = dt.timezone.utc

VSD_PRECISION = 38
VSD_SCALE = 18

DECIMAL = "org.apache.kafka.connect.data.Decimal"
VSD = "io.debezium.data.VariableScaleDecimal"
DATES = {"io.debezium.time.Date", "org.apache.kafka.connect.data.Date"}
TS_MILLI = {"io.debezium.time.Timestamp", "org.apache.kafka.connect.data.Timestamp"}
TS_MICRO = {"io.debezium.time.MicroTimestamp"}
TS_NANO = {"io.debezium.time.NanoTimestamp"}
TS_ZONED = "io.debezium.time.ZonedTimestamp"
TIME_UNITS = {
    "io.debezium.time.Time": 1000,
    "org.apache.kafka.connect.data.Time": 1000,
    "io.debezium.time.MicroTime": 1,
    "io.debezium.time.NanoTime": 0.001,
}

PRIMITIVES = {
    "int8": T.ByteType,
    "int16": T.ShortType,
    "int32": T.IntegerType,
    "int64": T.LongType,
    "float": T.FloatType,
    "double": T.DoubleType,
    "boolean": T.BooleanType,
    "string": T.StringType,
    "bytes": T.BinaryType,
}


class DecodeError(ValueError):
    """A record that does not decode; the message names the column."""


# ---------------------------------------------------------------- Spark types


def spark_type(schema: dict) -> T.DataType:
    """The Spark type of a Kafka Connect field schema."""
    name = schema.get("name")
    kind = schema.get("type")
    params = schema.get("parameters") or {}
    if name == DECIMAL:
        scale = int(params.get("scale", "0"))
        precision = params.get("connect.decimal.precision")
        if precision is None:
            # money (no precision parameter): its range fits 38 digits
            return T.DecimalType(38, scale)
        if int(precision) > 38:
            return T.StringType()
        return T.DecimalType(int(precision), scale)
    if name == VSD:
        return T.DecimalType(VSD_PRECISION, VSD_SCALE)
    if name in DATES:
        return T.DateType()
    if name in TS_MILLI or name in TS_MICRO or name in TS_NANO:
        return T.TimestampNTZType()
    if name == TS_ZONED:
        return T.TimestampType()
    if name in TIME_UNITS:
        return T.StringType()
    if kind == "array":
        return T.ArrayType(spark_type(schema["items"]), True)
    if kind == "map":
        return T.MapType(spark_type(schema["keys"]), spark_type(schema["values"]), True)
    if kind == "struct":
        return T.StructType([T.StructField(f["field"], spark_type(f), True) for f in schema["fields"]])
    try:
        return PRIMITIVES[kind]()
    except KeyError:
        raise DecodeError(f"unknown Kafka Connect type {kind!r} in {schema}") from None


def struct_columns(schema: dict) -> list[tuple[str, dict]]:
    """(column, field schema) of a row struct schema, in order."""
    return [(f["field"], f) for f in schema.get("fields", [])]


# ---------------------------------------------------------------- values


_warned: set[str] = set()


def _out_of_range(column: str, value: Any) -> None:
    if column not in _warned:
        _warned.add(column)
        log.warning("column %s: value %r is outside what Spark's Python side holds; written as null", column, value)
    return None


def decimal_from_bytes(b64: str, scale: int) -> Decimal:
    raw = base64.b64decode(b64)
    unscaled = int.from_bytes(raw, "big", signed=True) if raw else 0
    return Decimal(unscaled).scaleb(-scale)


_VSD_CONTEXT = Context(prec=200)


def variable_decimal(value: dict, column: str) -> Decimal:
    d = decimal_from_bytes(value["value"], int(value["scale"]))
    q = d.quantize(Decimal(1).scaleb(-VSD_SCALE), rounding=ROUND_HALF_EVEN, context=_VSD_CONTEXT)
    if q.adjusted() >= VSD_PRECISION - VSD_SCALE:
        raise DecodeError(
            f"column {column}: numeric {d} has more than {VSD_PRECISION - VSD_SCALE} integer digits "
            f"(numeric without a precision is read as decimal({VSD_PRECISION},{VSD_SCALE}))"
        )
    return q


def parse_zoned(text: str, column: str) -> dt.datetime | None:
    """io.debezium.time.ZonedTimestamp: UTC, 'Z', 0 to 9 fraction digits."""
    if text in ("infinity", "-infinity") or text.startswith(("+", "-")):
        return _out_of_range(column, text)
    body = text[:-1] if text.endswith("Z") else text
    date_part, _, time_part = body.partition("T")
    frac = ""
    if "." in time_part:
        time_part, frac = time_part.split(".", 1)
    try:
        y, mo, d = (int(x) for x in date_part.split("-"))
        h, mi, s = (int(x) for x in time_part.split(":"))
        micro = int((frac + "000000")[:6]) if frac else 0
        return dt.datetime(y, mo, d, h, mi, s, micro, tzinfo=UTC)
    except ValueError as e:
        raise DecodeError(f"column {column}: not a ZonedTimestamp: {text!r}") from e


def time_text(micros: int) -> str:
    """A time of day as 'HH:MM:SS.ffffff' (24:00:00 stays 24:00:00.000000)."""
    s, us = divmod(int(micros), 1_000_000)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"{h:02d}:{m:02d}:{s:02d}.{us:06d}"


def _timestamp(micros: int, column: str) -> dt.datetime | None:
    try:
        return EPOCH + dt.timedelta(microseconds=micros)
    except OverflowError:
        return _out_of_range(column, micros)


def converter(schema: dict, column: str) -> Callable[[Any], Any]:
    """A function from the JSON value of a field to its Python value for Spark."""
    name = schema.get("name")
    kind = schema.get("type")
    params = schema.get("parameters") or {}

    if name == DECIMAL:
        scale = int(params.get("scale", "0"))
        as_text = isinstance(spark_type(schema), T.StringType)
        if as_text:
            return lambda v: format(decimal_from_bytes(v, scale), "f")
        return lambda v: decimal_from_bytes(v, scale)
    if name == VSD:
        return lambda v: variable_decimal(v, column)
    if name in DATES:

        def date(v: int) -> dt.date | None:
            try:
                return EPOCH_DATE + dt.timedelta(days=v)
            except OverflowError:
                return _out_of_range(column, v)

        return date
    if name in TS_MILLI:
        return lambda v: _timestamp(v * 1000, column)
    if name in TS_MICRO:
        return lambda v: _timestamp(v, column)
    if name in TS_NANO:
        return lambda v: _timestamp(v // 1000, column)
    if name == TS_ZONED:
        return lambda v: parse_zoned(v, column)
    if name in TIME_UNITS:
        unit = TIME_UNITS[name]
        return lambda v: time_text(v * unit)
    if kind == "bytes":
        return base64.b64decode
    if kind == "array":
        item = converter(schema["items"], column)
        return lambda v: [None if x is None else item(x) for x in v]
    if kind == "map":
        key = converter(schema["keys"], column)
        val = converter(schema["values"], column)
        if schema["keys"].get("type") == "string":
            return lambda v: {key(k): (None if x is None else val(x)) for k, x in v.items()}
        return lambda v: {key(k): (None if x is None else val(x)) for k, x in v}
    if kind == "struct":
        fields = [(f["field"], converter(f, f"{column}.{f['field']}")) for f in schema["fields"]]
        return lambda v: tuple(None if v.get(n) is None else c(v[n]) for n, c in fields)
    if kind in ("float", "double"):
        return _float
    return _identity


def _identity(v: Any) -> Any:
    return v


def _float(v: Any) -> float:
    # JsonConverter writes NaN and the infinities as strings
    return float(v)


# ---------------------------------------------------------------- TOAST placeholder


def _java_name_uuid(data: bytes) -> str:
    """java.util.UUID.nameUUIDFromBytes: MD5 with version 3 and the IETF variant."""
    h = bytearray(hashlib.md5(data).digest())
    h[6] = (h[6] & 0x0F) | 0x30
    h[8] = (h[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(h)))


_PLACEHOLDER_B64 = base64.b64encode(PLACEHOLDER_BYTES).decode()
_PLACEHOLDER_INTS = list(PLACEHOLDER_BYTES)
_PLACEHOLDER_UUID = _java_name_uuid(PLACEHOLDER_BYTES)
_PLACEHOLDER_JSON_MAP = json.dumps({PLACEHOLDER: PLACEHOLDER}, separators=(",", ":"))


def is_unavailable(value: Any, schema: dict) -> bool:
    """Is this JSON value Debezium's placeholder for an unchanged TOASTed value?"""
    if value is None:
        return False
    kind = schema.get("type")
    if kind == "string":
        return value == PLACEHOLDER or value == _PLACEHOLDER_JSON_MAP
    if kind == "bytes":
        return value == _PLACEHOLDER_B64
    if kind == "array":
        item = schema["items"].get("type")
        if item == "string":
            return value == [PLACEHOLDER] or value == [_PLACEHOLDER_UUID]
        if item == "bytes":
            return value == [_PLACEHOLDER_B64]
        if item in ("int8", "int16", "int32", "int64"):
            return value == _PLACEHOLDER_INTS
        return False
    if kind == "map":
        return value == {PLACEHOLDER: PLACEHOLDER}
    return False


# ---------------------------------------------------------------- declared schemas (schemas off)

_SHORT = {
    "Date": {"type": "int32", "name": "io.debezium.time.Date"},
    "Time": {"type": "int32", "name": "io.debezium.time.Time"},
    "MicroTime": {"type": "int64", "name": "io.debezium.time.MicroTime"},
    "NanoTime": {"type": "int64", "name": "io.debezium.time.NanoTime"},
    "Timestamp": {"type": "int64", "name": "io.debezium.time.Timestamp"},
    "MicroTimestamp": {"type": "int64", "name": "io.debezium.time.MicroTimestamp"},
    "NanoTimestamp": {"type": "int64", "name": "io.debezium.time.NanoTimestamp"},
    "ZonedTimestamp": {"type": "string", "name": TS_ZONED},
    "MicroDuration": {"type": "int64", "name": "io.debezium.time.MicroDuration"},
    "VariableScaleDecimal": {
        "type": "struct",
        "name": VSD,
        "fields": [{"type": "int32", "field": "scale"}, {"type": "bytes", "field": "value"}],
    },
}


def declared_field(spec: Any) -> dict:
    """A field schema from a declared one: a Connect field schema as JsonConverter
    writes it, or a short form: a Connect type ("int32", "string", ...), a
    Debezium logical type's short name ("Date", "MicroTimestamp",
    "ZonedTimestamp", "VariableScaleDecimal", ...), "Decimal(p,s)",
    "array<...>"."""
    if isinstance(spec, dict):
        return spec
    s = str(spec).strip()
    if s in PRIMITIVES:
        return {"type": s}
    if s in _SHORT:
        return dict(_SHORT[s])
    if s.startswith("Decimal(") and s.endswith(")"):
        p, _, sc = s[8:-1].partition(",")
        return {
            "type": "bytes",
            "name": DECIMAL,
            "parameters": {"scale": sc.strip() or "0", "connect.decimal.precision": p.strip()},
        }
    if s.startswith("array<") and s.endswith(">"):
        return {"type": "array", "items": declared_field(s[6:-1])}
    raise DecodeError(f"unknown declared type {spec!r}")


def declared_struct(columns: dict) -> dict:
    """A row struct schema from {column: declared type}, in the mapping's order."""
    return {"type": "struct", "fields": [dict(declared_field(v), field=k) for k, v in columns.items()]}


# ---------------------------------------------------------------- records


class Change:
    """One decoded change event of a table."""

    __slots__ = (
        "table",
        "op",
        "lsn",
        "pos",
        "ts_ms",
        "key",
        "values",
        "unavailable",
        "schema",
        "keycols",
        "moved",
        "since",
    )

    def __init__(self, table, op, lsn, pos, ts_ms, key, values, unavailable, schema, keycols=()):
        self.table = table  # "schema.table"
        self.op = op  # c, u, d, r, t
        self.lsn = lsn
        self.pos = pos
        self.ts_ms = ts_ms
        self.key = key  # tuple of the key's values (None for t)
        self.values = values  # {column: python value} (None for t)
        self.unavailable = unavailable  # frozenset of columns holding the TOAST placeholder
        self.schema = schema  # the row's struct schema, as JSON text
        self.keycols = keycols  # the key's columns, in the record key's order
        # half of a key change: "from" (the delete, header __debezium.newkey),
        # "to" (the create, __debezium.oldkey), else None
        self.moved = None
        self.since = 0  # the micro-batch that first read the record (see merge.hold_back)

    def order(self) -> tuple[int, int]:
        return (self.lsn, self.pos)

    def __repr__(self) -> str:
        return f"Change({self.table} {self.op} lsn={self.lsn}/{self.pos} key={self.key} {self.values})"


def _split(doc: Any) -> tuple[dict | None, Any]:
    """(schema, payload) of a JsonConverter document, with or without schemas."""
    if isinstance(doc, dict) and set(doc) == {"schema", "payload"}:
        return doc["schema"], doc["payload"]
    return None, doc


class Decoder:
    """Decodes the records of the topics of one job.

    declared: {"schema.table": {"key": [columns], "columns": {column: type}}}
    for records without schemas (see declared_field); records with schemas
    are decoded by their own schema and need nothing declared.
    """

    def __init__(self, declared: dict | None = None):
        self.declared = declared or {}
        self._converters: dict[str, list] = {}

    def _row_plan(self, row_schema: dict, schema_text: str) -> list:
        plan = self._converters.get(schema_text)
        if plan is None:
            plan = [(col, f, converter(f, col)) for col, f in struct_columns(row_schema)]
            self._converters[schema_text] = plan
        return plan

    def row_schema(self, table: str, value_schema: dict | None) -> dict:
        if value_schema is not None:
            for f in value_schema["fields"]:
                if f["field"] in ("after", "before"):
                    return {"type": "struct", "fields": f["fields"]}
        decl = self.declared.get(table)
        if decl is None:
            raise DecodeError(
                f"records of {table} carry no schema and none is declared for it "
                "(--schemas FILE, or cdc_kafka.schemas = on)"
            )
        return declared_struct(decl["columns"])

    def decode(self, key: str | bytes | None, value: str | bytes | None, txorder: int | None = None) -> Change | None:
        """The change of a Kafka record, or None (tombstones, messages, transaction records)."""
        if value is None:
            return None  # tombstone: the delete record before it carries the delete
        doc = json.loads(value)
        vschema, payload = _split(doc)
        if not isinstance(payload, dict) or "op" not in payload or "source" not in payload:
            return None
        op = payload["op"]
        if op not in ("c", "u", "d", "r", "t"):
            return None
        src = payload["source"]
        table = f"{src['schema']}.{src['table']}"
        lsn = src.get("lsn") or 0
        ts_ms = src["ts_ms"]
        tx = payload.get("transaction")
        if txorder is None and isinstance(tx, dict):
            txorder = tx.get("total_order")
        # a key change is a delete and a create at one LSN: the delete first
        pos = txorder if txorder is not None else (0 if op == "d" else 1)
        if op == "t":
            return Change(table, "t", lsn, pos, ts_ms, None, None, frozenset(), None)
        rschema = self.row_schema(table, vschema)
        schema_text = json.dumps(rschema, sort_keys=True, separators=(",", ":"))
        row = payload["before"] if op == "d" else payload["after"]
        values, unavailable = self._values(row or {}, rschema, schema_text)
        keycols = self.key_columns(table, key)
        keyvals = tuple(_hashable(values.get(c)) for c in keycols) if keycols else None
        return Change(table, op, lsn, pos, ts_ms, keyvals, values, unavailable, schema_text, tuple(keycols))

    def _values(self, row: dict, rschema: dict, schema_text: str) -> tuple[dict, frozenset]:
        values = {}
        unavailable = []
        for col, f, conv in self._row_plan(rschema, schema_text):
            v = row.get(col)
            if v is None:
                values[col] = None
            elif is_unavailable(v, f):
                values[col] = None
                unavailable.append(col)
            else:
                try:
                    values[col] = conv(v)
                except DecodeError:
                    raise
                except (ValueError, TypeError, KeyError, InvalidOperation) as e:
                    raise DecodeError(f"column {col}: cannot read {v!r} as {f}: {e}") from e
        return values, frozenset(unavailable)

    def key_columns(self, table: str, key: str | bytes | None) -> list[str]:
        if key is None:
            decl = self.declared.get(table)
            return list(decl.get("key", [])) if decl else []
        _, payload = _split(json.loads(key))
        return list(payload) if isinstance(payload, dict) else []


def key_value(v: Any) -> Any:
    return _hashable(v)


def _hashable(v: Any) -> Any:
    """A key value as a dict key, equal to the same value read back from Spark
    (aware timestamps come back as naive UTC: the job runs in UTC)."""
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(UTC).replace(tzinfo=None)
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
    return v
