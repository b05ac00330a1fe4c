-- 66-colmask.sql: changes of the tables of setup.d/66-colmask.sql.

\set ON_ERROR_STOP 1

INSERT INTO colmask_t VALUES (1, 'secret', 'v', 'abcd', 'x', 5, 1.5, '{"a":1}', repeat('B', 9000));
INSERT INTO colmask_t (id) VALUES (2);
UPDATE colmask_t SET i = 6 WHERE id = 1;                -- big stays in TOAST
UPDATE colmask_t SET t = NULL, vc = NULL WHERE id = 1;
DELETE FROM colmask_t WHERE id = 2;

INSERT INTO colmask_key VALUES ('k1', 'a');
UPDATE colmask_key SET code = 'k2' WHERE code = 'k1';  -- the masked key does not change
DELETE FROM colmask_key WHERE code = 'k2';
