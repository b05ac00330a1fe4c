-- conf_unknown: columns of types Debezium 3.6.1 cannot map, sent with
-- include.unknown.datatypes=true as their text in binary.handling.mode.
SET client_encoding = 'UTF8';

CREATE TYPE pair AS (a integer, b text);
-- regclass: a table off the search_path, so that its name is printed qualified by both
-- (cdc_kafka prints reg* types under search_path pg_catalog: README, deliberate differences)
CREATE SCHEMA elsewhere;
CREATE TABLE elsewhere.target (id integer PRIMARY KEY);
CREATE DOMAIN posbox AS box CHECK (area(VALUE) > 0);
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);

CREATE TABLE shapes (
    id      integer PRIMARY KEY,
    bx      box,
    ci      circle,
    ln      line,
    ls      lseg,
    pa      path,
    po      polygon,
    pb      posbox,
    bx_req  box NOT NULL DEFAULT '(1,1),(0,0)'
);

CREATE TABLE others (
    id      integer PRIMARY KEY,
    tq      tsquery,
    lsn     pg_lsn,
    snap    txid_snapshot,
    pr      pair,
    rc      regclass,
    tq_req  tsquery NOT NULL DEFAULT 'a & b',
    nm      name,       -- Debezium writes null for these without include.unknown.datatypes,
    ch      "char"      -- strings with it (its value resolver has no case for them)
);

-- arrays of an unknown type and of a domain (Debezium maps neither element)
CREATE TABLE unknown_arrays (
    id      integer PRIMARY KEY,
    bxs     box[],
    tqs     tsquery[],
    pis     posint[]
);

-- an unchanged TOASTed value of an unknown type becomes the placeholder
CREATE TABLE unknown_toast (
    id      integer PRIMARY KEY,
    n       integer,
    big     path
);
ALTER TABLE unknown_toast ALTER COLUMN big SET STORAGE EXTERNAL;

-- a key of an unknown type: the key's field is binary text too (a key change too)
CREATE TABLE unknown_keys (k tsquery PRIMARY KEY, v integer);

CREATE PUBLICATION dbz_publication FOR ALL TABLES;
