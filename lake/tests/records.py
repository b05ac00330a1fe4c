"""Debezium records as cdc_kafka writes them (JsonConverter), built for tests."""

from __future__ import annotations

import base64
import json

SOURCE_SCHEMA = {
    "type": "struct",
    "optional": False,
    "name": "io.debezium.connector.postgresql.Source",
    "field": "source",
}


def decimal_b64(unscaled: int) -> str:
    n = max(1, (unscaled.bit_length() + 8) // 8)
    return base64.b64encode(unscaled.to_bytes(n, "big", signed=True)).decode()


def envelope(
    table: str,
    op: str,
    lsn: int,
    ts_ms: int,
    fields: list[dict] | None,
    before: dict | None = None,
    after: dict | None = None,
    schemas: bool = True,
) -> str:
    schema, name = table.split(".")
    payload = {
        "before": before,
        "after": after,
        "source": {
            "version": "3.6.1.Final",
            "connector": "postgresql",
            "name": "srv",
            "ts_ms": ts_ms,
            "snapshot": "false",
            "db": "db",
            "schema": schema,
            "table": name,
            "txId": 1,
            "lsn": lsn,
        },
        "transaction": None,
        "op": op,
        "ts_ms": ts_ms + 5,
    }
    if not schemas:
        return json.dumps(payload)
    row = {"type": "struct", "fields": fields or [], "optional": True, "name": f"srv.{table}.Value"}
    value_schema = {
        "type": "struct",
        "fields": [dict(row, field="before"), dict(row, field="after"), SOURCE_SCHEMA],
        "optional": False,
        "name": f"srv.{table}.Envelope",
        "version": 2,
    }
    return json.dumps({"schema": value_schema, "payload": payload})


def key(table: str, fields: list[dict], values: dict, schemas: bool = True) -> str:
    if not schemas:
        return json.dumps(values)
    ks = {"type": "struct", "fields": fields, "optional": False, "name": f"srv.{table}.Key"}
    return json.dumps({"schema": ks, "payload": values})


class Table:
    """Records of one table: rec.c(id=1, name='a'), rec.u(...), rec.d(id=1), rec.t()."""

    def __init__(self, table: str, fields: list[dict], keycols: list[str], schemas: bool = True):
        self.table, self.fields, self.keycols, self.schemas = table, fields, keycols, schemas
        self.kfields = [f for f in fields if f["field"] in keycols]
        self.lsn = 1000
        self.ts = 1_700_000_000_000

    def _next(self, lsn, ts):
        self.lsn = lsn if lsn is not None else self.lsn + 8
        self.ts = ts if ts is not None else self.ts + 1000
        return self.lsn, self.ts

    def _key(self, row):
        return key(self.table, self.kfields, {k: row[k] for k in self.keycols}, self.schemas)

    def change(self, op, row, lsn=None, ts=None):
        lsn, ts = self._next(lsn, ts)
        before = row if op == "d" else None
        after = None if op == "d" else row
        return (self._key(row), envelope(self.table, op, lsn, ts, self.fields, before, after, self.schemas))

    def c(self, lsn=None, ts=None, **row):
        return self.change("c", row, lsn, ts)

    def r(self, lsn=None, ts=None, **row):
        return self.change("r", row, lsn, ts)

    def u(self, lsn=None, ts=None, **row):
        return self.change("u", row, lsn, ts)

    def d(self, lsn=None, ts=None, **row):
        return self.change("d", row, lsn, ts)

    def tombstone(self, **row):
        return (self._key(row), None)

    def t(self, lsn=None, ts=None):
        lsn, ts = self._next(lsn, ts)
        return (None, envelope(self.table, "t", lsn, ts, self.fields, None, None, self.schemas))
