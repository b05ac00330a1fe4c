-- Renames mid-stream (workload.d/50-renames.sql): a table renamed (its
-- topic and source.table change from the next change on) and a column
-- renamed (the field of the value and its schema).  pgoutput sends a new
-- relation message after either, so Debezium's record changes at once, as
-- cdc_kafka's does.  (A schema rename is not here: pgoutput sends no new
-- relation message for it, see the README's deliberate differences.)
CREATE TABLE public.ren_before (id int PRIMARY KEY, v text);
CREATE TABLE public.ren_cols (id int PRIMARY KEY, old_name text, kept int);
-- in every profile's publication (the filtered one too), so that every
-- Debezium engine decodes them
ALTER PUBLICATION dbz_filtered ADD TABLE public.ren_before, public.ren_cols;
ALTER PUBLICATION dbz_partroot ADD TABLE public.ren_before, public.ren_cols;
