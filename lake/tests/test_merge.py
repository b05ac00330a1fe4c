"""The per-key merge logic: order, dedup, TOAST, truncates, SCD2 chains."""

from cdc_kafka_lake.decode import Change
from cdc_kafka_lake.merge import (
    Truncate,
    fill_key_change,
    hold_back,
    resolve_scd2,
    resolve_upsert,
    scd2_value_before,
    ts,
    upsert_value_before,
)


def ch(op, lsn, ts_ms=None, pos=None, unavailable=(), **values):
    values.setdefault("id", 1)
    return Change(
        "public.t",
        op,
        lsn,
        pos if pos is not None else (0 if op == "d" else 1),
        ts_ms if ts_ms is not None else lsn * 10,
        (values["id"],),
        values,
        frozenset(unavailable),
        "{}",
        ("id",),
    )


def row(values, lsn, pos=1, op="c"):
    return dict(values, __op=op, __lsn=lsn, __pos=pos, __ts=ts(lsn * 10))


# ---------------------------------------------------------------- UPSERT


def test_upsert_chain_in_one_batch_in_lsn_order():
    changes = [ch("u", 30, v="c"), ch("c", 10, v="a"), ch("u", 20, v="b")]
    kind, values, meta = resolve_upsert(changes, None, None)
    assert kind == "upsert" and values == {"id": 1, "v": "c"}
    assert meta["__lsn"] == 30 and meta["__op"] == "u"


def test_upsert_delete_and_reinsert():
    assert resolve_upsert([ch("c", 10, v="a"), ch("d", 20)], None, None)[0] == "delete"
    kind, values, _ = resolve_upsert([ch("d", 20), ch("c", 30, v="again")], row({"id": 1, "v": "a"}, 10), None)
    assert kind == "upsert" and values["v"] == "again"


def test_upsert_replay_changes_nothing():
    existing = row({"id": 1, "v": "c"}, 30, op="u")
    assert resolve_upsert([ch("c", 10, v="a"), ch("u", 20, v="b"), ch("u", 30, v="c")], existing, None) is None
    # the key was deleted at 40: a replay of its create must not bring it back
    assert resolve_upsert([ch("c", 10, v="a"), ch("d", 40)], None, (40, 0)) is None


def test_upsert_duplicates_in_batch_count_once():
    kind, values, meta = resolve_upsert([ch("c", 10, v="a"), ch("c", 10, v="a")], None, None)
    assert values == {"id": 1, "v": "a"} and meta["__lsn"] == 10


def test_upsert_toast_keeps_previous_value():
    existing = row({"id": 1, "v": "a", "big": "LONG"}, 10)
    _, values, _ = resolve_upsert([ch("u", 20, v="b", big=None, unavailable={"big"})], existing, None)
    assert values == {"id": 1, "v": "b", "big": "LONG"}
    # from an earlier change of the same batch
    changes = [ch("u", 20, big="NEW", v="b"), ch("u", 30, v="c", big=None, unavailable={"big"})]
    _, values, _ = resolve_upsert(changes, existing, None)
    assert values["big"] == "NEW"


def test_upsert_truncate():
    existing = row({"id": 1, "v": "a"}, 10)
    kind, _, meta = resolve_upsert([ch("u", 20, v="b")], existing, None, [Truncate(25, 1, 250)])
    assert kind == "delete"
    kind, values, _ = resolve_upsert([ch("c", 30, v="new")], existing, None, [Truncate(25, 1, 250)])
    assert kind == "upsert" and values["v"] == "new"
    # a truncate the lake applied before: late changes from before it stay out
    assert resolve_upsert([ch("c", 5, v="old")], None, None, [Truncate(25, 1, 250)])[0] == "delete"


def test_key_change_is_delete_then_create():
    # UPDATE id 1 -> 2: delete of key 1 and create of key 2 at one LSN
    assert resolve_upsert([ch("d", 50, id=1)], row({"id": 1, "v": "a"}, 10), None)[0] == "delete"
    kind, values, _ = resolve_upsert([ch("c", 50, id=2, v="a")], None, None)
    assert kind == "upsert" and values == {"id": 2, "v": "a"}


# ---------------------------------------------------------------- SCD2


def version(values, lsn, end=None, op="c", pos=1, end_pos=None):
    return dict(
        values,
        valid_from=ts(lsn * 10),
        valid_to=ts(end * 10) if end else None,
        is_current=end is None,
        __op=op,
        __lsn=lsn,
        __pos=pos,
        __end_lsn=end,
        __end_pos=(end_pos if end_pos is not None else (1 if end else None)),
    )


def chain(vs):
    return sorted(
        [(v["v"], v["__op"], v["__lsn"], v["__end_lsn"], v["is_current"], v["valid_from"], v["valid_to"]) for v in vs],
        key=lambda x: x[2],
    )


def test_scd2_chain_of_one_batch():
    out = resolve_scd2([ch("c", 10, v="a"), ch("u", 20, v="b"), ch("u", 30, v="c"), ch("d", 40)], [])
    assert chain(out) == [
        ("a", "c", 10, 20, False, ts(100), ts(200)),
        ("b", "u", 20, 30, False, ts(200), ts(300)),
        ("c", "u", 30, 40, False, ts(300), ts(400)),
    ]


def test_scd2_closes_the_lakes_current_version():
    out = resolve_scd2([ch("u", 20, v="b")], [version({"id": 1, "v": "a"}, 10)])
    assert chain(out) == [
        ("a", "c", 10, 20, False, ts(100), ts(200)),
        ("b", "u", 20, None, True, ts(200), None),
    ]


def test_scd2_same_commit_time_ordered_by_lsn():
    out = resolve_scd2([ch("u", 21, ts_ms=500, v="b"), ch("c", 20, ts_ms=500, v="a")], [])
    assert chain(out) == [("a", "c", 20, 21, False, ts(500), ts(500)), ("b", "u", 21, None, True, ts(500), None)]


def test_scd2_replay_changes_nothing():
    lake = [version({"id": 1, "v": "a"}, 10, end=20), version({"id": 1, "v": "b"}, 20, end=30, op="u", end_pos=0)]
    assert resolve_scd2([ch("c", 10, v="a"), ch("u", 20, v="b"), ch("d", 30)], lake) == []


def test_scd2_reinsert_after_delete_opens_a_new_version():
    lake = [version({"id": 1, "v": "a"}, 10, end=20, end_pos=0)]
    out = resolve_scd2([ch("d", 20), ch("c", 30, v="again")], lake)
    assert chain(out) == [("again", "c", 30, None, True, ts(300), None)]


def test_scd2_toast_from_previous_version():
    lake = [version({"id": 1, "v": "a", "big": "LONG"}, 10)]
    out = resolve_scd2([ch("u", 20, v="b", big=None, unavailable={"big"})], lake)
    assert [v["big"] for v in sorted(out, key=lambda v: v["__lsn"])] == ["LONG", "LONG"]


def test_scd2_truncate_closes_current():
    lake = [version({"id": 1, "v": "a"}, 10)]
    out = resolve_scd2([ch("c", 30, v="new")], lake, [Truncate(25, 1, 250)])
    assert chain(out) == [("a", "c", 10, 25, False, ts(100), ts(250)), ("new", "c", 30, None, True, ts(300), None)]
    # a change from before a truncate that the lake already applied: a closed version
    out = resolve_scd2([ch("c", 5, v="late")], [], [Truncate(25, 1, 250)])
    assert chain(out) == [("late", "c", 5, 25, False, ts(50), ts(250))]


def test_scd2_held_back_changes_after_a_truncate():
    # the truncate at 25 closed the key's version; its update at 20, held back
    # for a key change, comes a batch later: the version ends at 20, the new one
    # at the truncate
    lake = [version({"id": 1, "v": "a"}, 10, end=25, end_pos=1)]
    out = resolve_scd2([ch("u", 20, v="b")], lake, [Truncate(25, 1, 250)])
    assert chain(out) == [("a", "c", 10, 20, False, ts(100), ts(200)), ("b", "u", 20, 25, False, ts(200), ts(250))]
    # nothing held back: the truncate closes it again, as it was
    out = resolve_scd2([ch("c", 30, v="new")], lake, [Truncate(25, 1, 250)])
    assert chain(out) == [("a", "c", 10, 25, False, ts(100), ts(250)), ("new", "c", 30, None, True, ts(300), None)]
    # a replay of the whole key changes nothing but that rewrite
    lake2 = [version({"id": 1, "v": "a"}, 10, end=20), version({"id": 1, "v": "b"}, 20, op="u", end=25, end_pos=1)]
    out = resolve_scd2([ch("c", 10, v="a"), ch("u", 20, v="b")], lake2, [Truncate(25, 1, 250)])
    assert chain(out) == [("b", "u", 20, 25, False, ts(200), ts(250))]


def test_key_change_toast_from_the_old_key():
    # UPDATE id 1 -> 2 leaving TOASTed big alone: the create carries the placeholder
    create = ch("c", 50, id=2, v="x", big=None, unavailable={"big"})
    existing = row({"id": 1, "v": "a", "big": "LONG"}, 10)
    update = ch("u", 20, v="x", big=None, unavailable={"big"})
    old = upsert_value_before([update, ch("d", 50)], existing, None, [], 50)
    assert old == {"id": 1, "v": "x", "big": "LONG"}
    filled = fill_key_change(create, old)
    assert filled.values == {"id": 2, "v": "x", "big": "LONG"} and not filled.unavailable
    _, values, _ = resolve_upsert([filled], None, None)
    assert values["big"] == "LONG"
    # SCD2: from the lake's version the delete closed (a replay), or the current one
    closed = version({"id": 1, "v": "a", "big": "LONG"}, 10, end=50, end_pos=0)
    assert scd2_value_before([ch("d", 50)], [closed], [], 50)["big"] == "LONG"
    current = version({"id": 1, "v": "a", "big": "LONG"}, 10)
    assert scd2_value_before([ch("u", 20, v="y"), ch("d", 50)], [current], [], 50)["v"] == "y"
    assert fill_key_change(create, None) is create


# ---------------------------------------------------------------- key changes across batches


def test_hold_back_nothing_when_both_halves_are_there():
    halves = [("t", 80, "d", (1,), 5), ("t", 80, "c", (2,), 5)]
    assert hold_back(halves, 5, 20) == (set(), [])


def test_hold_back_a_lone_half_and_its_key():
    # the delete of 1 -> 2 without its create; 3 -> 4 complete
    halves = [("t", 80, "d", (1,), 5), ("t", 96, "d", (3,), 5), ("t", 96, "c", (4,), 5)]
    assert hold_back(halves, 5, 20) == ({("t", (1,))}, [])
    # the create without its delete
    assert hold_back([("t", 80, "c", (2,), 5)], 5, 20) == ({("t", (2,))}, [])


def test_hold_back_keys_joined_by_key_changes():
    # 1 -> 2 complete, then 2 -> 3 whose create is on a partition not read yet:
    # 2's row comes from 1, so 1 waits with 2; 7 -> 8 of another table does not
    halves = [
        ("t", 80, "d", (1,), 5),
        ("t", 80, "c", (2,), 5),
        ("t", 88, "d", (2,), 5),
        ("u", 88, "d", (7,), 5),
        ("u", 88, "c", (8,), 5),
    ]
    held, alone = hold_back(halves, 5, 20)
    assert held == {("t", (1,)), ("t", (2,))} and alone == []


def test_hold_back_gives_up_after_the_wait():
    # read first in batch 3, still alone in batch 23: it goes on alone
    assert hold_back([("t", 80, "d", (1,), 3)], 22, 20) == ({("t", (1,))}, [])
    assert hold_back([("t", 80, "d", (1,), 3)], 23, 20) == (set(), [("t", 80)])
