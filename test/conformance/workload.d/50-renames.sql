-- Changes before and after a table rename and a column rename.
--
-- Debezium reads a table's key and the nullability of its columns from the
-- database when it decodes the table's relation message.  Had it not yet
-- decoded the changes made before the rename when the rename commits, it
-- would look the old name up, find no table and write those records
-- without a key and with every column optional: its output would depend on
-- how far behind it is (the README's deliberate differences).  So the
-- rename waits until every Debezium slot confirmed the changes before it;
-- what is compared is Debezium keeping up, which is deterministic.
-- (Debezium confirms a transaction's commit with the next transaction's
-- first record: the UPDATE lets it confirm the INSERT, whose relation
-- message it decoded, with the table's schema, before.)
SELECT set_config('ren.mark', pg_current_wal_insert_lsn()::text, false) IS NOT NULL AS marked;
INSERT INTO public.ren_before VALUES (1, 'one'), (2, 'two');
UPDATE public.ren_before SET v = 'uno' WHERE id = 1;
DO $$
BEGIN
	FOR i IN 1 .. 1200 LOOP
		-- no slot here (only profiles of other databases run): nothing to wait for
		IF (SELECT coalesce(bool_and(confirmed_flush_lsn > current_setting('ren.mark')::pg_lsn), true)
			  FROM pg_replication_slots
			 WHERE slot_name LIKE 'dbz\_%' AND database = current_database()
			   -- the outbox profiles' publication has only outbox.events: nothing to confirm
			   AND slot_name NOT LIKE 'dbz\_outbox%') THEN
			RETURN;
		END IF;
		PERFORM pg_sleep(0.1);
	END LOOP;
	RAISE EXCEPTION 'Debezium did not confirm the changes before the rename within 120 s: mark %, slots %',
		current_setting('ren.mark'),
		(SELECT string_agg(slot_name || ' ' || active || ' ' || confirmed_flush_lsn::text, ', ') FROM pg_replication_slots);
END $$;
ALTER TABLE public.ren_before RENAME TO ren_after;
INSERT INTO public.ren_after VALUES (3, 'three');
UPDATE public.ren_after SET v = 'dos' WHERE id = 2;
DELETE FROM public.ren_after WHERE id = 1;

-- the renamed columns are nullable and without default: what Debezium
-- reads of the old column name (nothing, once renamed) changes nothing
INSERT INTO public.ren_cols VALUES (1, 'a', 10);
ALTER TABLE public.ren_cols RENAME COLUMN old_name TO new_name;
INSERT INTO public.ren_cols VALUES (2, 'b', 20);
UPDATE public.ren_cols SET new_name = 'c' WHERE id = 1;
-- a rename between changes of one transaction
BEGIN;
UPDATE public.ren_cols SET kept = 11 WHERE id = 1;
ALTER TABLE public.ren_cols RENAME COLUMN kept TO kept_renamed;
UPDATE public.ren_cols SET kept_renamed = 21 WHERE id = 2;
COMMIT;
DELETE FROM public.ren_cols WHERE id = 2;
