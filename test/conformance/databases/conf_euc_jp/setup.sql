-- conf_euc_jp: multi-byte names and values (JIS X 0208, half-width katakana, JIS X 0212).
-- This file is UTF-8: the server converts it to EUC_JP.
SET client_encoding = 'UTF8';

CREATE EXTENSION hstore;
CREATE TYPE "色" AS ENUM ('赤', '青', '緑');
CREATE SCHEMA "日本";

CREATE TABLE "日本"."東京" (
    "名前"   varchar(10) PRIMARY KEY,
    "値"     text DEFAULT '既定値',
    "色"     "色" DEFAULT '青',
    j        jsonb,
    x        xml,
    h        hstore,
    arr      text[]
);

CREATE PUBLICATION dbz_publication FOR ALL TABLES;
