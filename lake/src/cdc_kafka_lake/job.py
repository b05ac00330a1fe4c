"""The Structured Streaming job: cdc_kafka topics into Delta tables.

One query reads the topics (a list or a pattern) from Kafka; each
micro-batch (foreachBatch) is decoded on the executors (decode.py), grouped
by table and key with what the lake holds for those keys, resolved
(merge.py) and written with one Delta MERGE per table, then the table's
TRUNCATEs.  The checkpoint holds the Kafka offsets of the last batch
committed: a restart runs the unfinished batch again, which the per-key
watermarks make harmless.

Layout under --lake DIR:
  DIR/<schema>/<table>             the Delta table (UPSERT, SCD2 or append)
  DIR/_cdc_state/<schema>/<table>  its state: the LSN of each key's last delete
                                   (UPSERT) and the table's TRUNCATEs
  DIR/_checkpoints/<name>          the query's checkpoint (unless --checkpoint)
"""

from __future__ import annotations

import fnmatch
import json
import logging
import os
import time
from dataclasses import dataclass, field

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from . import decode, merge

log = logging.getLogger("cdc_kafka_lake")

MODES = ("upsert", "scd2", "append")

# records of held back keys (see merge.hold_back), by the batch that held them
HELD_SCHEMA = T.StructType(
    [
        T.StructField("batch", T.LongType(), False),
        T.StructField("k", T.StringType(), True),
        T.StructField("v", T.StringType(), True),
        T.StructField("moved", T.StringType(), True),
        T.StructField("since", T.LongType(), False),
    ]
)

STATE_SCHEMA_EXTRA = [
    T.StructField("__op", T.StringType(), False),
    T.StructField("__lsn", T.LongType(), False),
    T.StructField("__pos", T.LongType(), False),
    T.StructField("__ts", T.TimestampType(), True),
]


@dataclass
class Config:
    lake: str
    bootstrap: str = ""
    topics: list[str] = field(default_factory=list)
    pattern: str | None = None
    modes: list[tuple[str, str]] = field(default_factory=list)  # (glob on schema.table, mode)
    default_mode: str = "upsert"
    declared: dict = field(default_factory=dict)
    checkpoint: str | None = None
    starting_offsets: str = "earliest"
    trigger_seconds: float = 5.0
    available_now: bool = False
    max_offsets: int = 200_000
    key_change_wait: int = 20  # batches a key change's half waits for the other (merge.hold_back)
    query_name: str = "cdc_kafka_lake"
    kafka_options: dict = field(default_factory=dict)

    def mode_of(self, table: str) -> str:
        for pat, mode in self.modes:
            if fnmatch.fnmatchcase(table, pat):
                return mode
        return self.default_mode

    def table_path(self, table: str) -> str:
        schema, _, name = table.partition(".")
        return os.path.join(self.lake, schema, name)

    def state_path(self, table: str) -> str:
        schema, _, name = table.partition(".")
        return os.path.join(self.lake, "_cdc_state", schema, name)

    def checkpoint_path(self) -> str:
        return self.checkpoint or os.path.join(self.lake, "_checkpoints", self.query_name)


# ---------------------------------------------------------------- Delta helpers


def _quote(col: str) -> str:
    return "`" + col.replace("`", "``") + "`"


def _exists(spark: SparkSession, path: str) -> bool:
    from delta.tables import DeltaTable

    return DeltaTable.isDeltaTable(spark, path)


def _ensure_table(spark: SparkSession, path: str, schema: T.StructType) -> None:
    """Create the Delta table if it is not there; add the columns it lacks."""
    from delta.tables import DeltaTable

    if not _exists(spark, path):
        spark.createDataFrame([], schema).write.format("delta").mode("ignore").save(path)
        return
    have = {f.name for f in DeltaTable.forPath(spark, path).toDF().schema.fields}
    new = [f for f in schema.fields if f.name not in have]
    if new:
        cols = ", ".join(f"{_quote(f.name)} {f.dataType.simpleString()}" for f in new)
        spark.sql(f"ALTER TABLE delta.`{path}` ADD COLUMNS ({cols})")


def _key_condition(keycols: list[str], t: str = "t", s: str = "s") -> str:
    return " AND ".join(f"{t}.{_quote(c)} <=> {s}.{_quote(c)}" for c in keycols)


# ---------------------------------------------------------------- schemas


def columns_of(schema_texts: list[str], existing: T.StructType | None) -> T.StructType:
    """The table's data columns: the lake's, then those the records add, in order."""
    fields: dict[str, T.StructField] = {}
    if existing is not None:
        for f in existing.fields:
            if not f.name.startswith("__") and f.name not in merge.SCD2_META:
                fields[f.name] = f
    for text in schema_texts:
        for col, fs in decode.struct_columns(json.loads(text)):
            if col not in fields:
                fields[col] = T.StructField(col, decode.spark_type(fs), True)
    return T.StructType(list(fields.values()))


def meta_fields(mode: str) -> list[T.StructField]:
    if mode == "scd2":
        return [
            T.StructField("valid_from", T.TimestampType(), True),
            T.StructField("valid_to", T.TimestampType(), True),
            T.StructField("is_current", T.BooleanType(), True),
            T.StructField("__op", T.StringType(), True),
            T.StructField("__lsn", T.LongType(), True),
            T.StructField("__pos", T.LongType(), True),
            T.StructField("__end_lsn", T.LongType(), True),
            T.StructField("__end_pos", T.LongType(), True),
        ]
    return [
        T.StructField("__op", T.StringType(), True),
        T.StructField("__lsn", T.LongType(), True),
        T.StructField("__pos", T.LongType(), True),
        T.StructField("__ts", T.TimestampType(), True),
    ]


# ---------------------------------------------------------------- the batch


class BatchWriter:
    """foreachBatch: one micro-batch of Kafka records into the lake."""

    def __init__(self, config: Config):
        self.config = config
        self.decoder = decode.Decoder(config.declared)
        self.stats = {"batches": 0, "records": 0, "changes": 0}
        # the batch whose held back records are stored (-1: none; None: not known yet)
        self._held_batch: int | None = None
        self.held_keys = 0  # keys the last batch held back

    def __call__(self, df: DataFrame, batch_id: int) -> None:
        spark = df.sparkSession
        decoder = self.decoder
        raw = self._raw(spark, df, batch_id)

        def decode_partition(rows):
            for r in rows:
                c = decoder.decode(r.k, r.v)
                if c is not None:
                    c.moved, c.since = r.moved, r.since
                    yield c

        parsed = raw.rdd.mapPartitions(decode_partition).persist()
        try:
            tables, oldest, halves = self._tables(parsed)
            # appended tables take each record as it is: nothing to wait for
            halves = [h for h in halves if self.config.mode_of(h[0]) != "append"]
            held, alone = merge.hold_back(halves, batch_id, self.config.key_change_wait)
            for table, lsn in alone:
                log.warning(
                    "%s: the other half of the key change at LSN %s did not come in %d batches: applied alone "
                    "(a TOASTed column the UPDATE left alone is null)",
                    table,
                    _lsn_text(lsn),
                    self.config.key_change_wait,
                )
            now = parsed.filter(lambda c, h=held: (c.table, c.key) not in h) if held else parsed
            for table in sorted(tables):
                info = tables[table]
                mode = self.config.mode_of(table)
                self._table(spark, now, table, mode, info)
                self.stats["changes"] += info["n"]
            self._save_held(spark, raw, batch_id, held)
            self.stats["batches"] += 1
            # commit (source.ts_ms) to visible in Delta, for the batch's oldest change
            lag = "" if oldest is None else f", lag {time.time() * 1000 - oldest:.0f} ms"
            log.info(
                "batch %d: %s changes %s%s%s",
                batch_id,
                sum(t["n"] for t in tables.values()),
                {t: tables[t]["n"] for t in sorted(tables)},
                lag,
                f", {len(held)} keys held back for the other half of a key change" if held else "",
            )
        finally:
            parsed.unpersist()

    def _tables(self, parsed) -> tuple[dict, int | None, list]:
        """What the batch holds per table (row schemas, key columns, number of
        changes, LSNs of creates with placeholders), its oldest commit time,
        and its key-change halves (see merge.hold_back)."""
        tables: dict[str, dict] = {}
        oldest = None
        halves: list = []
        for (table, schema, keycols), (n, ts_min, toast, moved, lsn_min) in (
            parsed.map(lambda c: ((c.table, c.schema, c.keycols), (1, c.ts_ms, _toasted_create(c), _half(c), c.lsn)))
            .reduceByKey(lambda a, b: (a[0] + b[0], min(a[1], b[1]), a[2] | b[2], a[3] + b[3], min(a[4], b[4])))
            .collect()
        ):
            oldest = ts_min if oldest is None else min(oldest, ts_min)
            t = tables.setdefault(
                table, {"schemas": [], "keycols": (), "n": 0, "toast": frozenset(), "min_lsn": lsn_min}
            )
            t["toast"] |= toast
            t["min_lsn"] = min(t["min_lsn"], lsn_min)
            halves.extend(moved)
            if schema is not None:
                t["schemas"].append(schema)
            if keycols:
                t["keycols"] = keycols
            t["n"] += n
        return tables, oldest, halves

    # ------------------------------------------------------------ held back keys

    def _held_path(self) -> str:
        return os.path.join(self.config.checkpoint_path(), "cdc_kafka_held")

    def _raw(self, spark, df: DataFrame, batch_id: int) -> DataFrame:
        """The batch's records (key, value, key-change half, first batch), and
        those the batch before held back (merge.hold_back)."""
        if "headers" in df.columns:
            moved = F.expr(
                "CASE WHEN exists(headers, h -> h.key = '__debezium.newkey') THEN 'from' "
                "WHEN exists(headers, h -> h.key = '__debezium.oldkey') THEN 'to' END"
            )
        else:
            moved = F.lit(None).cast("string")
        raw = df.where(F.col("value").isNotNull()).select(
            F.col("key").cast("string").alias("k"),
            F.col("value").cast("string").alias("v"),
            moved.alias("moved"),
            F.lit(batch_id).cast("long").alias("since"),
        )
        # the held records of the batch before, if there may be some (a run
        # again of a batch reads what the batch before it held, not its own)
        if self._held_batch is not None and self._held_batch != batch_id - 1:
            return raw
        path = self._held_path()
        if not _exists(spark, path):
            self._held_batch = -1
            return raw
        held = spark.read.format("delta").load(path).where(F.col("batch") == batch_id - 1)
        return raw.unionByName(held.select("k", "v", "moved", "since"))

    def _save_held(self, spark, raw: DataFrame, batch_id: int, held: set) -> None:
        """Keep the records of the held back keys for the next batch."""
        self.held_keys = len(held)
        if not held:
            self._held_batch = -1
            return
        from delta.tables import DeltaTable

        decoder = self.decoder

        def held_records(rows):
            for r in rows:
                c = decoder.decode(r.k, r.v)
                if c is not None and (c.table, c.key) in held:
                    yield (batch_id, r.k, r.v, r.moved, r.since)

        path = self._held_path()
        if _exists(spark, path):
            DeltaTable.forPath(spark, path).delete(f"batch <= {batch_id - 2} OR batch >= {batch_id}")
        out = spark.createDataFrame(raw.rdd.mapPartitions(held_records), HELD_SCHEMA)
        out.write.format("delta").mode("append").save(path)
        self._held_batch = batch_id

    # ------------------------------------------------------------ per table

    def _table(self, spark, parsed, table: str, mode: str, info: dict) -> None:
        path = self.config.table_path(table)
        keycols = list(info["keycols"])
        existing_schema = None
        if _exists(spark, path):
            existing_schema = spark.read.format("delta").load(path).schema
            if not keycols:
                keycols = self._stored_keycols(spark, table)
        data = columns_of(info["schemas"], existing_schema)
        if not data.fields and existing_schema is None:
            # only truncates of a table the lake never saw
            return
        if mode != "append" and not keycols:
            raise RuntimeError(
                f"table {table} has no key (no primary key or unique index): it can only be "
                f"appended (--mode {table}=append)"
            )
        schema = T.StructType(data.fields + meta_fields(mode))
        _ensure_table(spark, path, schema)
        self._store_keycols(spark, table, keycols)
        changes = parsed.filter(lambda c, t=table: c.table == t)
        truncates = sorted(
            (merge.Truncate(c.lsn, c.pos, c.ts_ms) for c in changes.filter(lambda c: c.op == "t").collect()),
            key=merge.Truncate.order,
        )
        rows = changes.filter(lambda c: c.op != "t")
        self._toast_lsns = info["toast"]
        if mode == "append":
            self._append(spark, path, table, keycols, schema, rows, truncates)
        elif mode == "upsert":
            self._upsert(spark, path, table, keycols, schema, rows, truncates, info)
        else:
            self._scd2(spark, path, table, keycols, schema, rows, truncates, info)

    # the key's columns, kept with the state for batches holding only truncates
    def _stored_keycols(self, spark, table: str) -> list[str]:
        p = os.path.join(self.config.state_path(table), "_keycols.json")
        try:
            with open(p) as f:
                return json.load(f)
        except OSError:
            return []

    def _store_keycols(self, spark, table: str, keycols: list[str]) -> None:
        d = self.config.state_path(table)
        if "://" in d:
            return
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, "_keycols.json")
        if not os.path.exists(p):
            with open(p, "w") as f:
                json.dump(keycols, f)

    def _state(self, spark, table: str, keyschema: T.StructType) -> DataFrame:
        """The table's state (deletes, truncates): key columns + __op/__lsn/__pos/__ts."""
        path = self.config.state_path(table)
        schema = T.StructType([T.StructField(f.name, f.dataType, True) for f in keyschema.fields] + STATE_SCHEMA_EXTRA)
        _ensure_table(spark, path, schema)
        return spark.read.format("delta").load(path)

    def _state_truncates(self, state: DataFrame, since_lsn: int) -> list[merge.Truncate]:
        """The table's last TRUNCATE, and those at or after since_lsn (the
        batch's first change): a change held back for its key change
        (merge.hold_back) can come after them."""
        m = state.where("__op = 't'").agg(F.max("__lsn").alias("m")).collect()[0]["m"]
        if m is None:
            return []
        rows = state.where(f"__op = 't' AND __lsn >= {min(m, since_lsn)}").select("__lsn", "__pos", "__ts").collect()
        return [merge.Truncate(r["__lsn"], r["__pos"], int(r["__ts"].timestamp() * 1000)) for r in rows]

    def _all_truncates(self, state: DataFrame, info: dict, truncates: list) -> list[merge.Truncate]:
        known = {t.order() for t in truncates}
        stored = [t for t in self._state_truncates(state, info["min_lsn"]) if t.order() not in known]
        return sorted(stored + truncates, key=merge.Truncate.order)

    def _record_truncates(self, spark, table: str, keyschema: T.StructType, truncates) -> None:
        if not truncates:
            return
        rows = [tuple([None] * len(keyschema.fields)) + ("t", t.lsn, t.pos, merge.ts(t.ts_ms)) for t in truncates]
        schema = T.StructType([T.StructField(f.name, f.dataType, True) for f in keyschema.fields] + STATE_SCHEMA_EXTRA)
        from delta.tables import DeltaTable

        src = spark.createDataFrame(rows, schema)
        (
            DeltaTable.forPath(spark, self.config.state_path(table))
            .alias("t")
            .merge(src.alias("s"), "t.__op = 't' AND t.__lsn = s.__lsn AND t.__pos = s.__pos")
            .whenNotMatchedInsertAll()
            .execute()
        )

    def _keyed(self, rows, existing: DataFrame, keycols: list[str], tag: str, extract):
        """(key, (tag, x)) pairs of a DataFrame's rows, keyed as decode keys them."""
        kc = list(keycols)

        def pair(r):
            d = r.asDict(recursive=False)
            return (tuple(decode.key_value(_plain(d[c])) for c in kc), (tag, extract(d)))

        return existing.rdd.map(pair)

    def _fill_key_changes(self, rows, lake, before):
        """The creates of key changes with TOAST placeholders filled from the old
        key's row (see merge.fill_key_change); rows unchanged when there are none."""
        lsns = self._toast_lsns
        if not lsns:
            return rows
        olds = rows.filter(lambda c: c.op == "d" and c.lsn in lsns).map(lambda c: (c.key, c.lsn)).collect()
        if not olds:
            return rows
        want = {}
        for k, lsn in olds:
            want.setdefault(k, []).append(lsn)

        def values_before(kv):
            key, items = kv
            items = list(items)
            changes = [x for tag, x in items if tag == "C"]
            lake_items = [(tag, x) for tag, x in items if tag != "C"]
            return [(lsn, before(changes, lake_items, lsn)) for lsn in want[key]]

        # a key changed twice (a -> b -> c) hands its value on through b's create,
        # itself filled by the pass before: passes until nothing changes
        source = rows
        handoff: dict = {}
        for _ in range(8):
            new = dict(
                rows.filter(lambda c: c.key in want)
                .map(lambda c: (c.key, ("C", c)))
                .union(lake.filter(lambda kv: kv[0] in want))
                .groupByKey()
                .flatMap(values_before)
                .collect()
            )
            if repr(sorted(new.items())) == repr(sorted(handoff.items())):
                break
            handoff = new
            rows = source.map(
                lambda c, h=handoff: merge.fill_key_change(c, h.get(c.lsn)) if c.op == "c" else c
            ).persist()
        return rows

    def _keys_df(self, spark, rows, keyschema: T.StructType) -> DataFrame:
        # read twice (the lake's rows, its deletes): computed once
        return spark.createDataFrame(rows.map(lambda c: c.key).distinct(), keyschema).persist()

    def _batch_keys(self, spark, path, table, keycols, schema, rows, truncates, info):
        """What UPSERT and SCD2 start from: the key's schema, the table's state,
        every truncate that matters, the batch's keys, the join condition on
        them and the lake's rows of those keys."""
        keyschema = T.StructType([schema[c] for c in keycols])
        state = self._state(spark, table, keyschema)
        all_truncates = self._all_truncates(state, info, truncates)
        keys = self._keys_df(spark, rows, keyschema).alias("k")
        cond = F.expr(_key_condition(keycols, "t", "k"))
        existing = spark.read.format("delta").load(path).alias("t").join(keys, cond, "left_semi")
        return keyschema, state, all_truncates, keys, cond, existing

    def _upsert(self, spark, path, table, keycols, schema, rows, truncates, info) -> None:
        from delta.tables import DeltaTable

        keyschema, state, all_truncates, keys, cond, existing = self._batch_keys(
            spark, path, table, keycols, schema, rows, truncates, info
        )
        deleted = (
            state.alias("t")
            .where("__op = 'd'")
            .join(keys, cond, "left_semi")
            .groupBy(*keycols)
            .agg(F.max(F.struct("__lsn", "__pos")).alias("m"))
        )
        lake = self._keyed(rows, existing, keycols, "E", lambda d: d).union(
            self._keyed(rows, deleted, keycols, "D", lambda d: (d["m"]["__lsn"], d["m"]["__pos"]))
        )

        def before(changes, items, lsn):
            e = next((x for tag, x in items if tag == "E"), None)
            d = next((x for tag, x in items if tag == "D"), None)
            return merge.upsert_value_before(changes, e, d, all_truncates, lsn)

        rows = self._fill_key_changes(rows, lake, before)
        pairs = rows.map(lambda c: (c.key, ("C", c))).union(lake)
        columns = schema.fieldNames()

        def resolve(kv):
            key, items = kv
            changes, existing_row, deleted_at = [], None, None
            for tag, x in items:
                if tag == "C":
                    changes.append(x)
                elif tag == "E":
                    existing_row = x
                else:
                    deleted_at = x
            if not changes:
                return []
            res = merge.resolve_upsert(changes, existing_row, deleted_at, all_truncates)
            if res is None:
                return []
            _, values, meta = res
            row = dict(zip(keycols, key, strict=True)) if values is None else dict(values)
            row.update(meta)
            return [merge.row_tuple(row, columns)]

        out = spark.createDataFrame(pairs.groupByKey().flatMap(resolve), schema, verifySchema=False)
        out = out.persist()
        try:
            out.count()  # resolved against the lake as it is now, before the MERGE changes it
            keys.unpersist()
            set_cols = {_quote(c): f"s.{_quote(c)}" for c in columns}
            (
                DeltaTable.forPath(spark, path)
                .alias("t")
                .merge(out.alias("s"), _key_condition(keycols))
                .whenMatchedDelete("s.__op = 'd'")
                .whenMatchedUpdate(set=set_cols)
                .whenNotMatchedInsert("s.__op <> 'd'", values=set_cols)
                .execute()
            )
            dels = out.where("__op = 'd'").select(*[_quote(c) for c in keycols], "__op", "__lsn", "__pos", "__ts")
            if not dels.isEmpty():
                (
                    DeltaTable.forPath(spark, self.config.state_path(table))
                    .alias("t")
                    .merge(dels.alias("s"), "t.__op = 'd' AND " + _key_condition(keycols))
                    .whenMatchedUpdate(
                        "s.__lsn > t.__lsn OR (s.__lsn = t.__lsn AND s.__pos > t.__pos)",
                        set={"__lsn": "s.__lsn", "__pos": "s.__pos", "__ts": "s.__ts"},
                    )
                    .whenNotMatchedInsertAll()
                    .execute()
                )
        finally:
            out.unpersist()
        for t in truncates:
            DeltaTable.forPath(spark, path).delete(f"__lsn < {t.lsn} OR (__lsn = {t.lsn} AND __pos < {t.pos})")
        self._record_truncates(spark, table, keyschema, truncates)

    def _scd2(self, spark, path, table, keycols, schema, rows, truncates, info) -> None:
        from delta.tables import DeltaTable

        keyschema, _, all_truncates, keys, _, existing = self._batch_keys(
            spark, path, table, keycols, schema, rows, truncates, info
        )
        lake = self._keyed(rows, existing, keycols, "V", lambda d: d)

        def before(changes, items, lsn):
            return merge.scd2_value_before(changes, [x for _, x in items], all_truncates, lsn)

        rows = self._fill_key_changes(rows, lake, before)
        pairs = rows.map(lambda c: (c.key, ("C", c))).union(lake)
        columns = schema.fieldNames()

        def resolve(kv):
            _, items = kv
            changes = [x for tag, x in items if tag == "C"]
            if not changes:
                return []
            versions = [x for tag, x in items if tag == "V"]
            return [merge.row_tuple(v, columns) for v in merge.resolve_scd2(changes, versions, all_truncates)]

        out = spark.createDataFrame(pairs.groupByKey().flatMap(resolve), schema, verifySchema=False)
        out = out.persist()
        try:
            out.count()
            keys.unpersist()
            closing = ["valid_to", "is_current", "__end_lsn", "__end_pos"]
            (
                DeltaTable.forPath(spark, path)
                .alias("t")
                .merge(out.alias("s"), _key_condition(keycols) + " AND t.__lsn = s.__lsn AND t.__pos = s.__pos")
                .whenMatchedUpdate(set={c: f"s.{c}" for c in closing})
                .whenNotMatchedInsert(values={_quote(c): f"s.{_quote(c)}" for c in columns})
                .execute()
            )
        finally:
            out.unpersist()
        for t in truncates:
            DeltaTable.forPath(spark, path).update(
                f"is_current AND (__lsn < {t.lsn} OR (__lsn = {t.lsn} AND __pos < {t.pos}))",
                {
                    "valid_to": F.lit(merge.ts(t.ts_ms)),
                    "is_current": F.lit(False),
                    "__end_lsn": F.lit(t.lsn),
                    "__end_pos": F.lit(t.pos),
                },
            )
        self._record_truncates(spark, table, keyschema, truncates)

    def _append(self, spark, path, table, keycols, schema, rows, truncates) -> None:
        from delta.tables import DeltaTable

        columns = schema.fieldNames()
        out = spark.createDataFrame(
            rows.map(lambda c: merge.row_tuple(merge.append_row(c), columns)), schema, verifySchema=False
        )
        dedup = list(keycols) + ["__lsn", "__pos", "__op"]
        out = out.dropDuplicates(dedup)
        cond = " AND ".join(
            [f"t.{_quote(c)} <=> s.{_quote(c)}" for c in keycols]
            + ["t.__lsn = s.__lsn", "t.__pos = s.__pos", "t.__op = s.__op"]
        )
        DeltaTable.forPath(spark, path).alias("t").merge(out.alias("s"), cond).whenNotMatchedInsertAll().execute()
        if truncates:
            trows = [
                merge.row_tuple({"__op": "t", "__lsn": t.lsn, "__pos": t.pos, "__ts": merge.ts(t.ts_ms)}, columns)
                for t in truncates
            ]
            src = spark.createDataFrame(trows, schema)
            (
                DeltaTable.forPath(spark, path)
                .alias("t")
                .merge(src.alias("s"), "t.__op = 't' AND t.__lsn = s.__lsn AND t.__pos = s.__pos")
                .whenNotMatchedInsertAll()
                .execute()
            )


def _toasted_create(c) -> frozenset:
    """{lsn} for a create carrying TOAST placeholders (a key change's), else {}."""
    return frozenset((c.lsn,)) if c.op == "c" and c.unavailable else frozenset()


def _half(c) -> list:
    """[(table, lsn, op, key, since)] for a key change's delete or create, else []."""
    return [(c.table, c.lsn, c.op, c.key, c.since)] if c.moved else []


def _lsn_text(lsn: int) -> str:
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


def _plain(v):
    """A value read from Spark as the decoder makes it (Rows of structs as tuples)."""
    if isinstance(v, T.Row):
        return tuple(_plain(x) for x in v)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


# ---------------------------------------------------------------- the query


def kafka_topics(spark: SparkSession, bootstrap: str, timeout_ms: int = 15000) -> list[str]:
    """The broker's topics, through the Kafka client on Spark's class path."""
    jvm = spark.sparkContext._jvm
    props = jvm.java.util.Properties()
    props.put("bootstrap.servers", bootstrap)
    props.put("request.timeout.ms", str(timeout_ms))
    props.put("default.api.timeout.ms", str(timeout_ms))
    admin = jvm.org.apache.kafka.clients.admin.Admin.create(props)
    try:
        names = admin.listTopics().names().get()
        return sorted(str(n) for n in names)
    finally:
        admin.close()


def check_topics(spark: SparkSession, config: Config, wait_seconds: float = 0) -> list[str]:
    """The topics the job will read; a clear error when there are none."""
    import re
    import time

    deadline = time.time() + wait_seconds
    while True:
        try:
            have = kafka_topics(spark, config.bootstrap)
        except Exception as e:  # py4j wraps the Kafka client's exceptions
            raise SystemExit(f"cdc-kafka-lake: cannot list the topics of {config.bootstrap}: {e}") from None
        if config.pattern:
            found = [t for t in have if re.fullmatch(config.pattern, t)]
        else:
            found = [t for t in config.topics if t in have]
        missing = [] if config.pattern else [t for t in config.topics if t not in have]
        if found and not missing:
            return found
        if time.time() >= deadline:
            want = f"pattern {config.pattern!r}" if config.pattern else ", ".join(missing)
            raise SystemExit(
                f"cdc-kafka-lake: no such topic on {config.bootstrap}: {want}\n"
                "  cdc_kafka creates a table's topic with its first change (or snapshot); check that the "
                "worker streams (SELECT * FROM cdc_kafka.status), the topic prefix, and the names "
                f"(topics there: {', '.join(t for t in have if not t.startswith('__')) or 'none'})"
            )
        time.sleep(1)


def start(spark: SparkSession, config: Config, writer: BatchWriter | None = None):
    """Start the streaming query; returns it (awaitTermination is the caller's).
    A new writer for every start: a restart runs the unfinished batch again."""
    reader = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", config.bootstrap)
        .option("startingOffsets", config.starting_offsets)
        .option("maxOffsetsPerTrigger", str(config.max_offsets))
        .option("failOnDataLoss", "true")
        .option("includeHeaders", "true")
    )
    if config.pattern:
        reader = reader.option("subscribePattern", config.pattern)
    else:
        reader = reader.option("subscribe", ",".join(config.topics))
    for k, v in config.kafka_options.items():
        reader = reader.option(k, v)
    writer = (
        reader.load()
        .writeStream.queryName(config.query_name)
        .foreachBatch(writer or BatchWriter(config))
        .option("checkpointLocation", config.checkpoint_path())
    )
    if config.available_now:
        writer = writer.trigger(availableNow=True)
    else:
        writer = writer.trigger(processingTime=f"{config.trigger_seconds} seconds")
    return writer.start()
