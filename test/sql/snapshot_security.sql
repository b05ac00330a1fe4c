-- cdc_kafka.snapshot() and cancel_snapshot() called with someone's look-alike
-- operators and functions first in search_path: they write the queue as its
-- owner and must not call them; a filter is kept as it was resolved, every
-- name qualified (filter_sql), and the requester's superuser status with it.
-- (The worker's side: TAP suite 021_security_privilege.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS cdc_kafka;
RESET client_min_messages;

CREATE ROLE sec_user;
CREATE SCHEMA sec_evil AUTHORIZATION sec_user;
CREATE TABLE sec_items (id bigint PRIMARY KEY, qty int);
CREATE PUBLICATION cdc_kafka FOR TABLE sec_items;
GRANT SELECT ON sec_items TO sec_user;
-- a delegated administrator (README: Delegation), not a superuser
GRANT cdc_kafka_admin TO sec_user;

SET ROLE sec_user;
-- an "=" for bigint and for text that says who called it
CREATE FUNCTION sec_evil.eq8(a bigint, b bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'sec_evil.= (bigint) called as %', current_user;
END $$;
CREATE OPERATOR sec_evil.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = sec_evil.eq8);
CREATE FUNCTION sec_evil.eqt(a text, b text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'sec_evil.= (text) called as %', current_user;
END $$;
CREATE OPERATOR sec_evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = sec_evil.eqt);
CREATE FUNCTION sec_evil.big(q int) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$ SELECT q > 10 $$;
SET search_path = sec_evil, pg_catalog, public;

SELECT cdc_kafka.snapshot('public.sec_items', 'big(qty) AND id > (SELECT min(id) FROM sec_items)') AS id \gset
SELECT cdc_kafka.cancel_snapshot(:id);
SELECT cdc_kafka.cancel_snapshot(:id);
RESET search_path;
RESET ROLE;

SELECT state, filter, filter_sql, requested_by, requested_by_superuser
  FROM cdc_kafka.snapshots ORDER BY id;
SELECT cdc_kafka.snapshot('sec_items', 'qty > 1') > 0 AS queued;
SELECT requested_by, requested_by_superuser FROM cdc_kafka.snapshots ORDER BY id DESC LIMIT 1;

-- the queue is the extension owner's alone
SET ROLE sec_user;
INSERT INTO cdc_kafka.snapshots (table_oid, table_name, kind, requested_by)
	VALUES ('sec_items'::regclass, 'x', 'incremental', 'sec_user');
UPDATE cdc_kafka.snapshots SET requested_by = 'sec_user';
RESET ROLE;

DELETE FROM cdc_kafka.snapshots;
DROP PUBLICATION cdc_kafka;
DROP TABLE sec_items;
DROP SCHEMA sec_evil CASCADE;
DROP ROLE sec_user;
