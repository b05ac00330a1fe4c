-- cdc_kafka.snapshot(), cancel_snapshot() and the snapshot queue: the
-- checks a request passes before the worker ever sees it.  (The worker is
-- not preloaded here; the TAP suite 008_snapshots runs the snapshots.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS cdc_kafka;
RESET client_min_messages;

CREATE TABLE snap_items (id int PRIMARY KEY, region text, qty int);
CREATE TABLE snap_pairs (a int, b int, note text, PRIMARY KEY (a, b));
CREATE TABLE snap_nokey (id int, v text);
CREATE TABLE snap_nullable_unique (id int UNIQUE, v text);
CREATE TABLE snap_other (id int PRIMARY KEY);
CREATE VIEW snap_view AS SELECT * FROM snap_items;
CREATE PUBLICATION cdc_kafka FOR TABLE snap_items, snap_pairs, snap_nokey, snap_nullable_unique;

-- requests are queued, one per table, in order
SELECT cdc_kafka.snapshot('snap_items') AS first_id \gset
SELECT count(*) FROM cdc_kafka.snapshot('snap_items', 'snap_pairs', 'snap_items');
SELECT count(*) FROM cdc_kafka.snapshot(VARIADIC ARRAY['snap_items', 'snap_pairs']::regclass[]);
-- the tables are checked, not kept locked until commit
BEGIN;
SELECT count(*) FROM cdc_kafka.snapshot('snap_items', 'snap_pairs', 'snap_items');
SELECT count(*) AS locks_kept FROM pg_locks
  WHERE pid = pg_backend_pid() AND relation IN ('snap_items'::regclass, 'snap_pairs'::regclass);
ROLLBACK;
-- two arguments are a table and a filter: a table's name is refused
SELECT cdc_kafka.snapshot('snap_items', 'snap_pairs');
SELECT cdc_kafka.snapshot('snap_items', $$region = 'EU' AND qty > 10$$) > :first_id AS later_id;
SELECT table_name, kind, state, filter, requested_by, rows_sent, last_key
  FROM cdc_kafka.snapshots ORDER BY id;

-- bad input: nothing is queued
SELECT cdc_kafka.snapshot('snap_missing');
SELECT cdc_kafka.snapshot('snap_other');
SELECT cdc_kafka.snapshot('snap_nokey');
SELECT cdc_kafka.snapshot('snap_nullable_unique');
SELECT cdc_kafka.snapshot('snap_view');
SELECT cdc_kafka.snapshot('snap_items', 'region = ');
SELECT cdc_kafka.snapshot('snap_items', 'colour = 1');
SELECT cdc_kafka.snapshot('snap_items', 'qty + 1');
SELECT cdc_kafka.snapshot('snap_items', 'true) UNION SELECT 1 FROM pg_authid WHERE (true');
SELECT cdc_kafka.snapshot('snap_items', 'true FROM pg_authid');
SELECT cdc_kafka.snapshot('snap_items', 'qty > 1; DROP TABLE snap_items');
SELECT cdc_kafka.snapshot('snap_items', 'qty > (SELECT max(qty) FROM snap_items)') > 0 AS subquery_ok;
SELECT cdc_kafka.snapshot(VARIADIC ARRAY['snap_items', 'snap_nokey']::regclass[]);
SELECT count(*) AS queued FROM cdc_kafka.snapshots;

-- cancel: pending ones only, once
SELECT cdc_kafka.cancel_snapshot(:first_id);
SELECT cdc_kafka.cancel_snapshot(:first_id);
SELECT cdc_kafka.cancel_snapshot(-1);
SELECT state, finished_at IS NOT NULL AS finished FROM cdc_kafka.snapshots WHERE id = :first_id;
SELECT table_name, state, percent FROM cdc_kafka.snapshot_progress ORDER BY id LIMIT 2;

-- a role needs cdc_kafka_admin and SELECT on the table (it is read as
-- that role); EXECUTE alone is not enough
CREATE ROLE snap_outsider;
GRANT USAGE ON SCHEMA cdc_kafka TO snap_outsider;
GRANT EXECUTE ON FUNCTION cdc_kafka.snapshot(regclass[]), cdc_kafka.cancel_snapshot(bigint)
	TO snap_outsider;
GRANT SELECT ON snap_items TO snap_outsider;
SET ROLE snap_outsider;
SELECT cdc_kafka.snapshot('snap_items');
SELECT cdc_kafka.cancel_snapshot(1);
RESET ROLE;
CREATE ROLE snap_reader IN ROLE cdc_kafka_admin;
SET ROLE snap_reader;
SELECT cdc_kafka.snapshot('snap_items');
RESET ROLE;
GRANT SELECT ON snap_items TO snap_reader;
SET ROLE snap_reader;
SELECT count(*) FROM cdc_kafka.snapshot('snap_items');
SELECT count(*) FROM cdc_kafka.snapshots;
SELECT count(*) FROM cdc_kafka.snapshot_progress;
RESET ROLE;
SELECT requested_by FROM cdc_kafka.snapshots ORDER BY id DESC LIMIT 1;
SELECT count(*) FROM cdc_kafka.snapshots;
-- pg_monitor reads the progress, not the queue itself, and asks for nothing
CREATE ROLE snap_monitor IN ROLE pg_monitor;
SET ROLE snap_monitor;
SELECT count(*) FROM cdc_kafka.snapshot_progress;
SELECT count(*) FROM cdc_kafka.snapshots;
SELECT cdc_kafka.snapshot('snap_items');
RESET ROLE;

DELETE FROM cdc_kafka.snapshots;
REVOKE ALL ON snap_items FROM snap_reader, snap_outsider;
REVOKE ALL ON FUNCTION cdc_kafka.snapshot(regclass[]), cdc_kafka.cancel_snapshot(bigint)
	FROM snap_outsider;
REVOKE ALL ON SCHEMA cdc_kafka FROM snap_outsider;
DROP ROLE snap_reader, snap_outsider, snap_monitor;
DROP PUBLICATION cdc_kafka;
DROP VIEW snap_view;
DROP TABLE snap_items, snap_pairs, snap_nokey, snap_nullable_unique, snap_other;
