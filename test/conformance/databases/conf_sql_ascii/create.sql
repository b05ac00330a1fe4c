-- A SQL_ASCII database (profile sql_ascii): bytes of no declared encoding, taken as UTF-8.
CREATE DATABASE conf_sql_ascii TEMPLATE template0 ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C';
