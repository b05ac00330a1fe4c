-- 68-colhash.sql: changes of the tables of setup.d/68-colhash.sql.

\set ON_ERROR_STOP 1

INSERT INTO colhash_t VALUES (1, 'secret', 'varchar', 'v80', 'ab', 'x', 5, repeat('B', 9000),
    'v2 secret', 'masked', 'both');
INSERT INTO colhash_t VALUES (2, 'é€😀 "quoted" \ back', 'ü', '日本語😀', 'ñ', 'y', NULL,
    repeat('é😀', 20000), 'é€😀', '', '');
INSERT INTO colhash_t (id) VALUES (3);
UPDATE colhash_t SET i = 6 WHERE id = 1;                -- big stays in TOAST
UPDATE colhash_t SET t = NULL, vc80 = NULL WHERE id = 1;
DELETE FROM colhash_t WHERE id = 3;

INSERT INTO colhash_key VALUES ('k1', 'a');
UPDATE colhash_key SET code = 'k2' WHERE code = 'k1';
DELETE FROM colhash_key WHERE code = 'k2';
