-- 67-coltrunc.sql: changes of the tables of setup.d/67-coltrunc.sql.

\set ON_ERROR_STOP 1

INSERT INTO coltrunc_t VALUES (1, 'abcdefgh', 'vwxyz12345', 'abc', 'ab', 'q', 123456, 12, true,
    1234.56, 123, 3.14159, '{"a":"long value"}', '\x0102030405060708', '2024-05-06 07:08:09+00',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', B'10101', '{abcdef,g}', repeat('B', 9000), 'masked?');
INSERT INTO coltrunc_t (id, t, c) VALUES (2, 'ab😀cd', 'é€😀');
INSERT INTO coltrunc_t (id, t) VALUES (3, 'x"\é\n😀😀y');
INSERT INTO coltrunc_t (id) VALUES (4);
UPDATE coltrunc_t SET i = 6 WHERE id = 1;                -- big stays in TOAST
UPDATE coltrunc_t SET t = NULL, vc = NULL WHERE id = 1;
DELETE FROM coltrunc_t WHERE id = 2;

INSERT INTO coltrunc_key VALUES ('key-number-one', 'a value of 20 chars!');
UPDATE coltrunc_key SET val = 'short' WHERE code = 'key-number-one';
DELETE FROM coltrunc_key WHERE code = 'key-number-one';
