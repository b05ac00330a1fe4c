"""cdc-kafka-lake: the command line.

  cdc-kafka-lake run --bootstrap-servers B (--topics T,... | --topic-pattern RE) --lake DIR
                     [--mode schema.table=upsert|scd2|append ...] [--default-mode upsert]
                     [--schemas FILE] [--available-now] ...
  cdc-kafka-lake query --lake DIR "SQL"     (each lake table is a view named after its table)

Run locally it starts Spark itself (local[*] unless --master); under
spark-submit it takes the session spark-submit made (master, packages).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time

from . import job

PACKAGES = "org.apache.spark:spark-sql-kafka-0-10_2.13:{spark},io.delta:delta-spark_{minor}_2.13:{delta}"
DELTA_VERSION = "4.1.0"


def _under_spark_submit() -> bool:
    # spark-submit's PythonRunner hands the Python side its JVM through these
    return "PYSPARK_GATEWAY_PORT" in os.environ


def spark_session(master: str | None, jars_dir: str | None, confs: list[str], app: str = "cdc-kafka-lake"):
    """The Spark session: Delta's extension and catalog, UTC, small shuffles."""
    # Spark's Python side turns timestamps into naive datetimes in the local
    # zone: the job runs in UTC, its Python workers too
    os.environ["TZ"] = "UTC"
    time.tzset()
    # the executors' Python workers: this interpreter (its pyspark, its version)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import pyspark
    from pyspark.sql import SparkSession

    b = SparkSession.builder.appName(app)
    if not _under_spark_submit():
        b = b.master(master or "local[*]")
        jars_dir = jars_dir or os.environ.get("LAKE_JARS")
        if jars_dir:
            jars = sorted(os.path.join(jars_dir, j) for j in os.listdir(jars_dir) if j.endswith(".jar"))
            if not jars:
                raise SystemExit(f"cdc-kafka-lake: no jars in {jars_dir} (run lake/install.sh)")
            b = b.config("spark.jars", ",".join(jars))
        else:
            minor = ".".join(pyspark.__version__.split(".")[:2])
            b = b.config(
                "spark.jars.packages",
                PACKAGES.format(spark=pyspark.__version__, minor=minor, delta=DELTA_VERSION),
            )
        b = b.config("spark.driver.memory", os.environ.get("LAKE_DRIVER_MEMORY", "1g"))
    b = (
        b.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.executorEnv.TZ", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.databricks.delta.snapshotPartitions", "2")
    )
    for kv in confs:
        k, _, v = kv.partition("=")
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel(os.environ.get("LAKE_SPARK_LOG_LEVEL", "WARN"))
    ship_package(spark)
    return spark


def ship_package(spark) -> None:
    """Send this package to the executors' Python workers (a zip of it, as
    --py-files would), so that the job needs no install on a cluster's nodes."""
    import atexit
    import shutil
    import tempfile
    import zipfile

    here = os.path.dirname(os.path.abspath(__file__))
    # executors fetch it when their first task starts: kept until exit
    tmp = tempfile.mkdtemp(prefix="cdc_kafka_lake-")
    atexit.register(shutil.rmtree, tmp, True)
    path = os.path.join(tmp, "cdc_kafka_lake.zip")
    with zipfile.ZipFile(path, "w") as z:
        for name in sorted(os.listdir(here)):
            if name.endswith(".py"):
                z.write(os.path.join(here, name), f"cdc_kafka_lake/{name}")
    spark.sparkContext.addPyFile(path)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cdc-kafka-lake", description="cdc_kafka topics into Delta Lake tables")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="stream the topics into the lake")
    r.add_argument("--bootstrap-servers", required=True)
    g = r.add_mutually_exclusive_group(required=True)
    g.add_argument("--topics", help="comma-separated topic names")
    g.add_argument("--topic-pattern", help="a Java regular expression on topic names")
    r.add_argument("--lake", required=True, help="directory (or URI) of the Delta tables")
    r.add_argument(
        "--mode",
        action="append",
        default=[],
        metavar="TABLE=MODE",
        help="upsert, scd2 or append for the tables matching TABLE (schema.table, * and ? allowed); first match wins",
    )
    r.add_argument("--default-mode", default="upsert", choices=job.MODES)
    r.add_argument("--schemas", help="JSON file of declared schemas, for records without schemas")
    r.add_argument("--checkpoint", help="checkpoint directory (default LAKE/_checkpoints/NAME)")
    r.add_argument("--name", default="cdc_kafka_lake", help="the query's name")
    r.add_argument("--starting-offsets", default="earliest", help="earliest, latest or Spark's JSON form")
    r.add_argument("--trigger-seconds", type=float, default=5.0)
    r.add_argument("--available-now", action="store_true", help="process what the topics hold, then stop")
    r.add_argument("--max-offsets-per-trigger", type=int, default=200_000)
    r.add_argument(
        "--key-change-wait",
        type=int,
        default=20,
        metavar="BATCHES",
        help="batches the delete or create of a key change waits for the other (on another partition)",
    )
    r.add_argument("--wait-for-topics", type=float, default=0, metavar="SECONDS")
    r.add_argument(
        "--kafka-option", action="append", default=[], metavar="K=V", help="an option of Spark's Kafka source"
    )
    _spark_args(r)

    q = sub.add_parser("query", help="run SQL on the lake's tables")
    q.add_argument("--lake", required=True)
    q.add_argument("--rows", type=int, default=50)
    q.add_argument("sql", nargs="+")
    _spark_args(q)
    return p


def _spark_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--master", help="Spark master (default local[*]; spark-submit's own when under it)")
    p.add_argument("--jars-dir", help="jars of the Kafka source and Delta (default $LAKE_JARS, else --packages)")
    p.add_argument("--conf", action="append", default=[], metavar="K=V", help="a Spark setting")


def _config(a) -> job.Config:
    modes = []
    for m in a.mode:
        pat, _, mode = m.partition("=")
        if mode not in job.MODES:
            raise SystemExit(f"cdc-kafka-lake: --mode {m}: the mode is one of {', '.join(job.MODES)}")
        modes.append((pat, mode))
    declared = {}
    if a.schemas:
        with open(a.schemas) as f:
            declared = json.load(f)
    kopts = {}
    for kv in a.kafka_option:
        k, _, v = kv.partition("=")
        kopts[k] = v
    return job.Config(
        lake=a.lake,
        bootstrap=a.bootstrap_servers,
        topics=[t for t in (a.topics or "").split(",") if t],
        pattern=a.topic_pattern,
        modes=modes,
        default_mode=a.default_mode,
        declared=declared,
        checkpoint=a.checkpoint,
        starting_offsets=a.starting_offsets,
        trigger_seconds=a.trigger_seconds,
        available_now=a.available_now,
        max_offsets=a.max_offsets_per_trigger,
        key_change_wait=a.key_change_wait,
        query_name=a.name,
        kafka_options=kopts,
    )


def cmd_run(a) -> int:
    config = _config(a)
    spark = spark_session(a.master, a.jars_dir, a.conf)
    topics = job.check_topics(spark, config, a.wait_for_topics)
    logging.getLogger("cdc_kafka_lake").info("reading %s into %s", ", ".join(topics), config.lake)
    for attempt in range(4):
        writer = job.BatchWriter(config)
        q = job.start(spark, config, writer)
        try:
            q.awaitTermination()
            if writer.held_keys:
                logging.getLogger("cdc_kafka_lake").warning(
                    "%d keys wait for the other half of a key change, not in the topics yet: the next run applies them",
                    writer.held_keys,
                )
            return 0
        except KeyboardInterrupt:
            q.stop()
            return 0
        except Exception as e:
            # Spark 4.1's Kafka source fails reporting the progress of the batch
            # that a stopped run had planned (its offsets logged, its commit
            # not): the batch ran and is committed, a new start goes on
            if SPARK_KAFKA_METRICS_BUG not in str(e) or attempt == 3:
                raise
            logging.getLogger("cdc_kafka_lake").warning(
                "the Kafka source failed after re-running the batch a stopped run left (a Spark bug): starting again"
            )
    return 0


SPARK_KAFKA_METRICS_BUG = 'because the return value of "scala.Option.get()" is null'


def lake_tables(lake: str) -> list[tuple[str, str]]:
    """(schema.table, path) of the Delta tables under a lake directory."""
    out = []
    if not os.path.isdir(lake):
        return out
    for schema in sorted(os.listdir(lake)):
        if schema.startswith("_"):
            continue
        d = os.path.join(lake, schema)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if os.path.isdir(os.path.join(d, name, "_delta_log")):
                out.append((f"{schema}.{name}", os.path.join(d, name)))
    return out


def cmd_query(a) -> int:
    spark = spark_session(a.master, a.jars_dir, a.conf)
    tables = lake_tables(a.lake)
    names = [t.split(".", 1)[1] for t, _ in tables]
    for (table, path), name in zip(tables, names, strict=True):
        view = name if names.count(name) == 1 else table.replace(".", "_")
        spark.read.format("delta").load(path).createOrReplaceTempView(view)
    for sql in a.sql:
        print(f"-- {sql}")
        spark.sql(sql).show(a.rows, truncate=False)
    return 0


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=os.environ.get("LAKE_LOG_LEVEL", "INFO"), format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("py4j").setLevel(logging.WARNING)
    a = _parser().parse_args(argv)
    if a.command == "run":
        return cmd_run(a)
    return cmd_query(a)


if __name__ == "__main__":
    sys.exit(main())
