-- 69-propagate.sql: columns profiles "propagate" and "propagate_datatype" describe with
-- column.propagate.source.type / datatype.propagate.source.type (issue 12): the
-- __debezium.source.column.* parameters (type, length, scale, name) of many types,
-- with and without modifiers, arrays, an enum, domains, a name that needs quotes,
-- and the order of rules (a mask before, a hash after).

\set ON_ERROR_STOP 1

CREATE TYPE prop_mood AS ENUM ('low', 'high');
CREATE DOMAIN prop_code AS varchar(7);
CREATE DOMAIN prop_count AS integer;

CREATE TABLE prop_t (
    id      integer PRIMARY KEY,
    i2      smallint,
    i8      bigint,
    f4      real,
    f8      double precision,
    n       numeric(6,2),
    nu      numeric,
    bo      boolean,
    t       text,
    vc      varchar(10) DEFAULT 'dflt',
    vcu     varchar,
    c       char(3),
    ch      "char",
    by      bytea,
    d       date,
    tm3     time(3),
    tm      time,
    tmz     timetz,
    ts0     timestamp(0),
    tsz     timestamptz,
    iv      interval,
    iv2     interval(2),
    u       uuid,
    j       jsonb,
    bt      bit(3),
    vb      varbit(5),
    at      text[],
    avc     varchar(5)[],
    e       prop_mood,
    dc      prop_code,
    di      prop_count,
    "Mixed Name" text,
    mk      text,
    hs      text
);

CREATE TABLE prop_key (
    code    varchar(12) PRIMARY KEY,
    val     numeric(4,1)
);
