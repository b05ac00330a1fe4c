"""cdc_kafka's topics into Delta Lake: UPSERT copies and SCD type 2 history
of PostgreSQL tables, with Spark Structured Streaming (see lake/README.md)."""

__version__ = "0.1.0"
