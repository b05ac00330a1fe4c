-- 30-keys.sql: which index gives the record key of a table without a primary key, and
-- NOT NULL domains (issue 7, items 2 and 3).
--
-- Debezium reads the key out of band when it handles pgoutput's RELATION message: the primary
-- key (pgjdbc getPrimaryKeys: key columns only, no INCLUDE columns), else the first index of
-- pgjdbc getIndexInfo(unique) in its order (clustered first, then by index name; OID and
-- column order play no part) whose columns are all plain columns, INCLUDE columns counted;
-- then the columns missing from the RELATION message (column list) are dropped.

\set ON_ERROR_STOP 1

-- ------------------------------------------------------------------ which unique index

-- created in the order z, m: OID order and column order say (a), name order says (b)
CREATE TABLE keys_two_uniques (
    a       integer NOT NULL,
    b       integer NOT NULL,
    val     text
);
CREATE UNIQUE INDEX keys_two_uniques_z ON keys_two_uniques (a);
CREATE UNIQUE INDEX keys_two_uniques_m ON keys_two_uniques (b);
ALTER TABLE keys_two_uniques REPLICA IDENTITY FULL;

-- an expression index first in name order is passed over
CREATE TABLE keys_expr_first (
    id      integer NOT NULL,
    t       text NOT NULL,
    val     text
);
CREATE UNIQUE INDEX keys_expr_first_a ON keys_expr_first (lower(t));
CREATE UNIQUE INDEX keys_expr_first_b ON keys_expr_first (id);
ALTER TABLE keys_expr_first REPLICA IDENTITY FULL;

-- an operator expression too, and one mixed with a plain column
CREATE TABLE keys_expr_mixed (
    id      integer NOT NULL,
    t       text NOT NULL,
    val     text
);
CREATE UNIQUE INDEX keys_expr_mixed_a ON keys_expr_mixed ((t || 'x'));
CREATE UNIQUE INDEX keys_expr_mixed_b ON keys_expr_mixed (id, upper(t));
CREATE UNIQUE INDEX keys_expr_mixed_c ON keys_expr_mixed (t);
ALTER TABLE keys_expr_mixed REPLICA IDENTITY FULL;

-- a partial unique index is a key like any other
CREATE TABLE keys_partial (
    id      integer NOT NULL,
    code    integer NOT NULL,
    val     text
);
CREATE UNIQUE INDEX keys_partial_a ON keys_partial (code) WHERE code > 0;
CREATE UNIQUE INDEX keys_partial_b ON keys_partial (id);
ALTER TABLE keys_partial REPLICA IDENTITY FULL;

-- the clustered index comes before the others whatever its name
CREATE TABLE keys_clustered (
    a       integer NOT NULL,
    b       integer NOT NULL,
    val     text
);
CREATE UNIQUE INDEX keys_clustered_a ON keys_clustered (a);
CREATE UNIQUE INDEX keys_clustered_b ON keys_clustered (b);
ALTER TABLE keys_clustered CLUSTER ON keys_clustered_b;
ALTER TABLE keys_clustered REPLICA IDENTITY FULL;

-- INCLUDE columns belong to a unique index's key, not to a primary key's
CREATE TABLE keys_include (
    a       integer NOT NULL,
    b       integer NOT NULL,
    val     text
);
CREATE UNIQUE INDEX keys_include_ab ON keys_include (a) INCLUDE (b);
ALTER TABLE keys_include REPLICA IDENTITY FULL;

CREATE TABLE keys_pk_include (
    id      integer NOT NULL,
    b       integer NOT NULL,
    val     text,
    PRIMARY KEY (id) INCLUDE (b)
);

-- nullable key columns, with NULLS DISTINCT and NULLS NOT DISTINCT, columns in index order
CREATE TABLE keys_nullable (
    a       integer,
    b       integer,
    val     text
);
CREATE UNIQUE INDEX keys_nullable_ba ON keys_nullable (b, a);
ALTER TABLE keys_nullable REPLICA IDENTITY FULL;

CREATE TABLE keys_nulls_not_distinct (
    a       integer,
    val     text
);
CREATE UNIQUE INDEX keys_nulls_not_distinct_a ON keys_nulls_not_distinct (a) NULLS NOT DISTINCT;
ALTER TABLE keys_nulls_not_distinct REPLICA IDENTITY FULL;

-- the replica identity index is not the key: the key is the first unique index by name
CREATE TABLE keys_ri_index (
    a       integer NOT NULL,
    b       integer NOT NULL,
    val     text
);
CREATE UNIQUE INDEX keys_ri_index_a ON keys_ri_index (a);
CREATE UNIQUE INDEX keys_ri_index_b ON keys_ri_index (b);
ALTER TABLE keys_ri_index REPLICA IDENTITY USING INDEX keys_ri_index_b;

-- Debezium compares old and new key structs after conversion: a NOT NULL key column missing
-- from the old tuple holds its fallback (0) there, numerics compare as their converted values,
-- and a null stays null even where the JSON shows the column default
CREATE TABLE keys_struct_equal (
    a       integer NOT NULL,
    b       integer NOT NULL,
    val     text
);
CREATE UNIQUE INDEX keys_struct_equal_a ON keys_struct_equal (a);
CREATE UNIQUE INDEX keys_struct_equal_b ON keys_struct_equal (b);
ALTER TABLE keys_struct_equal REPLICA IDENTITY USING INDEX keys_struct_equal_b;

CREATE TABLE keys_numeric_key (
    k       numeric PRIMARY KEY,
    val     text
);

CREATE TABLE keys_default_key (
    c       integer DEFAULT 5,
    val     text
);
CREATE UNIQUE INDEX keys_default_key_c ON keys_default_key (c);
ALTER TABLE keys_default_key REPLICA IDENTITY FULL;

-- replica identity changed while changes are pending (workload): no primary key ...
CREATE TABLE keys_ri_change (
    a       integer NOT NULL,
    b       integer NOT NULL,
    val     text
);
CREATE UNIQUE INDEX keys_ri_change_a ON keys_ri_change (a);
CREATE UNIQUE INDEX keys_ri_change_b ON keys_ri_change (b);
ALTER TABLE keys_ri_change REPLICA IDENTITY FULL;

-- ... and with one
CREATE TABLE keys_ri_change_pk (
    id      integer PRIMARY KEY,
    code    integer NOT NULL,
    val     text,
    n       integer NOT NULL DEFAULT 3
);
CREATE UNIQUE INDEX keys_ri_change_pk_code ON keys_ri_change_pk (code);

-- a column list that leaves key columns out (profile "filtered"; inserts only, as a column list
-- must cover the replica identity for updates and deletes)
CREATE TABLE keys_collist_pk (
    a       integer NOT NULL,
    b       integer NOT NULL,
    val     text,
    PRIMARY KEY (a, b)
);
CREATE TABLE keys_collist_unique (
    c       integer NOT NULL,
    d       integer NOT NULL,
    val     text
);
CREATE UNIQUE INDEX keys_collist_unique_c ON keys_collist_unique (c);
CREATE UNIQUE INDEX keys_collist_unique_d ON keys_collist_unique (d);
ALTER PUBLICATION dbz_filtered ADD TABLE keys_collist_pk (a, val), keys_collist_unique (d, val);

-- ------------------------------------------------------------------ NOT NULL domains

CREATE DOMAIN keys_nn_int AS integer NOT NULL;
CREATE DOMAIN keys_nn_text AS text NOT NULL DEFAULT 'dflt';
CREATE DOMAIN keys_nn_ts AS timestamp NOT NULL;
CREATE DOMAIN keys_over_nn AS keys_nn_int;              -- NOT NULL only through its base
CREATE DOMAIN keys_dflt_int AS integer DEFAULT 7;       -- nullable, with a default
CREATE DOMAIN keys_nn_over_dflt AS keys_dflt_int NOT NULL;
CREATE DOMAIN keys_nn_num AS numeric(6,2) NOT NULL CHECK (VALUE >= 0);

CREATE TABLE keys_domains (
    id      integer PRIMARY KEY,
    d_int   keys_nn_int,
    d_text  keys_nn_text,
    d_ts    keys_nn_ts,
    d_over  keys_over_nn,
    d_dflt  keys_dflt_int,
    d_nncol keys_dflt_int NOT NULL,
    d_nnod  keys_nn_over_dflt,
    d_cdef  keys_nn_int DEFAULT 5,
    d_num   keys_nn_num,
    plain   integer NOT NULL DEFAULT 9
);

-- NOT NULL domains over more types: their fallbacks in delete before-images
CREATE DOMAIN keys_nn_uuid AS uuid NOT NULL;
CREATE DOMAIN keys_nn_date AS date NOT NULL;
CREATE DOMAIN keys_nn_jsonb AS jsonb NOT NULL;
CREATE DOMAIN keys_nn_numeric AS numeric NOT NULL;
CREATE DOMAIN keys_nn_bool AS boolean NOT NULL;
CREATE DOMAIN keys_nn_bytea AS bytea NOT NULL;
CREATE DOMAIN keys_nn_varchar AS varchar(10) NOT NULL;
CREATE DOMAIN keys_nn_interval AS interval NOT NULL;
CREATE DOMAIN keys_nn_time AS time(3) NOT NULL;
CREATE DOMAIN keys_nn_tstz AS timestamptz NOT NULL;
CREATE DOMAIN keys_nn_float AS double precision NOT NULL;
CREATE DOMAIN keys_nn_bigint AS bigint NOT NULL;
CREATE DOMAIN keys_nn_textarr AS text[] NOT NULL;

CREATE TABLE keys_domains_more (
    id      integer PRIMARY KEY,
    d_uuid  keys_nn_uuid,
    d_date  keys_nn_date,
    d_jsonb keys_nn_jsonb,
    d_num   keys_nn_numeric,
    d_bool  keys_nn_bool,
    d_bytea keys_nn_bytea,
    d_vc    keys_nn_varchar,
    d_iv    keys_nn_interval,
    d_time  keys_nn_time,
    d_tstz  keys_nn_tstz,
    d_float keys_nn_float,
    d_big   keys_nn_bigint,
    d_arr   keys_nn_textarr
);

-- a NOT NULL domain as the key of a table without a primary key
CREATE TABLE keys_domain_key (
    k       keys_nn_int,
    val     text
);
CREATE UNIQUE INDEX keys_domain_key_k ON keys_domain_key (k);
ALTER TABLE keys_domain_key REPLICA IDENTITY FULL;
