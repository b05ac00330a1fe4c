-- 65-keycols.sql: tables whose record keys profile "keycols" sets with message.key.columns
-- (issue 12): a table without a primary key, one whose primary key is replaced under
-- REPLICA IDENTITY DEFAULT (old rows carry the primary key only) and under FULL, and one no
-- rule matches (it keeps its primary key).

\set ON_ERROR_STOP 1

CREATE TABLE keycol_nopk (
    id      integer,
    code    text,
    val     varchar(20)
);
ALTER TABLE keycol_nopk REPLICA IDENTITY FULL;

CREATE TABLE keycol_pk (
    id      integer PRIMARY KEY,
    code    integer NOT NULL,
    region  text,
    val     text
);

CREATE TABLE keycol_full (
    id      integer PRIMARY KEY,
    code    integer NOT NULL,
    val     text
);
ALTER TABLE keycol_full REPLICA IDENTITY FULL;

CREATE TABLE keycol_other (
    id      integer PRIMARY KEY,
    code    integer
);
