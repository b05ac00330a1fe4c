"""What a micro-batch does to one key of a lake table: pure Python, no Spark.

The job groups a batch's changes by table and key, adds what the lake holds
for the key (the UPSERT row and the LSN of its last delete, or the SCD2
versions) and the table's TRUNCATEs, and asks these functions what to write.

Order: changes of one key are applied in (source.lsn, position) order: a
key's changes are serialised by PostgreSQL's row locks, so their LSNs grow
in commit order; the position breaks the tie of a key change, whose delete
and create share one LSN (see decode.Decoder).  A TRUNCATE at LSN T follows
every change with a smaller LSN (it waits for their transactions) and
precedes every larger one.

Deduplication: whatever is at or below the key's watermark, the greatest
(lsn, position) the lake has applied for the key, is a replay and changes
nothing: the UPSERT row's own, the last delete's (kept in the table's state
because the row is gone), the SCD2 versions' opening and closing changes.

TOAST: a column holding Debezium's placeholder keeps the value it had: the
previous change's in the same batch, else the lake's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

UTC = dt.timezone.utc
NONE = (-1, -1)

UPSERT_META = ("__op", "__lsn", "__pos", "__ts")
SCD2_META = ("valid_from", "valid_to", "is_current", "__op", "__lsn", "__pos", "__end_lsn", "__end_pos")
APPEND_META = ("__op", "__lsn", "__pos", "__ts")


def ts(ms: int) -> dt.datetime:
    """source.ts_ms (commit time) as an aware UTC datetime (Spark's TimestampType)."""
    return dt.datetime.fromtimestamp(ms / 1000, UTC)


class Truncate:
    """A TRUNCATE of the table: (lsn, position, commit time in ms)."""

    __slots__ = ("lsn", "pos", "ts_ms")

    def __init__(self, lsn: int, pos: int, ts_ms: int):
        self.lsn, self.pos, self.ts_ms = lsn, pos, ts_ms

    def order(self) -> tuple[int, int]:
        return (self.lsn, self.pos)

    def __repr__(self) -> str:
        return f"Truncate({self.lsn}/{self.pos})"


def _events(changes: Iterable, truncates: Iterable[Truncate], watermark: tuple[int, int]) -> list:
    """Changes above the watermark (first copy of each), and the truncates, in order.
    A truncate sorts after a change at the same order (it never shares one)."""
    seen = set()
    evs = []
    for c in changes:
        o = c.order()
        if o <= watermark or o in seen:
            continue
        seen.add(o)
        evs.append((o, 0, c))
    for t in truncates:
        evs.append((t.order(), 1, t))
    evs.sort(key=lambda e: (e[0], e[1]))
    return [e[2] for e in evs]


def _filled(change, previous: dict | None) -> dict:
    """The change's values, placeholders replaced by the previous values."""
    if not change.unavailable:
        return change.values
    vals = dict(change.values)
    for col in change.unavailable:
        vals[col] = previous.get(col) if previous is not None else None
    return vals


# ---------------------------------------------------------------- UPSERT


def resolve_upsert(
    changes: Iterable,
    existing: dict | None,
    deleted: tuple[int, int] | None,
    truncates: Iterable[Truncate] = (),
) -> tuple[str, dict | None, dict] | None:
    """One key of an UPSERT table.

    existing: the lake's row (columns and __op/__lsn/__pos/__ts) or None;
    deleted: (lsn, position) of the key's last delete in the lake, or None.
    Returns None (nothing to write), ("upsert", values, meta) or
    ("delete", None, meta); meta holds __op, __lsn, __pos, __ts of the
    last change applied (a delete's is kept as the key's watermark).
    """
    mark = max((existing["__lsn"], existing["__pos"]) if existing else NONE, deleted or NONE)
    cur = None if existing is None else {k: v for k, v in existing.items() if k not in UPSERT_META}
    cur_order = (existing["__lsn"], existing["__pos"]) if existing is not None else None
    last = None
    for ev in _events(changes, truncates, mark):
        if isinstance(ev, Truncate):
            if cur is not None and cur_order < ev.order():
                cur = None
                last = ("t", ev.lsn, ev.pos, ev.ts_ms)
            continue
        if ev.op == "d":
            cur = None
        else:
            cur = _filled(ev, cur)
            cur_order = ev.order()
        last = (ev.op, ev.lsn, ev.pos, ev.ts_ms)
    if last is None:
        return None
    meta = {"__op": last[0], "__lsn": last[1], "__pos": last[2], "__ts": ts(last[3])}
    if cur is None:
        meta["__op"] = "d"
        return ("delete", None, meta)
    return ("upsert", cur, meta)


# ---------------------------------------------------------------- SCD2


def resolve_scd2(
    changes: Iterable,
    versions: list[dict],
    truncates: Iterable[Truncate] = (),
) -> list[dict]:
    """One key of an SCD2 table: the versions to write (new ones, and
    existing ones closed), each a dict of columns and SCD2_META.

    versions: the key's versions in the lake.  A version is valid from the
    commit time of the change that made it (valid_from, __op, __lsn,
    __pos) until that of the next change of the key: an update (which
    opens the next version), a delete, a truncate (valid_to, __end_lsn,
    __end_pos); is_current while no such change came.
    """
    truncated = {t.order() for t in truncates}
    mark = NONE
    cur = None
    latest = None
    for v in versions:
        start = (v["__lsn"], v["__pos"])
        end = None if v["__end_lsn"] is None else (v["__end_lsn"], v["__end_pos"])
        mark = max(mark, start)
        # a truncate's closing is no watermark: see below
        if end is not None and end not in truncated:
            mark = max(mark, end)
        if v["is_current"]:
            cur = dict(v)
        if latest is None or start > (latest["__lsn"], latest["__pos"]):
            latest = v
    out: dict[tuple[int, int], dict] = {}
    if cur is None and latest is not None and (latest["__end_lsn"], latest["__end_pos"]) in truncated:
        # the key's records held back for a key change (hold_back) come
        # after a truncate of the table that closed the key's version: the
        # version is current again until the truncate, which closes it
        # again unless a held back change closed it first
        cur = dict(latest, valid_to=None, is_current=True, __end_lsn=None, __end_pos=None)

    def close(lsn: int, pos: int, ts_ms: int) -> None:
        cur["valid_to"] = ts(ts_ms)
        cur["is_current"] = False
        cur["__end_lsn"], cur["__end_pos"] = lsn, pos
        out[(cur["__lsn"], cur["__pos"])] = cur

    for ev in _events(changes, truncates, mark):
        if isinstance(ev, Truncate):
            if cur is not None and (cur["__lsn"], cur["__pos"]) < ev.order():
                close(ev.lsn, ev.pos, ev.ts_ms)
                cur = None
            continue
        previous = cur
        if cur is not None:
            close(ev.lsn, ev.pos, ev.ts_ms)
            cur = None
        if ev.op == "d":
            continue
        row = dict(_filled(ev, previous))
        row.update(
            valid_from=ts(ev.ts_ms),
            valid_to=None,
            is_current=True,
            __op=ev.op,
            __lsn=ev.lsn,
            __pos=ev.pos,
            __end_lsn=None,
            __end_pos=None,
        )
        cur = row
        out[(ev.lsn, ev.pos)] = row
    return list(out.values())


# ---------------------------------------------------------------- key changes

# A key change is a delete of the old key and a create of the new one at one
# LSN; a TOASTed column the UPDATE left alone is the placeholder in the
# create.  Its value is the old key's just before the delete: these give it.


def _data(row: dict | None, meta: tuple) -> dict | None:
    return None if row is None else {k: v for k, v in row.items() if k not in meta}


def upsert_value_before(changes, existing, deleted, truncates, lsn: int) -> dict | None:
    """The UPSERT row of a key just before its delete at lsn (None if none)."""
    before = [c for c in changes if c.lsn < lsn]
    res = resolve_upsert(before, existing, deleted, [t for t in truncates if t.lsn < lsn])
    if res is None:
        return _data(existing, UPSERT_META)
    return res[1]


def scd2_value_before(changes, versions, truncates, lsn: int) -> dict | None:
    """The SCD2 version of a key current just before its delete at lsn: the
    lake's version it closed, or the one the batch's earlier changes make."""
    for v in versions:
        if v["__end_lsn"] == lsn:
            return _data(v, SCD2_META)
    before = [c for c in changes if c.lsn < lsn]
    out = resolve_scd2(before, versions, [t for t in truncates if t.lsn < lsn])
    for v in out + list(versions):
        if v["is_current"]:
            return _data(v, SCD2_META)
    return None


def fill_key_change(change, previous: dict | None):
    """The create of a key change with its placeholders filled from the old key's row."""
    if previous is None or change.op != "c" or not change.unavailable:
        return change
    values = dict(change.values)
    for col in change.unavailable:
        values[col] = previous.get(col)
    filled = type(change)(
        change.table,
        change.op,
        change.lsn,
        change.pos,
        change.ts_ms,
        change.key,
        values,
        frozenset(),
        change.schema,
        change.keycols,
    )
    filled.moved, filled.since = change.moved, change.since
    return filled


# A key change's delete and create are on the partitions of two keys, so a
# micro-batch can hold one without the other; then neither key can be
# resolved right (the create's placeholders need the old row just before
# the delete, which the lake either no longer has or has not reached yet).
# Such keys are held back: their records wait for a later batch, read again
# with it, until the other half has come.


def hold_back(halves: Iterable[tuple], batch_id: int, wait: int) -> tuple[set, list]:
    """The keys whose records wait for a later micro-batch.

    halves: (table, lsn, op, key, since) of the batch's key-change records
    (a delete carrying __debezium.newkey, a create carrying
    __debezium.oldkey); since is the batch that first read the record.  A
    half whose other half is not in the batch holds back its key, and with
    it every key it is joined to by the batch's complete key changes (a key
    changed twice hands its row on).  A half that has waited `wait` batches
    (its other half was skipped, or read before the query started) goes on
    alone.  Returns ({(table, key)} held back, [(table, lsn)] gone on alone).
    """
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    pairs: dict[tuple, list] = {}
    for table, lsn, op, key, since in halves:
        pairs.setdefault((table, lsn), []).append((op, (table, key), since))
    orphans = []
    for tl, hs in pairs.items():
        first = find(hs[0][1])
        for _, node, _ in hs[1:]:
            parent[find(node)] = first
        if not {"c", "d"} <= {op for op, _, _ in hs}:
            orphans.append((tl, hs[0][1], min(since for _, _, since in hs)))
    waiting = {find(node) for _, node, since in orphans if batch_id - since < wait}
    held = {node for node in parent if find(node) in waiting}
    alone = sorted(tl for tl, node, _ in orphans if find(node) not in waiting)
    return held, alone


# ---------------------------------------------------------------- append


def append_row(change) -> dict:
    """A change as an appended fact: its row (a delete's before image) and meta."""
    row = dict(change.values or {})
    row.update(__op=change.op, __lsn=change.lsn, __pos=change.pos, __ts=ts(change.ts_ms))
    return row


def row_tuple(row: dict[str, Any], columns: list[str]) -> tuple:
    return tuple(row.get(c) for c in columns)
