-- 66-colmask.sql: columns profile "masks" masks with column.mask.with.<n>.chars (issue 12):
-- the character types (not name: cdc_kafka and Debezium differ on it already) (values masked, null ones too), types that are not (only the schema's
-- masked parameter), a default, a masked key column.

\set ON_ERROR_STOP 1

CREATE TABLE colmask_t (
    id      integer PRIMARY KEY,
    t       text,
    vc      varchar(10) DEFAULT 'dflt',
    c       char(4) NOT NULL DEFAULT 'ab',
    ch      "char",

    i       integer,
    n       numeric(6,2),
    j       jsonb,
    big     text
);
ALTER TABLE colmask_t REPLICA IDENTITY FULL;

CREATE TABLE colmask_key (
    code    text PRIMARY KEY,
    val     text
);
