-- 30-keys.sql: changes of the tables of setup.d/30-keys.sql.  An update of the key column is a
-- delete + tombstone + create with __debezium.newkey/oldkey headers; of another column a "u".

\set ON_ERROR_STOP 1

-- ------------------------------------------------------------------ which unique index

INSERT INTO keys_two_uniques VALUES (1, 10, 'one'), (2, 20, 'two');
UPDATE keys_two_uniques SET b = 11 WHERE a = 1;        -- key (b) changed
UPDATE keys_two_uniques SET a = 3 WHERE a = 2;         -- not the key
DELETE FROM keys_two_uniques WHERE a = 1;

INSERT INTO keys_expr_first VALUES (1, 'One', 'x'), (2, 'Two', 'y');
UPDATE keys_expr_first SET id = 11 WHERE id = 1;
UPDATE keys_expr_first SET t = 'TWO' WHERE id = 2;
DELETE FROM keys_expr_first WHERE id = 11;

INSERT INTO keys_expr_mixed VALUES (1, 'one', 'x'), (2, 'two', 'y');
UPDATE keys_expr_mixed SET t = 'uno' WHERE id = 1;
UPDATE keys_expr_mixed SET id = 22 WHERE id = 2;
DELETE FROM keys_expr_mixed WHERE id = 1;

INSERT INTO keys_partial VALUES (1, 5, 'x'), (2, 0, 'y');
UPDATE keys_partial SET code = 6 WHERE id = 1;
UPDATE keys_partial SET id = 22 WHERE id = 2;
DELETE FROM keys_partial WHERE id = 1;

INSERT INTO keys_clustered VALUES (1, 10, 'x'), (2, 20, 'y');
UPDATE keys_clustered SET a = 11 WHERE a = 1;
UPDATE keys_clustered SET b = 21 WHERE a = 2;
DELETE FROM keys_clustered WHERE a = 11;

INSERT INTO keys_include VALUES (1, 10, 'x'), (2, 20, 'y');
UPDATE keys_include SET b = 11 WHERE a = 1;
UPDATE keys_include SET val = 'z' WHERE a = 2;
DELETE FROM keys_include WHERE a = 1;

INSERT INTO keys_pk_include VALUES (1, 10, 'x'), (2, 20, 'y');
UPDATE keys_pk_include SET b = 11 WHERE id = 1;
UPDATE keys_pk_include SET id = 22 WHERE id = 2;
DELETE FROM keys_pk_include WHERE id = 1;

INSERT INTO keys_nullable VALUES (1, 10, 'x'), (NULL, 20, 'y'), (NULL, NULL, 'z'), (NULL, NULL, 'w');
UPDATE keys_nullable SET a = 2 WHERE b = 20;           -- null -> 2
UPDATE keys_nullable SET b = NULL WHERE a = 1;         -- 10 -> null
UPDATE keys_nullable SET val = 'zz' WHERE val = 'z';
DELETE FROM keys_nullable WHERE val = 'w';

INSERT INTO keys_nulls_not_distinct VALUES (1, 'x'), (NULL, 'y');
UPDATE keys_nulls_not_distinct SET a = NULL WHERE a = 1 AND false;
UPDATE keys_nulls_not_distinct SET a = 3 WHERE a IS NULL;
UPDATE keys_nulls_not_distinct SET a = NULL WHERE a = 1;
DELETE FROM keys_nulls_not_distinct WHERE a IS NULL;

INSERT INTO keys_ri_index VALUES (1, 10, 'x'), (2, 20, 'y');
UPDATE keys_ri_index SET a = 11 WHERE a = 1;           -- the key, but not the identity
UPDATE keys_ri_index SET b = 21 WHERE a = 2;           -- the identity, not the key
DELETE FROM keys_ri_index WHERE a = 11;

INSERT INTO keys_struct_equal VALUES (0, 10, 'x'), (1, 20, 'y');
UPDATE keys_struct_equal SET b = 11 WHERE a = 0;       -- old key a = fallback 0 = new key
UPDATE keys_struct_equal SET b = 21 WHERE a = 1;       -- old key a = 0, new a = 1

INSERT INTO keys_numeric_key VALUES (1.0, 'x');
UPDATE keys_numeric_key SET k = 1.00;                  -- equal as a double, not as a decimal
UPDATE keys_numeric_key SET k = 2;

INSERT INTO keys_default_key VALUES (NULL, 'x');
UPDATE keys_default_key SET c = 5;                      -- null -> 5: both written as 5
UPDATE keys_default_key SET val = 'y';

-- replica identity changes between and amid the changes, in and out of one transaction
INSERT INTO keys_ri_change VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z');
UPDATE keys_ri_change SET a = 11 WHERE a = 1;
BEGIN;
UPDATE keys_ri_change SET a = 12 WHERE a = 11;
ALTER TABLE keys_ri_change REPLICA IDENTITY USING INDEX keys_ri_change_b;
UPDATE keys_ri_change SET a = 13 WHERE a = 12;         -- identity unchanged: no old tuple
UPDATE keys_ri_change SET b = 21 WHERE a = 2;          -- old tuple has b only
DELETE FROM keys_ri_change WHERE a = 3;
COMMIT;
UPDATE keys_ri_change SET a = 14, b = 14 WHERE a = 13;
ALTER TABLE keys_ri_change REPLICA IDENTITY USING INDEX keys_ri_change_a;
UPDATE keys_ri_change SET a = 15 WHERE a = 14;
ALTER TABLE keys_ri_change REPLICA IDENTITY FULL;
DELETE FROM keys_ri_change WHERE a = 15;

INSERT INTO keys_ri_change_pk VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z'), (4, 40, 'w');
UPDATE keys_ri_change_pk SET val = 'xx' WHERE id = 1;
DELETE FROM keys_ri_change_pk WHERE id = 4;
BEGIN;
UPDATE keys_ri_change_pk SET id = 11 WHERE id = 1;
ALTER TABLE keys_ri_change_pk REPLICA IDENTITY FULL;
UPDATE keys_ri_change_pk SET val = 'yy' WHERE id = 2;
UPDATE keys_ri_change_pk SET id = 12 WHERE id = 11;
ALTER TABLE keys_ri_change_pk REPLICA IDENTITY USING INDEX keys_ri_change_pk_code;
UPDATE keys_ri_change_pk SET code = 21 WHERE id = 2;
UPDATE keys_ri_change_pk SET id = 13 WHERE id = 12;
COMMIT;
DELETE FROM keys_ri_change_pk WHERE id = 13;
ALTER TABLE keys_ri_change_pk REPLICA IDENTITY DEFAULT;
UPDATE keys_ri_change_pk SET id = 23 WHERE id = 3;
DELETE FROM keys_ri_change_pk WHERE id = 2;

INSERT INTO keys_collist_pk VALUES (1, 10, 'x'), (1, 20, 'y');
INSERT INTO keys_collist_unique VALUES (1, 10, 'x'), (2, 20, 'y');

-- ------------------------------------------------------------------ NOT NULL domains

INSERT INTO keys_domains (id, d_int, d_ts, d_over, d_nncol, d_nnod, d_num)
VALUES (1, 5, '2021-02-03 04:05:06', 6, 8, 9, 12.5);
INSERT INTO keys_domains VALUES (2, -1, 'given', '1999-12-31 23:59:59.5', 0, NULL, 1, 2, 3, 0, 4);
UPDATE keys_domains SET d_int = 50, d_dflt = NULL WHERE id = 1;
DELETE FROM keys_domains WHERE id = 1;
DELETE FROM keys_domains WHERE id = 2;

INSERT INTO keys_domains_more VALUES (1, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    '2020-02-29', '{"a": 1}', 12.345, true, '\x0102', 'ten chars', '1 day 2 hours', '12:34:56.789',
    '2021-01-01 00:00:00+00', 1.5, 9000000000, '{a,b}');
DELETE FROM keys_domains_more;

INSERT INTO keys_domain_key VALUES (1, 'x'), (2, 'y');
UPDATE keys_domain_key SET k = 11 WHERE k = 1;
DELETE FROM keys_domain_key WHERE k = 2;
