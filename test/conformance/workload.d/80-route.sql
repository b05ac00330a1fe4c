-- 80-route.sql: changes of the tables of setup.d/80-route.sql.  The same keys in route_a and
-- route_b (told apart by the added key field), a primary key change (delete, tombstone and
-- create, with the __debezium.oldkey/newkey headers, which the router leaves alone).

\set ON_ERROR_STOP 1

INSERT INTO route_a VALUES (1, 'a-one'), (2, 'a-two');
INSERT INTO route_b VALUES (1, 'b-one', 5), (2, 'b-two', DEFAULT);
UPDATE route_a SET name = 'a-uno' WHERE id = 1;
UPDATE route_b SET id = 3 WHERE id = 2;
DELETE FROM route_a WHERE id = 2;
DELETE FROM route_b WHERE id = 1;
INSERT INTO route_nopk VALUES (1, 'x');
UPDATE route_nopk SET val = 'y' WHERE id = 1;
