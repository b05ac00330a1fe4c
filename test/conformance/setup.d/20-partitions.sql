-- ------------------------------------------------------------------ partitioned tables
--
-- The FOR ALL TABLES / IN SCHEMA publications capture these as their partitions (leaf topics,
-- each leaf's own column order); dbz_partroot (profile "partroot") publishes them
-- WITH (publish_via_partition_root = true): every partition's changes as the root's, with the
-- root's row filter and column list, and a TRUNCATE of the root as one event.

-- list-partitioned: a sub-partitioned partition, a partition whose columns are ordered
-- differently, one with a dropped column (both attached), a default partition
CREATE TABLE part_orders (
    id      integer,
    region  text,
    amount  integer DEFAULT 0,
    note    text,
    PRIMARY KEY (region, id)
) PARTITION BY LIST (region);
CREATE TABLE part_orders_eu PARTITION OF part_orders FOR VALUES IN ('eu')
    PARTITION BY RANGE (id);
CREATE TABLE part_orders_eu_low PARTITION OF part_orders_eu FOR VALUES FROM (MINVALUE) TO (100);
CREATE TABLE part_orders_eu_high PARTITION OF part_orders_eu FOR VALUES FROM (100) TO (MAXVALUE);
CREATE TABLE part_orders_us (
    note    text,
    amount  integer DEFAULT 0,
    region  text NOT NULL,
    id      integer NOT NULL
);
ALTER TABLE part_orders ATTACH PARTITION part_orders_us FOR VALUES IN ('us');
CREATE TABLE part_orders_ap (
    id      integer NOT NULL,
    junk    text,
    region  text NOT NULL,
    amount  integer DEFAULT 0,
    note    text
);
ALTER TABLE part_orders_ap DROP COLUMN junk;
ALTER TABLE part_orders ATTACH PARTITION part_orders_ap FOR VALUES IN ('ap');
CREATE TABLE part_orders_other PARTITION OF part_orders DEFAULT;

-- range-partitioned, REPLICA IDENTITY FULL (before images converted to the root's layout),
-- one partition reordered and with a dropped column
CREATE TABLE part_events (
    id      bigint PRIMARY KEY,
    kind    text NOT NULL,
    body    text
) PARTITION BY RANGE (id);
CREATE TABLE part_events_1 PARTITION OF part_events FOR VALUES FROM (0) TO (100);
CREATE TABLE part_events_2 (
    body    text,
    dropme  integer,
    kind    text NOT NULL,
    id      bigint NOT NULL
);
ALTER TABLE part_events_2 DROP COLUMN dropme;
ALTER TABLE part_events ATTACH PARTITION part_events_2 FOR VALUES FROM (100) TO (200);
ALTER TABLE part_events_1 REPLICA IDENTITY FULL;
ALTER TABLE part_events_2 REPLICA IDENTITY FULL;

-- profile "partroot"
CREATE PUBLICATION dbz_partroot
    FOR TABLE part_orders (id, region, amount) WHERE (id < 1000), part_events
    WITH (publish_via_partition_root = true);
