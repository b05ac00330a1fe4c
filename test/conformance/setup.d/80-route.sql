-- 80-route.sql: tables that profiles "route" and "route_unwrap" (ByLogicalTableRouter,
-- issue 12) reroute: route_a and route_b merge into one topic (the same key, different
-- columns), route_nopk (no primary key: a null key) goes to a topic of its own.

\set ON_ERROR_STOP 1

CREATE TABLE route_a (
    id      integer PRIMARY KEY,
    name    text
);

CREATE TABLE route_b (
    id      integer PRIMARY KEY,
    name    text,
    qty     integer DEFAULT 1
);

CREATE TABLE route_nopk (
    id      integer,
    val     text
);
ALTER TABLE route_nopk REPLICA IDENTITY FULL;
