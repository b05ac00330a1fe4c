-- 67-coltrunc.sql: columns profiles "truncate" and "truncate_strings" cut with
-- column.truncate.to.<n>.chars (issue 12): strings (UTF-16 units: a character
-- beyond U+FFFF counts 2), values that are strings only in some modes (numeric,
-- bytea, timestamptz, json, uuid), values never cut (integers, bits, arrays:
-- only the schema's truncateLength, where the column's length is above n),
-- columns too short to need it (no parameter), TOASTed values, a key column,
-- and a column both truncated and masked (truncation, tried first, wins).

\set ON_ERROR_STOP 1

CREATE TABLE coltrunc_t (
    id      integer PRIMARY KEY,
    t       text,
    vc      varchar(10) DEFAULT 'dflt-value',
    vc3     varchar(3),
    c       char(8),
    ch      "char",
    i       integer,
    i2      smallint,
    bo      boolean,
    n       numeric(6,2),
    n2      numeric(3,0),
    nu      numeric,
    j       jsonb,
    b       bytea,
    ts      timestamptz,
    u       uuid,
    vb      varbit,
    arr     text[],
    big     text,
    mt      text
);
ALTER TABLE coltrunc_t REPLICA IDENTITY FULL;

CREATE TABLE coltrunc_key (
    code    text PRIMARY KEY,
    val     varchar(20)
);
