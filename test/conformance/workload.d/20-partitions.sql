-- ------------------------------------------------------------------ partitioned tables
-- (setup.d/20-partitions.sql; captured as partitions, and as roots by profile "partroot")

INSERT INTO part_orders VALUES (1, 'eu', 10, 'a'), (150, 'eu', 20, 'b'), (2, 'us', 30, 'c'),
    (3, 'ap', 40, 'd'), (4, 'xx', 50, 'e'), (1001, 'us', 60, 'outside the root''s row filter');
INSERT INTO part_orders (id, region) VALUES (5, 'eu');
UPDATE part_orders SET region = 'us' WHERE id = 1;          -- moves: eu_low -> us
UPDATE part_orders SET id = 120 WHERE id = 5;               -- moves: eu_low -> eu_high
UPDATE part_orders SET amount = 31, note = 'c2' WHERE id = 2;   -- in the reordered partition
UPDATE part_orders SET note = 'c3' WHERE id = 2;            -- only a column the list leaves out
UPDATE part_orders SET amount = 41 WHERE id = 3;            -- in the one with a dropped column
UPDATE part_orders SET id = 8 WHERE id = 3;                 -- key change within a partition
UPDATE part_orders SET id = 1003 WHERE id = 4;              -- leaves the root's row filter
UPDATE part_orders SET id = 6 WHERE id = 1001;              -- enters it
DELETE FROM part_orders WHERE id = 150;

INSERT INTO part_events VALUES (1, 'x', 'one'), (101, 'y', 'two');
UPDATE part_events SET body = 'two again' WHERE id = 101;   -- full before image, reordered
UPDATE part_events SET id = 102 WHERE id = 1;               -- moves: part_events_1 -> _2
DELETE FROM part_events WHERE id = 101;
BEGIN;
INSERT INTO part_events VALUES (50, 'z', 'three');
TRUNCATE part_events_2;                                     -- one partition
COMMIT;
TRUNCATE part_orders;                                       -- the root
INSERT INTO part_orders VALUES (7, 'ap', 70, 'after the truncate');

-- DDL while streaming: a column added to the root (so to every partition), a partition
-- detached (a table of its own, which the root's publication no longer has) and attached again
ALTER TABLE part_events ADD COLUMN extra integer DEFAULT 7;
INSERT INTO part_events VALUES (60, 'w', 'four', DEFAULT), (160, 'v', 'five', 8);
UPDATE part_events SET extra = 9 WHERE id = 160;
ALTER TABLE part_events DETACH PARTITION part_events_2;
INSERT INTO part_events_2 (id, kind, body) VALUES (170, 'u', 'detached');
ALTER TABLE part_events ATTACH PARTITION part_events_2 FOR VALUES FROM (100) TO (200);
INSERT INTO part_events VALUES (180, 't', 'attached again');
