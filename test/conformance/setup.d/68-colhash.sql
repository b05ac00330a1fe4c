-- 68-colhash.sql: columns profile "masks_hash" hashes with column.mask.hash.* (issue 12):
-- v1 (the Java-serialized String: ASCII, non-ASCII, characters beyond U+FFFF, a value
-- past 65535 bytes), v2, hashes cut to the column's length (varchar(n), char(n), "char"),
-- a type not hashed (integer: only the masked parameter), a TOASTed value, a key column,
-- and the order of rules (a mask before a hash, v1 before v2).

\set ON_ERROR_STOP 1

CREATE TABLE colhash_t (
    id      integer PRIMARY KEY,
    t       text,
    vc      varchar(10),
    vc80    varchar(80) DEFAULT 'dflt',
    c       char(5),
    ch      "char",
    i       integer,
    big     text,
    v2t     text,
    mk      text,
    hb      text
);
ALTER TABLE colhash_t REPLICA IDENTITY FULL;

CREATE TABLE colhash_key (
    code    text PRIMARY KEY,
    val     text
);
