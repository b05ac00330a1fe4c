-- 90-outbox.sql: the outbox table that profiles "outbox", "outbox_envelope", "outbox_expand"
-- and "outbox_noschema" (Debezium's outbox EventRouter, issue 12) capture through their own
-- publication dbz_outbox; the other profiles see it as an ordinary table (dbz_publication).

\set ON_ERROR_STOP 1

CREATE SCHEMA outbox;

CREATE TABLE outbox.events (
    id              uuid PRIMARY KEY,
    aggregatetype   varchar(255) NOT NULL,
    aggregateid     varchar(255) NOT NULL,
    type            varchar(255) NOT NULL,
    payload         jsonb,
    payload_text    text,
    occurred        timestamp(6),
    occurred_ms     timestamp(3),
    version         integer,
    part            integer,
    tenant          text DEFAULT 'acme',
    amount          numeric(10,2)
);

CREATE PUBLICATION dbz_outbox FOR TABLE outbox.events;
