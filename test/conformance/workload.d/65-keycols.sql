-- 65-keycols.sql: changes of the tables of setup.d/65-keycols.sql.  Under profile "keycols" a
-- change of a message key column is a delete + tombstone + create when the old row is known
-- (REPLICA IDENTITY FULL, or a changed primary key: then the old key has only the primary key
-- columns), else an update.

\set ON_ERROR_STOP 1

INSERT INTO keycol_nopk VALUES (1, 'a', 'one'), (2, 'b', 'two'), (3, NULL, 'three');
UPDATE keycol_nopk SET val = 'uno' WHERE id = 1;        -- not the key
UPDATE keycol_nopk SET code = 'bb' WHERE id = 2;        -- the key
UPDATE keycol_nopk SET code = 'c' WHERE id = 3;         -- the key, from null
DELETE FROM keycol_nopk WHERE id = 1;

INSERT INTO keycol_pk VALUES (1, 10, 'eu', 'x'), (2, 20, NULL, 'y'), (3, 30, 'us', 'z');
UPDATE keycol_pk SET val = 'xx' WHERE id = 1;           -- no old row
UPDATE keycol_pk SET code = 11 WHERE id = 1;            -- the key, but no old row
UPDATE keycol_pk SET id = 22 WHERE id = 2;              -- old row: the primary key only
UPDATE keycol_pk SET id = 33, code = 31 WHERE id = 3;
DELETE FROM keycol_pk WHERE id = 1;

INSERT INTO keycol_full VALUES (1, 10, 'x'), (2, 20, 'y');
UPDATE keycol_full SET val = 'xx' WHERE id = 1;
UPDATE keycol_full SET code = 11 WHERE id = 1;
UPDATE keycol_full SET id = 12 WHERE id = 1;            -- the primary key, not the message key
DELETE FROM keycol_full WHERE id = 2;

INSERT INTO keycol_other VALUES (1, 1);
UPDATE keycol_other SET code = 2 WHERE id = 1;
