-- conf_sql_ascii: UTF-8 names and values, which SQL_ASCII keeps as the bytes they came as.
-- (Bytes that are not UTF-8 stop Debezium's stream: the server checks pgoutput's text against
-- the client encoding. cdc_kafka stops with an error too: test/sql/encoding.sql.)
SET client_encoding = 'UTF8';

CREATE TABLE "tëxt" (
    id      integer PRIMARY KEY,
    "vâl"   text DEFAULT 'brûlée',
    vc      varchar(20),
    js      json,
    arr     text[]
);

-- a character beyond U+FFFF in a topic: two UTF-16 units, two '_'
CREATE TABLE "émoji😀" (id integer PRIMARY KEY, "😀" text);

CREATE PUBLICATION dbz_publication FOR ALL TABLES;
