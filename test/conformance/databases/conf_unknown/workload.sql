-- conf_unknown: changes of every unknown-type column, nulls, defaults and deletes.
SET client_encoding = 'UTF8';

INSERT INTO shapes VALUES
    (1, '(3,4),(1,2)', '<(1,2),3>', '{1,-1,0}', '[(0,0),(1.5,2.25)]', '[(0,0),(1,1),(2,0)]',
     '((0,0),(0,1),(1,1),(1,0))', '(10,10),(0.5,0.25)', '(2,2),(1e8,-1e-4)'),
    (2, NULL, NULL, NULL, NULL, '((0,0),(3,3),(6,0))', NULL, NULL, DEFAULT);
UPDATE shapes SET bx = '(-1.125,100000000),(0,0)', ci = '<(0,0),0.001>' WHERE id = 2;
DELETE FROM shapes WHERE id = 1;

INSERT INTO others VALUES
    (1, 'fat & (rat | café)', '16/B374D848', '10:20:10,14,15', ROW(1, 'é "q"'), 'elsewhere.target', 'x', 'a_name', 'c'),
    (2, NULL, NULL, NULL, NULL, NULL, DEFAULT, NULL, NULL);
UPDATE others SET tq = '!a <-> b:*', pr = ROW(NULL, NULL) WHERE id = 2;
DELETE FROM others WHERE id = 1;

INSERT INTO unknown_arrays VALUES
    (1, ARRAY['(1,1),(0,0)'::box, '(3,3),(2,2)'], ARRAY['a & b'::tsquery, 'c'], ARRAY[1, 2, 3]::posint[]),
    (2, '{}', NULL, '{}');
UPDATE unknown_arrays SET tqs = ARRAY['z'::tsquery] WHERE id = 2;
-- a null in these required-items arrays: Debezium writes null for the whole array
UPDATE unknown_arrays SET bxs = ARRAY[NULL, '(1,1),(0,0)'::box], pis = '{NULL,4}' WHERE id = 2;
DELETE FROM unknown_arrays WHERE id = 1;

INSERT INTO unknown_toast
    SELECT 1, 0, ('[' || string_agg(format('(%s,%s)', i, i * 0.5), ',') || ']')::path
    FROM generate_series(1, 300) i;
UPDATE unknown_toast SET n = 1 WHERE id = 1;
DELETE FROM unknown_toast WHERE id = 1;

INSERT INTO unknown_keys VALUES ('a & b', 1), ('c', 2);
UPDATE unknown_keys SET v = 3 WHERE k = 'a & b';
UPDATE unknown_keys SET k = 'd' WHERE k = 'c';
DELETE FROM unknown_keys WHERE k = 'a & b';
