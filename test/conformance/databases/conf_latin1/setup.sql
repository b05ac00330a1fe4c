-- conf_latin1: non-ASCII schema, table, column and enum names, defaults, and a column of every
-- text-like type.  This file is UTF-8: the server converts it to LATIN1.
SET client_encoding = 'UTF8';

CREATE EXTENSION hstore;
CREATE TYPE "humeur" AS ENUM ('gaieté', 'tristesse', 'colère');
CREATE SCHEMA "sché";

CREATE TABLE "sché"."café" (
    "clé"       varchar(20) PRIMARY KEY,
    "crème"     text DEFAULT 'brûlée',
    "prénom"    varchar(20) DEFAULT 'Zoë',
    bp          char(8),
    js          json,
    jb          jsonb,
    x           xml,
    h           hstore,
    e           "humeur",
    arr         text[],
    earr        "humeur"[],
    tv          tsvector
);

CREATE TABLE "façade" (id integer PRIMARY KEY, "âme" text);

CREATE PUBLICATION dbz_publication FOR ALL TABLES;
