-- An install of 1.0 updated to the current version (ALTER EXTENSION
-- cdc_kafka UPDATE) has exactly the objects of a fresh install of the
-- current version: functions with their signatures, results, C symbols and
-- attributes, tables with their columns and constraints, views with their
-- definitions, triggers, sequences, comments, privileges and the initial
-- privileges pg_dump relies on.  In a database of its own: the other
-- suites keep the extension installed in theirs.
CREATE DATABASE regress_cdc_upgrade;
\c regress_cdc_upgrade
SET client_min_messages = warning;

-- Every member of the extension, and of each what must be the same, by
-- name (object identities and role names, never OIDs).
CREATE TEMP VIEW ext_objects AS
WITH members AS (
	SELECT d.classid, d.objid
	FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
	WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
		AND e.extname = 'cdc_kafka'
		-- PostgreSQL 17+ also lists the row types of the relations (and their
		-- array types): they come with their relation
		AND NOT EXISTS (SELECT FROM pg_type t LEFT JOIN pg_type el ON el.oid = t.typelem
						WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid
							AND (t.typrelid <> 0 OR el.typrelid <> 0))
)
SELECT pg_describe_object(m.classid, m.objid, 0) AS object,
	coalesce(
		(SELECT format('function %s(%s) returns %s; C symbol %s; %s %s %s %s; %s',
				p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid),
				p.prosrc, p.provolatile, p.proisstrict, p.proparallel, p.prosecdef,
				p.proconfig)
		 FROM pg_proc p WHERE m.classid = 'pg_proc'::regclass AND p.oid = m.objid),
		(SELECT format('%s %s; columns %s; constraints %s; indexes %s; triggers %s; definition %s; sequence %s',
				c.relkind, c.relpersistence,
				(SELECT string_agg(format('%s %s%s%s acl %s comment %s', a.attname,
						format_type(a.atttypid, a.atttypmod),
						CASE WHEN a.attnotnull THEN ' not null' END,
						' default ' || pg_get_expr(ad.adbin, ad.adrelid), a.attacl,
						col_description(c.oid, a.attnum)), ', ' ORDER BY a.attnum)
				 FROM pg_attribute a
				 LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
				 WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
				(SELECT string_agg(format('%s %s', co.conname, pg_get_constraintdef(co.oid)),
						', ' ORDER BY co.conname)
				 FROM pg_constraint co WHERE co.conrelid = c.oid),
				(SELECT string_agg(pg_get_indexdef(i.indexrelid), ', ' ORDER BY 1)
				 FROM pg_index i WHERE i.indrelid = c.oid),
				(SELECT string_agg(pg_get_triggerdef(tg.oid), ', ' ORDER BY tg.tgname)
				 FROM pg_trigger tg WHERE tg.tgrelid = c.oid AND NOT tg.tgisinternal),
				CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid) END,
				(SELECT format('%s %s %s %s %s', s.seqtypid::regtype, s.seqstart,
						s.seqincrement, s.seqmin, s.seqmax)
				 FROM pg_sequence s WHERE s.seqrelid = c.oid))
		 FROM pg_class c WHERE m.classid = 'pg_class'::regclass AND c.oid = m.objid),
		(SELECT format('type %s %s', format_type(t.oid, NULL), t.typtype)
		 FROM pg_type t WHERE m.classid = 'pg_type'::regclass AND t.oid = m.objid),
		(SELECT format('schema owned by the extension owner: %s',
				n.nspowner = (SELECT extowner FROM pg_extension WHERE extname = 'cdc_kafka'))
		 FROM pg_namespace n WHERE m.classid = 'pg_namespace'::regclass AND n.oid = m.objid),
		'?') AS definition,
	coalesce(
		(SELECT p.proacl::text FROM pg_proc p
		 WHERE m.classid = 'pg_proc'::regclass AND p.oid = m.objid),
		(SELECT c.relacl::text FROM pg_class c
		 WHERE m.classid = 'pg_class'::regclass AND c.oid = m.objid),
		(SELECT t.typacl::text FROM pg_type t
		 WHERE m.classid = 'pg_type'::regclass AND t.oid = m.objid)) AS privileges,
	(SELECT string_agg(format('%s %s', ip.objsubid, ip.initprivs), '; ' ORDER BY ip.objsubid)
	 FROM pg_init_privs ip WHERE ip.classoid = m.classid AND ip.objoid = m.objid) AS initial_privileges,
	obj_description(m.objid, (SELECT relname FROM pg_class WHERE oid = m.classid)) AS comment
FROM members m
UNION ALL
-- the schema's privileges, and the tables pg_dump dumps the rows of
SELECT 'schema cdc_kafka privileges', nspacl::text, NULL, NULL, NULL
FROM pg_namespace WHERE nspname = 'cdc_kafka'
UNION ALL
SELECT 'configuration tables', format('%s %s', extconfig::regclass[], extcondition), NULL, NULL, NULL
FROM pg_extension WHERE extname = 'cdc_kafka';

CREATE EXTENSION cdc_kafka VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'cdc_kafka';
ALTER EXTENSION cdc_kafka UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'cdc_kafka';
CREATE TEMP TABLE upgraded AS SELECT * FROM ext_objects;
DROP EXTENSION cdc_kafka;

CREATE EXTENSION cdc_kafka;
SELECT extversion FROM pg_extension WHERE extname = 'cdc_kafka';
CREATE TEMP TABLE fresh AS SELECT * FROM ext_objects;

-- the same objects, described the same: no row either way
SELECT 'only upgraded' AS install, * FROM (TABLE upgraded EXCEPT TABLE fresh) u
UNION ALL
SELECT 'only fresh', * FROM (TABLE fresh EXCEPT TABLE upgraded) f
ORDER BY 1, 2;
-- and not an empty comparison: every kind of object is in it
SELECT count(*) AS objects,
	count(*) FILTER (WHERE object LIKE 'function %') AS functions,
	count(*) FILTER (WHERE object LIKE 'view %') AS views,
	count(*) FILTER (WHERE object LIKE 'table %') AS tables,
	count(*) FILTER (WHERE object LIKE 'sequence %') AS sequences,
	count(*) FILTER (WHERE privileges IS NOT NULL) AS with_privileges,
	count(*) FILTER (WHERE initial_privileges IS NOT NULL) AS with_initial_privileges
FROM fresh;

-- self-check: a changed attribute, privilege or definition is a difference
ALTER FUNCTION cdc_kafka.slot_failover(name) STABLE;
GRANT SELECT ON cdc_kafka.snapshots TO pg_monitor;
COMMENT ON VIEW cdc_kafka.table_stats IS 'changed';
SELECT DISTINCT object FROM (TABLE ext_objects EXCEPT TABLE fresh) changed ORDER BY 1;
DROP EXTENSION cdc_kafka;
CREATE EXTENSION cdc_kafka;

-- what 1.1 adds: the failover flag of each worker's slot in the status view;
-- what 1.2 adds after it: the delivery mode and the Kafka transactions
SELECT attname FROM pg_attribute
WHERE attrelid = 'cdc_kafka.status'::regclass AND attnum > 0
ORDER BY attnum DESC LIMIT 8;
SELECT has_function_privilege('pg_monitor', 'cdc_kafka.worker_delivery()', 'EXECUTE') AS pg_monitor,
	has_function_privilege('cdc_kafka_admin', 'cdc_kafka.worker_delivery()', 'EXECUTE') AS admin,
	has_function_privilege('public', 'cdc_kafka.worker_delivery()', 'EXECUTE') AS public;
SELECT pg_create_logical_replication_slot('regress_upgrade_slot', 'test_decoding') IS NOT NULL AS created;
SELECT cdc_kafka.slot_failover('regress_upgrade_slot') AS plain_slot,
	cdc_kafka.slot_failover('regress_no_such_slot') IS NULL AS no_slot,
	cdc_kafka.slot_failover(NULL) IS NULL AS null_slot;
SELECT pg_drop_replication_slot('regress_upgrade_slot');
SELECT has_function_privilege('pg_monitor', 'cdc_kafka.slot_failover(name)', 'EXECUTE') AS pg_monitor,
	has_function_privilege('cdc_kafka_admin', 'cdc_kafka.slot_failover(name)', 'EXECUTE') AS admin,
	has_function_privilege('public', 'cdc_kafka.slot_failover(name)', 'EXECUTE') AS public;

-- what 1.1 mends: a dump restores the row of worker_state (a configuration
-- table, dumped as COPY) over the one CREATE EXTENSION made, rather than
-- fail on its primary key
COPY cdc_kafka.worker_state (enabled, include_list_applied, slot_name, one_row) FROM stdin;
f	public.t	cdc_kafka_old_server	t
\.
TABLE cdc_kafka.worker_state;

\c contrib_regression
DROP DATABASE regress_cdc_upgrade;
