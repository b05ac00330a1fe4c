/* cdc_kafka--1.0.sql: SQL interface of the cdc_kafka extension */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION cdc_kafka" to load this file. \quit

-- The Debezium release whose record format the output plugin reproduces.
CREATE FUNCTION cdc_kafka.debezium_version()
RETURNS text
AS 'MODULE_PATHNAME', 'cdc_kafka_debezium_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
