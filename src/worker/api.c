/*-------------------------------------------------------------------------
 *
 * api.c
 *		The SQL interface of the streaming worker: start and stop it,
 *		manage the captured tables, the slot and its position, skip a
 *		refused record, and read its status (and its slot's failover flag).
 *
 * Every function acts on the current database's worker.  Commands reach
 * the worker through its status slot in shared memory and its latch; the
 * functions that need the worker to let go of the slot (reset_offsets) or
 * to stop wait for it to say it did.  The functions are revoked from
 * PUBLIC by the install script and granted to cdc_kafka_admin; the ones
 * that change anything check first that the caller has the privileges of
 * that role (api_require_admin), then do what the role itself may not (the
 * publication, the slot, cdc_kafka.worker_state) as the bootstrap
 * superuser with a fixed search_path (as_superuser).  Their arguments (and
 * those of incremental.c's snapshot functions) are checked here too, all
 * before anything is done.
 *
 * src/worker/api.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "catalog/catalog.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_publication.h"
#include "catalog/pg_publication_rel.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "replication/slot.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/pg_lsn.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "plugin/compat.h"
#include "plugin/plugin.h"
#include "worker/api.h"
#include "worker/settings.h"
#include "worker/status.h"

PG_FUNCTION_INFO_V1(cdc_kafka_start);
PG_FUNCTION_INFO_V1(cdc_kafka_stop);
PG_FUNCTION_INFO_V1(cdc_kafka_restart);
PG_FUNCTION_INFO_V1(cdc_kafka_add_tables);
PG_FUNCTION_INFO_V1(cdc_kafka_remove_tables);
PG_FUNCTION_INFO_V1(cdc_kafka_tables);
PG_FUNCTION_INFO_V1(cdc_kafka_create_slot);
PG_FUNCTION_INFO_V1(cdc_kafka_drop_slot);
PG_FUNCTION_INFO_V1(cdc_kafka_reset_offsets);
PG_FUNCTION_INFO_V1(cdc_kafka_skip_record);
PG_FUNCTION_INFO_V1(cdc_kafka_worker_status);
PG_FUNCTION_INFO_V1(cdc_kafka_worker_delivery);
PG_FUNCTION_INFO_V1(cdc_kafka_table_counters);
PG_FUNCTION_INFO_V1(cdc_kafka_slot_failover);

/* The role whose privileges manage streaming (README: Delegation). */
#define CDC_ADMIN_ROLE		"cdc_kafka_admin"

/* How long the functions wait for the worker to act on a command. */
#define COMMAND_WAIT_MS 30000

/* ---- privileges ------------------------------------------------------------------ */

/*
 * Refuse a caller without the privileges of cdc_kafka_admin (superusers
 * have them).  Called first thing, before any argument is acted on or any
 * command reaches the worker: a refused call changes nothing.  A role
 * granted EXECUTE on the function but not cdc_kafka_admin is refused too.
 */
void
api_require_admin(const char *func)
{
	Oid			admin = get_role_oid(CDC_ADMIN_ROLE, true);

	if (superuser() || (OidIsValid(admin) && has_privs_of_role(GetUserId(), admin)))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for function cdc_kafka.%s()", func),
			 errdetail("Only superusers and roles with the privileges of role \"%s\" may manage cdc_kafka streaming.",
					   CDC_ADMIN_ROLE),
			 errhint("GRANT %s TO the role.", CDC_ADMIN_ROLE)));
}

/*
 * What a cdc_kafka_admin member may do through the functions but not
 * itself (change the publication, which the worker owns, create, advance
 * or drop the slot, which takes REPLICATION, write the extension's
 * tables) runs between as_superuser() and as_caller(): as the bootstrap
 * superuser, as the worker does, with search_path pinned so that no name
 * in the SQL run can resolve to an object of the caller's.  An error in
 * between needs no cleanup: the transaction's abort restores both.
 */
typedef struct AsSuperuser
{
	Oid			save_user;
	int			save_sec;
	int			guc_level;
} AsSuperuser;

static void
as_superuser(AsSuperuser *as)
{
	GetUserIdAndSecContext(&as->save_user, &as->save_sec);
	SetUserIdAndSecContext(BOOTSTRAP_SUPERUSERID, as->save_sec | SECURITY_LOCAL_USERID_CHANGE);
	as->guc_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

static void
as_caller(AsSuperuser *as)
{
	AtEOXact_GUC(true, as->guc_level);
	SetUserIdAndSecContext(as->save_user, as->save_sec);
}

/* ---- helpers ------------------------------------------------------------------- */

static void
require_shared_memory(void)
{
	if (status_state == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cdc_kafka is not loaded at server start"),
				 errhint("Add cdc_kafka to shared_preload_libraries and restart the server.")));
}

static char *
current_dbname(void)
{
	return get_database_name(MyDatabaseId);
}

/* This database's worker slot, or NULL if the database is not listed. */
static CdcWorkerStatus *
my_worker(void)
{
	require_shared_memory();
	return status_find_worker(current_dbname());
}

static CdcWorkerStatus *
my_worker_or_error(void)
{
	CdcWorkerStatus *ws = my_worker();

	if (ws == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("database \"%s\" has no cdc_kafka worker", current_dbname()),
				 errhint("Add it to cdc_kafka.databases and reload the configuration.")));
	return ws;
}

/* Give the worker a command and wake it. */
static void
send_command(CdcWorkerStatus *ws, CdcCommand cmd)
{
	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	ws->command = cmd;
	ws->command_done = false;
	LWLockRelease(ws->lock);
	status_wake(ws);
}

/* Wait until the worker is in one of two states (or gone); false on timeout. */
static bool
wait_for_state(CdcWorkerStatus *ws, CdcWorkerState a, CdcWorkerState b)
{
	for (int waited = 0; waited < COMMAND_WAIT_MS; waited += 100)
	{
		CdcWorkerState state;
		pid_t		pid;

		LWLockAcquire(ws->lock, LW_SHARED);
		state = ws->state;
		pid = ws->pid;
		LWLockRelease(ws->lock);
		if (state == a || state == b || pid == 0)
			return true;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 100L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	return false;
}

static const char *
state_name(CdcWorkerState state)
{
	switch (state)
	{
		case CDC_STATE_UNUSED:
			return "unused";
		case CDC_STATE_STARTING:
			return "starting";
		case CDC_STATE_WAITING:
			return "waiting";
		case CDC_STATE_STOPPED:
			return "stopped";
		case CDC_STATE_SNAPSHOT:
			return "snapshot";
		case CDC_STATE_STREAMING:
			return "streaming";
		case CDC_STATE_SNAPSHOTTING:
			return "snapshotting";
		case CDC_STATE_BLOCKED:
			return "blocked";
		case CDC_STATE_SLOT_LOST:
			return "slot_lost";
		case CDC_STATE_FENCED:
			return "fenced";
		case CDC_STATE_ERROR:
			return "error";
	}
	return "unknown";
}

/*
 * The worker reads cdc_kafka.worker_state, which it can only see changed
 * once this transaction commits: the command that wakes it goes then.
 */
static CdcWorkerStatus *pending_worker = NULL;

static void
send_at_commit(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT && pending_worker != NULL)
		send_command(pending_worker, CDC_CMD_RELOAD);
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT)
		pending_worker = NULL;
}

static void
set_enabled(CdcWorkerStatus *ws, bool enabled)
{
	static bool registered = false;
	AsSuperuser as;

	as_superuser(&as);
	SPI_connect();
	SPI_execute(psprintf("UPDATE cdc_kafka.worker_state SET enabled = %s",
						 enabled ? "true" : "false"), false, 0);
	SPI_finish();
	as_caller(&as);
	if (!registered)
	{
		RegisterXactCallback(send_at_commit, NULL);
		registered = true;
	}
	pending_worker = ws;
}

/* ---- arguments --------------------------------------------------------------------------
 *
 * The functions are not STRICT: a null argument is an error, not a silent
 * null result, and it is found, like every other bad argument, before the
 * function changes anything or asks the worker for anything.
 */

void
api_refuse_null_arg(FunctionCallInfo fcinfo, int argno, const char *argname, const char *func)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"%s\" of cdc_kafka.%s() must not be null", argname, func)));
}

static const char *
relkind_name(char relkind)
{
	switch (relkind)
	{
		case RELKIND_VIEW:
			return "a view";
		case RELKIND_MATVIEW:
			return "a materialized view";
		case RELKIND_INDEX:
		case RELKIND_PARTITIONED_INDEX:
			return "an index";
		case RELKIND_SEQUENCE:
			return "a sequence";
		case RELKIND_FOREIGN_TABLE:
			return "a foreign table";
		case RELKIND_COMPOSITE_TYPE:
			return "a composite type";
		case RELKIND_TOASTVALUE:
			return "a TOAST table";
	}
	return "not a table";
}

/*
 * A table a cdc_kafka function may act on: one of this database whose
 * changes logical decoding sees (an ordinary or partitioned table, logged,
 * not a catalog, not the extension's own).  verb says what the caller
 * would do with it, for the message.  The same rules as a publication's,
 * checked here so that the caller gets one clear error before acting.
 */
void
api_check_table_arg(Oid relid, const char *verb)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class cls;
	char	   *nsp;
	char	   *name;
	const char *problem = NULL;
	const char *detail = NULL;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("cannot %s table with OID %u: database \"%s\" has no relation with that OID",
						verb, relid, get_database_name(MyDatabaseId)),
				 errhint("Name the table, as in 'schema.table': a regclass is the OID of a relation of the current database.")));
	cls = (Form_pg_class) GETSTRUCT(tup);
	nsp = get_namespace_name(cls->relnamespace);
	name = psprintf("%s.%s", nsp, NameStr(cls->relname));
	if (relid < FirstNormalObjectId || IsCatalogNamespace(cls->relnamespace) ||
		IsToastNamespace(cls->relnamespace))
	{
		problem = "a system table";
		detail = "Logical decoding does not stream the changes of system tables.";
	}
	else if (strcmp(nsp, CDC_EXTENSION_SCHEMA) == 0)
	{
		problem = "a table of the cdc_kafka extension";
		detail = "The tables of schema " CDC_EXTENSION_SCHEMA " are the extension's own state and are never streamed.";
	}
	else if (cls->relkind != RELKIND_RELATION && cls->relkind != RELKIND_PARTITIONED_TABLE)
	{
		problem = relkind_name(cls->relkind);
		detail = "Only ordinary and partitioned tables have their changes streamed.";
	}
	else if (cls->relpersistence == RELPERSISTENCE_TEMP)
	{
		problem = "a temporary table";
		detail = "Changes to temporary tables are not logically decoded.";
	}
	else if (cls->relpersistence == RELPERSISTENCE_UNLOGGED)
	{
		problem = "an unlogged table";
		detail = "Changes to unlogged tables are not written to the WAL, so they cannot be decoded.";
	}
	ReleaseSysCache(tup);
	if (problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot %s \"%s\": it is %s", verb, name, problem),
				 errdetail("%s", detail)));
}

/*
 * The VARIADIC regclass[] argument "tables" of func, every element checked
 * with api_check_table_arg().
 */
Oid *
api_table_args(FunctionCallInfo fcinfo, const char *func, const char *verb, int *n)
{
	ArrayType  *tables;
	Datum	   *elems;
	bool	   *nulls;
	Oid		   *relids;

	api_refuse_null_arg(fcinfo, 0, "tables", func);
	tables = PG_GETARG_ARRAYTYPE_P(0);
	deconstruct_array(tables, REGCLASSOID, sizeof(Oid), true, TYPALIGN_INT, &elems, &nulls, n);
	if (*n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("argument \"tables\" of cdc_kafka.%s() names no table", func)));
	relids = palloc(sizeof(Oid) * *n);
	for (int i = 0; i < *n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"tables\" of cdc_kafka.%s() must not contain nulls", func),
					 errdetail("Element %d is null.", i + 1)));
		relids[i] = DatumGetObjectId(elems[i]);
		api_check_table_arg(relids[i], verb);
	}
	return relids;
}

/* A pg_lsn argument: not null and not 0/0. */
static XLogRecPtr
lsn_arg(FunctionCallInfo fcinfo, const char *func)
{
	XLogRecPtr	lsn;

	api_refuse_null_arg(fcinfo, 0, "lsn", func);
	lsn = PG_GETARG_LSN(0);
	if (XLogRecPtrIsInvalid(lsn))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("argument \"lsn\" of cdc_kafka.%s() must not be 0/0", func),
				 errhint("0/0 is no position in the WAL.")));
	return lsn;
}

/* ---- start, stop, restart ---------------------------------------------------------- */

Datum
cdc_kafka_start(PG_FUNCTION_ARGS)
{
	CdcWorkerStatus *ws;

	api_require_admin("start");
	ws = my_worker_or_error();

	set_enabled(ws, true);
	PG_RETURN_TEXT_P(cstring_to_text("streaming starts when this transaction commits"));
}

Datum
cdc_kafka_stop(PG_FUNCTION_ARGS)
{
	CdcWorkerStatus *ws;

	api_require_admin("stop");
	ws = my_worker();

	set_enabled(ws, false);
	PG_RETURN_TEXT_P(cstring_to_text("streaming stops when this transaction commits"));
}

Datum
cdc_kafka_restart(PG_FUNCTION_ARGS)
{
	CdcWorkerStatus *ws;

	api_require_admin("restart");
	ws = my_worker_or_error();

	send_command(ws, CDC_CMD_RESTART);
	PG_RETURN_TEXT_P(cstring_to_text("streaming restarts from the slot's confirmed position"));
}

/* ---- captured tables -------------------------------------------------------------------- */

static const char *
publication_name(void)
{
	return settings_publication_name;
}

static Datum
tables_result(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(publication_name())};

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	SPI_connect();
	SPI_execute_with_args("SELECT pg_catalog.format('%I.%I', schemaname, tablename)::pg_catalog.regclass "
						  "FROM pg_catalog.pg_publication_tables "
						  "WHERE pubname OPERATOR(pg_catalog.=) $1::pg_catalog.name "
						  "AND schemaname OPERATOR(pg_catalog.<>) '" CDC_EXTENSION_SCHEMA "'::pg_catalog.name "
						  "ORDER BY 1::pg_catalog.text",
						  1, types, values, NULL, true, 0);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &d, &isnull);
	}
	SPI_finish();
	return (Datum) 0;
}

static Publication *
my_publication(void)
{
	Publication *pub = GetPublicationByName(publication_name(), true);

	if (pub == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("publication \"%s\" does not exist", publication_name()),
				 errhint("The worker creates it on start; or set cdc_kafka.publication_name.")));
	if (pub->alltables)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("publication \"%s\" is FOR ALL TABLES: every table is captured",
						publication_name()),
				 errhint("To choose tables, set cdc_kafka.publication_autocreate_mode = filtered and "
						 "recreate the publication without FOR ALL TABLES.")));
	return pub;
}

/* schema.table, quoted as needed; relid is known to exist. */
static char *
qualified_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  get_rel_name(relid));
}

/* schema.table for a message (quoted whole by the message) */
static char *
display_name(Oid relid)
{
	return psprintf("%s.%s", get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
}

/* The partitioned table above relid that is in the publication, or InvalidOid. */
static Oid
captured_ancestor(Oid relid, Oid pubid)
{
	ListCell   *lc;

	if (!get_rel_relispartition(relid))
		return InvalidOid;
	foreach(lc, get_partition_ancestors(relid))
		if (SearchSysCacheExists2(PUBLICATIONRELMAP, ObjectIdGetDatum(lfirst_oid(lc)),
								  ObjectIdGetDatum(pubid)))
			return lfirst_oid(lc);
	return InvalidOid;
}

/*
 * add_tables() takes tables not captured yet; remove_tables() the tables
 * the publication names itself (not a partition of one, not a table of a
 * schema it captures whole).
 */
static void
check_membership(Publication *pub, Oid relid, bool add)
{
	bool		member = SearchSysCacheExists2(PUBLICATIONRELMAP, ObjectIdGetDatum(relid),
											   ObjectIdGetDatum(pub->oid));
	Oid			ancestor = captured_ancestor(relid, pub->oid);
	char	   *name = display_name(relid);

	if (add && member)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("table \"%s\" is already captured", name),
				 errdetail("It is in publication \"%s\".", pub->name)));
	if (add && OidIsValid(ancestor))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("cannot capture \"%s\": it is a partition of \"%s\", which is captured",
						name, display_name(ancestor)),
				 errdetail("The changes of every partition of a captured partitioned table are streamed.")));
	if (add || member)
		return;
	if (OidIsValid(ancestor))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot stop capturing \"%s\": it is captured as a partition of \"%s\"",
						name, display_name(ancestor)),
				 errhint("Remove \"%s\" and add the partitions to keep capturing.",
						 display_name(ancestor))));
	if (list_member_oid(GetSchemaPublications(get_rel_namespace(relid)), pub->oid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot stop capturing \"%s\": publication \"%s\" captures its whole schema",
						name, pub->name),
				 errhint("ALTER PUBLICATION %s DROP TABLES IN SCHEMA %s, then add the tables to keep.",
						 quote_identifier(pub->name),
						 quote_identifier(get_namespace_name(get_rel_namespace(relid))))));
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("table \"%s\" is not captured", name),
			 errdetail("It is not in publication \"%s\".", pub->name)));
}

/*
 * Capturing a table sends its rows to Kafka: the caller must be able to
 * read it (the publication itself is changed as the superuser).
 */
static void
check_can_read(Oid relid)
{
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", display_name(relid)),
				 errdetail("Capturing a table sends its rows to Kafka: the role capturing it must have SELECT on it.")));
}

/* ADD or DROP the tables of argument "tables", every one checked first. */
static void
alter_publication(FunctionCallInfo fcinfo, bool add)
{
	const char *func = add ? "add_tables" : "remove_tables";
	int			n;
	Oid		   *relids;
	Publication *pub;
	List	   *seen = NIL;
	StringInfoData sql;
	AsSuperuser as;

	api_require_admin(func);
	relids = api_table_args(fcinfo, func, add ? "capture" : "stop capturing", &n);
	pub = my_publication();

	initStringInfo(&sql);
	appendStringInfo(&sql, "ALTER PUBLICATION %s %s TABLE ", quote_identifier(pub->name),
					 add ? "ADD" : "DROP");
	for (int i = 0; i < n; i++)
	{
		if (list_member_oid(seen, relids[i]))
			continue;
		check_membership(pub, relids[i], add);
		if (add)
			check_can_read(relids[i]);
		appendStringInfo(&sql, "%s%s", seen != NIL ? ", " : "", qualified_name(relids[i]));
		seen = lappend_oid(seen, relids[i]);
	}
	as_superuser(&as);
	SPI_connect();
	SPI_execute(sql.data, false, 0);
	SPI_finish();
	as_caller(&as);
}

Datum
cdc_kafka_add_tables(PG_FUNCTION_ARGS)
{
	alter_publication(fcinfo, true);
	return tables_result(fcinfo);
}

Datum
cdc_kafka_remove_tables(PG_FUNCTION_ARGS)
{
	alter_publication(fcinfo, false);
	return tables_result(fcinfo);
}

Datum
cdc_kafka_tables(PG_FUNCTION_ARGS)
{
	return tables_result(fcinfo);
}

/* ---- the slot ------------------------------------------------------------------------------ */

static char *
my_slot_name(void)
{
	CdcWorkerStatus *ws = my_worker();

	if (ws != NULL)
	{
		char	   *published = status_get_slot_name(ws);

		if (published[0] != '\0')
			return published;
	}
	return settings_slot_name_for(current_dbname());
}

static bool
slot_exists(const char *slot)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(slot)};
	bool		exists;

	SPI_connect();
	SPI_execute_with_args("SELECT 1 FROM pg_catalog.pg_replication_slots "
						  "WHERE slot_name OPERATOR(pg_catalog.=) $1::pg_catalog.name",
						  1, types, values, NULL, true, 1);
	exists = SPI_processed > 0;
	SPI_finish();
	return exists;
}

/* Run sql about slot ($1, text) as the bootstrap superuser; the rows it touched. */
static uint64
slot_call(const char *sql, const char *slot, Datum extra, Oid extratype)
{
	Oid			types[2] = {TEXTOID, extratype};
	Datum		values[2] = {CStringGetTextDatum(slot), extra};
	AsSuperuser as;
	uint64		processed;

	as_superuser(&as);
	SPI_connect();
	SPI_execute_with_args(sql, extratype == InvalidOid ? 1 : 2, types, values, NULL, false, 0);
	processed = SPI_processed;
	SPI_finish();
	as_caller(&as);
	return processed;
}

/*
 * Forget that the worker had this slot (cdc_kafka.worker_state): it will
 * not take its absence for a loss.  Returns true if it was remembered.
 */
static bool
forget_slot(const char *slot)
{
	return slot_call("UPDATE cdc_kafka.worker_state SET slot_name = NULL "
					 "WHERE slot_name OPERATOR(pg_catalog.=) $1::pg_catalog.name",
					 slot, 0, InvalidOid) > 0;
}

Datum
cdc_kafka_create_slot(PG_FUNCTION_ARGS)
{
	char	   *slot;

	api_require_admin("create_slot");
	slot = my_slot_name();
	if (!slot_exists(slot))
		slot_call("SELECT pg_catalog.pg_create_logical_replication_slot($1::pg_catalog.name, "
				  "'cdc_kafka'::pg_catalog.name)", slot, 0, InvalidOid);
	PG_RETURN_DATUM(DirectFunctionCall1(namein, CStringGetDatum(slot)));
}

Datum
cdc_kafka_drop_slot(PG_FUNCTION_ARGS)
{
	CdcWorkerStatus *ws;
	char	   *slot;
	CdcWorkerState state = CDC_STATE_UNUSED;

	api_require_admin("drop_slot");
	ws = my_worker();
	slot = my_slot_name();
	if (ws != NULL)
	{
		LWLockAcquire(ws->lock, LW_SHARED);
		state = ws->pid != 0 ? ws->state : CDC_STATE_STOPPED;
		LWLockRelease(ws->lock);
	}
	if (state == CDC_STATE_STREAMING || state == CDC_STATE_SNAPSHOTTING ||
		state == CDC_STATE_BLOCKED || state == CDC_STATE_STARTING)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("cannot drop replication slot \"%s\" while streaming", slot),
				 errhint("Call cdc_kafka.stop() first; dropping the slot forgets its position.")));
	if (slot_exists(slot))
	{
		slot_call("SELECT pg_catalog.pg_drop_replication_slot($1::pg_catalog.name)", slot, 0,
				  InvalidOid);
		(void) forget_slot(slot);
		ereport(LOG, (errmsg("replication slot \"%s\" dropped by %s through cdc_kafka.drop_slot()", slot,
							 GetUserNameFromId(GetUserId(), false))));
	}
	else if (forget_slot(slot))
		ereport(LOG, (errmsg("the loss of replication slot \"%s\" (dropped from outside) accepted by %s through cdc_kafka.drop_slot(); "
							 "a new slot takes a new snapshot", slot,
							 GetUserNameFromId(GetUserId(), false))));
	else
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("replication slot \"%s\" does not exist", slot)));
	/* a worker waiting in state slot_lost goes on with a new slot */
	if (ws != NULL)
		send_command(ws, CDC_CMD_RELOAD);
	PG_RETURN_DATUM(DirectFunctionCall1(namein, CStringGetDatum(slot)));
}

/* Ask the worker to let go of the slot and wait until it has. */
static void
release_slot(CdcWorkerStatus *ws)
{
	send_command(ws, CDC_CMD_RELEASE_SLOT);
	for (int waited = 0; waited < COMMAND_WAIT_MS; waited += 100)
	{
		bool		done;
		pid_t		pid;

		LWLockAcquire(ws->lock, LW_SHARED);
		done = ws->command_done && ws->state != CDC_STATE_STREAMING;
		pid = ws->pid;
		LWLockRelease(ws->lock);
		if (done || pid == 0)
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 100L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	send_command(ws, CDC_CMD_NONE);
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_IN_USE),
			 errmsg("cdc_kafka worker did not release its slot within %d seconds", COMMAND_WAIT_MS / 1000)));
}

/*
 * The slot's confirmed position and the oldest WAL it holds; false if there
 * is no such slot.  Checked before the worker is asked to let go of the
 * slot: a refused move must not cost a streaming session.
 */
static bool
slot_positions(const char *slot, XLogRecPtr *confirmed, XLogRecPtr *restart)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(slot)};
	bool		exists;

	*confirmed = *restart = InvalidXLogRecPtr;
	SPI_connect();
	SPI_execute_with_args("SELECT confirmed_flush_lsn, restart_lsn "
						  "FROM pg_catalog.pg_replication_slots "
						  "WHERE slot_name OPERATOR(pg_catalog.=) $1",
						  1, types, values, NULL, true, 1);
	exists = SPI_processed > 0;
	for (int col = 1; exists && col <= 2; col++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, &isnull);

		if (!isnull)
			*(col == 1 ? confirmed : restart) = DatumGetLSN(d);
	}
	SPI_finish();
	return exists;
}

/* Advance the slot (as slot_call does); returns where it actually is afterwards. */
static XLogRecPtr
advance_slot(const char *slot, XLogRecPtr lsn)
{
	Oid			types[2] = {TEXTOID, PG_LSNOID};
	Datum		values[2] = {CStringGetTextDatum(slot), LSNGetDatum(lsn)};
	XLogRecPtr	result = InvalidXLogRecPtr;
	AsSuperuser as;

	as_superuser(&as);
	SPI_connect();
	SPI_execute_with_args("SELECT end_lsn FROM pg_catalog.pg_replication_slot_advance("
						  "$1::pg_catalog.name, $2)", 2, types, values, NULL, false, 1);
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			result = DatumGetLSN(d);
	}
	SPI_finish();
	as_caller(&as);
	return result;
}

Datum
cdc_kafka_reset_offsets(PG_FUNCTION_ARGS)
{
	XLogRecPtr	lsn;
	bool		recovery = RecoveryInProgress();
	XLogRecPtr	end;
	CdcWorkerStatus *ws;
	char	   *slot;
	XLogRecPtr	confirmed;
	XLogRecPtr	restart;
	XLogRecPtr	moved = InvalidXLogRecPtr;

	api_require_admin("reset_offsets");
	lsn = lsn_arg(fcinfo, "reset_offsets");
	end = recovery ? GetXLogReplayRecPtr(NULL) : GetXLogInsertRecPtr();
	if (lsn > end)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("argument \"lsn\" of cdc_kafka.reset_offsets() is ahead of the WAL: %X/%X > %X/%X",
						LSN_FORMAT_ARGS(lsn), LSN_FORMAT_ARGS(end)),
				 errhint("Give a position up to pg_current_wal_insert_lsn().")));
	/* the slot moves only up to the WAL flushed: flush up to lsn, not less */
	if (!recovery)
		XLogFlush(lsn);
	ws = my_worker();
	slot = my_slot_name();
	if (!slot_positions(slot, &confirmed, &restart))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("replication slot \"%s\" does not exist", slot)));
	if (XLogRecPtrIsInvalid(restart))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot move replication slot \"%s\": it holds no WAL", slot),
				 errdetail("The slot was invalidated."),
				 errhint("Accept the loss with cdc_kafka.drop_slot().")));
	if (lsn < confirmed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("argument \"lsn\" of cdc_kafka.reset_offsets() is behind replication slot \"%s\": %X/%X < %X/%X",
						slot, LSN_FORMAT_ARGS(lsn), LSN_FORMAT_ARGS(confirmed)),
				 errdetail("A slot only moves forward: the WAL before its position may be gone.")));
	if (ws != NULL)
		release_slot(ws);
	PG_TRY();
	{
		moved = advance_slot(slot, lsn);
	}
	PG_FINALLY();
	{
		if (ws != NULL)
			send_command(ws, CDC_CMD_RESTART);
	}
	PG_END_TRY();
	/* a slot does not move back: asked for a position it had passed, it stays */
	if (moved != lsn)
		ereport(NOTICE,
				(errmsg("replication slot \"%s\" is at %X/%X, not %X/%X", slot,
						LSN_FORMAT_ARGS(moved), LSN_FORMAT_ARGS(lsn)),
				 errdetail("Its confirmed position was already past the position asked for; a slot only moves forward.")));
	ereport(LOG, (errmsg("replication slot \"%s\" moved to %X/%X by %s through cdc_kafka.reset_offsets()", slot,
						 LSN_FORMAT_ARGS(moved), GetUserNameFromId(GetUserId(), false))));
	PG_RETURN_LSN(moved);
}

Datum
cdc_kafka_skip_record(PG_FUNCTION_ARGS)
{
	XLogRecPtr	lsn;
	CdcWorkerStatus *ws;
	CdcWorkerState state;
	XLogRecPtr	blocked;
	char		table[CDC_TEXT_LEN];

	api_require_admin("skip_record");
	lsn = lsn_arg(fcinfo, "skip_record");
	ws = my_worker_or_error();

	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	state = ws->state;
	blocked = ws->blocked_lsn;
	strlcpy(table, ws->blocked_table, CDC_TEXT_LEN);
	if (state == CDC_STATE_BLOCKED && blocked == lsn)
		ws->skip_lsn = lsn;
	LWLockRelease(ws->lock);
	if (state != CDC_STATE_BLOCKED || blocked != lsn)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no refused record at LSN %X/%X to skip", LSN_FORMAT_ARGS(lsn)),
				 errhint("cdc_kafka.status shows the refused record (blocked_lsn) of a blocked worker.")));
	ereport(LOG,
			(errmsg("%s asked to skip the refused record of table %s at LSN %X/%X through cdc_kafka.skip_record()",
					GetUserNameFromId(GetUserId(), false), table, LSN_FORMAT_ARGS(lsn))));
	send_command(ws, CDC_CMD_RESTART);
	(void) wait_for_state(ws, CDC_STATE_STREAMING, CDC_STATE_ERROR);
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("skipped the record of table %s at LSN %X/%X",
											  table, LSN_FORMAT_ARGS(lsn))));
}

/* ---- views ----------------------------------------------------------------------------------- */

static Datum
lsn_or_null(XLogRecPtr lsn, bool *isnull)
{
	*isnull = XLogRecPtrIsInvalid(lsn);
	return LSNGetDatum(lsn);
}

static Datum
text_or_null(const char *s, bool *isnull)
{
	*isnull = (s[0] == '\0');
	return CStringGetTextDatum(s);
}

static Datum
time_or_null(TimestampTz t, bool *isnull)
{
	*isnull = (t == 0);
	return TimestampTzGetDatum(t);
}

#define STATUS_COLUMNS 26

/*
 * Seconds behind: the oldest commit in flight; while a snapshot chunk is
 * read, WAL is not read either, so at least as long as the read lasts if
 * WAL was written meanwhile.
 */
static double
lag_seconds(const CdcWorkerStatus *ws, TimestampTz now)
{
	TimestampTz since = ws->oldest_pending_commit;

	if (ws->reading_job != 0 && ws->reading_since != 0 &&
		ws->read_lsn < GetFlushRecPtr(NULL) &&
		(since == 0 || ws->reading_since < since))
		since = ws->reading_since;
	return since == 0 ? 0.0 : (double) (now - since) / 1000000.0;
}

static void
status_row(const CdcWorkerStatus *ws, Datum *v, bool *n)
{
	TimestampTz now = GetCurrentTimestamp();
	int			i = 0;

	memset(n, 0, sizeof(bool) * STATUS_COLUMNS);
	v[i++] = DirectFunctionCall1(namein, CStringGetDatum(ws->dbname));
	v[i] = Int32GetDatum(ws->pid);
	n[i++] = ws->pid == 0;
	v[i++] = CStringGetTextDatum(state_name(ws->state));
	v[i] = text_or_null(ws->detail, &n[i]);
	i++;
	v[i] = DirectFunctionCall1(namein, CStringGetDatum(ws->slot_name));
	n[i++] = ws->slot_name[0] == '\0';
	v[i] = DirectFunctionCall1(namein, CStringGetDatum(ws->publication));
	n[i++] = ws->publication[0] == '\0';
	v[i] = text_or_null(ws->topic_prefix, &n[i]);
	i++;
	v[i] = lsn_or_null(ws->confirmed_lsn, &n[i]);
	i++;
	v[i] = lsn_or_null(ws->read_lsn, &n[i]);
	i++;
	v[i++] = Float8GetDatum(lag_seconds(ws, now));
	v[i++] = Int64GetDatum(ws->records_sent);
	v[i++] = Int64GetDatum(ws->bytes_sent);
	v[i++] = Int64GetDatum(ws->inflight_records);
	v[i++] = Int64GetDatum(ws->inflight_bytes);
	v[i++] = Int64GetDatum(ws->retries);
	v[i] = time_or_null(ws->last_ack_time, &n[i]);
	i++;
	v[i] = text_or_null(ws->last_error, &n[i]);
	i++;
	v[i] = time_or_null(ws->last_error_time, &n[i]);
	i++;
	v[i] = text_or_null(ws->broker, &n[i]);
	i++;
	v[i] = text_or_null(ws->blocked_table, &n[i]);
	i++;
	v[i] = text_or_null(ws->blocked_key, &n[i]);
	i++;
	v[i] = lsn_or_null(ws->blocked_lsn, &n[i]);
	i++;
	v[i] = text_or_null(ws->snapshot_table, &n[i]);
	i++;
	v[i] = Int64GetDatum(ws->snapshot_rows);
	n[i] = ws->snapshot_table[0] == '\0';
	i++;
	v[i] = Int64GetDatum(ws->snapshot_rows_estimated);
	n[i] = ws->snapshot_table[0] == '\0';
	i++;
	v[i] = text_or_null(ws->snapshot_wait, &n[i]);
}

Datum
cdc_kafka_worker_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	require_shared_memory();
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < CDC_MAX_WORKERS; i++)
	{
		CdcWorkerStatus copy;
		Datum		values[STATUS_COLUMNS];
		bool		nulls[STATUS_COLUMNS];

		if (!status_copy(i, &copy))
			continue;
		status_row(&copy, values, nulls);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * cdc_kafka.worker_delivery(), extension version 1.2: each worker's
 * delivery mode and, for exactly_once, its Kafka transactions; the status
 * view of 1.2 joins it by database.
 */
#define DELIVERY_COLUMNS 7

Datum
cdc_kafka_worker_delivery(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	require_shared_memory();
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < CDC_MAX_WORKERS; i++)
	{
		CdcWorkerStatus w;
		bool		committed;
		Datum		values[DELIVERY_COLUMNS];
		bool		nulls[DELIVERY_COLUMNS] = {false};

		if (!status_copy(i, &w))
			continue;
		committed = w.exactly_once && w.kafka_committed_lsn != InvalidXLogRecPtr;
		values[0] = CStringGetDatum(w.dbname);
		values[1] = CStringGetTextDatum(w.exactly_once ? "exactly_once" : "at_least_once");
		values[2] = text_or_null(w.transactional_id, &nulls[2]);
		values[3] = Int64GetDatum(w.kafka_transactions);
		nulls[3] = !w.exactly_once;
		values[4] = TimestampTzGetDatum(w.kafka_committed_at);
		nulls[4] = w.kafka_committed_at == 0;
		values[5] = LSNGetDatum(w.kafka_committed_lsn);
		nulls[5] = !committed;
		values[6] = Int32GetDatum(w.kafka_committed_index);
		nulls[6] = !committed || w.kafka_committed_index < 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

Datum
cdc_kafka_table_counters(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid		   *relids;
	int64	   *records;
	int64	   *bytes;
	TimestampTz *last;
	int			n;

	require_shared_memory();
	InitMaterializedSRF(fcinfo, 0);
	n = status_table_stats_snapshot(MyDatabaseId, &relids, &records, &bytes, &last);
	for (int i = 0; i < n; i++)
	{
		Datum		values[4] = {ObjectIdGetDatum(relids[i]), Int64GetDatum(records[i]),
		Int64GetDatum(bytes[i]), TimestampTzGetDatum(last[i])};
		bool		nulls[4] = {false, false, false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * cdc_kafka.slot_failover(slot name) RETURNS boolean, extension version 1.1:
 * whether the replication slot is a failover slot (false before
 * PostgreSQL 17), null if there is no such slot.  The status view of 1.1
 * asks it about each worker's slot; worker_status() keeps the columns 1.0's
 * view was created with, so that the library serves both versions.
 */
Datum
cdc_kafka_slot_failover(PG_FUNCTION_ARGS)
{
	Name		slot = PG_GETARG_NAME(0);
	ReplicationSlot *rs;
	bool		failover = false;

	LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
	rs = SearchNamedReplicationSlot(NameStr(*slot), false);
	if (rs != NULL)
	{
		SpinLockAcquire(&rs->mutex);
		failover = compat_slot_is_failover(rs->data);
		SpinLockRelease(&rs->mutex);
	}
	LWLockRelease(ReplicationSlotControlLock);
	if (rs == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BOOL(failover);
}
