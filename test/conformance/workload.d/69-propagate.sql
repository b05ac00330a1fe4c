-- 69-propagate.sql: changes of the tables of setup.d/69-propagate.sql.

\set ON_ERROR_STOP 1

INSERT INTO prop_t VALUES (1, 2, 3, 1.5, 2.5, 12.34, 5.678, true, 'text', 'vc', 'vcu', 'abc', 'x',
    '\x01', '2024-01-02', '01:02:03.456', '01:02:03', '01:02:03+02', '2024-01-02 03:04:05',
    '2024-01-02 03:04:05+00', '1 day', '2 hours', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    '{"a":1}', B'101', B'11', '{a,b}', '{c}', 'high', 'code', 7, 'mixed', 'masked', 'hashed');
INSERT INTO prop_t (id) VALUES (2);
UPDATE prop_t SET t = 'changed' WHERE id = 1;
DELETE FROM prop_t WHERE id = 2;

INSERT INTO prop_key VALUES ('k1', 1.5);
UPDATE prop_key SET val = 2.5 WHERE code = 'k1';
