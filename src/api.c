/*-------------------------------------------------------------------------
 *
 * api.c
 *		The SQL interface of the streaming worker: start and stop it,
 *		manage the captured tables, the slot and its position, skip a
 *		refused record, and read its status.
 *
 * Every function acts on the current database's worker.  Commands reach
 * the worker through its status slot in shared memory and its latch; the
 * functions that need the worker to let go of the slot (reset_offsets) or
 * to stop wait for it to say it did.  The functions are revoked from
 * PUBLIC by the install script.
 *
 * src/api.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_publication.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_lsn.h"
#include "utils/regproc.h"
#include "utils/timestamp.h"

#include "cdc_kafka.h"
#include "worker.h"

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
PG_FUNCTION_INFO_V1(cdc_kafka_table_counters);

/* How long the functions wait for the worker to act on a command. */
#define COMMAND_WAIT_MS 30000

/* ---- helpers ------------------------------------------------------------------- */

static void
require_shared_memory(void)
{
	if (cdc_shared == NULL)
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
	return cdcshm_find_worker(current_dbname());
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
	SpinLockAcquire(&ws->mutex);
	ws->command = cmd;
	ws->command_done = false;
	SpinLockRelease(&ws->mutex);
	cdcshm_wake(ws);
}

/* Wait until the worker is in one of two states (or gone); false on timeout. */
static bool
wait_for_state(CdcWorkerStatus *ws, CdcWorkerState a, CdcWorkerState b)
{
	for (int waited = 0; waited < COMMAND_WAIT_MS; waited += 100)
	{
		CdcWorkerState state;
		pid_t		pid;

		SpinLockAcquire(&ws->mutex);
		state = ws->state;
		pid = ws->pid;
		SpinLockRelease(&ws->mutex);
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

	SPI_connect();
	SPI_execute(psprintf("UPDATE cdc_kafka.worker_state SET enabled = %s",
						 enabled ? "true" : "false"), false, 0);
	SPI_finish();
	if (!registered)
	{
		RegisterXactCallback(send_at_commit, NULL);
		registered = true;
	}
	pending_worker = ws;
}

/* ---- start, stop, restart ---------------------------------------------------------- */

Datum
cdc_kafka_start(PG_FUNCTION_ARGS)
{
	CdcWorkerStatus *ws = my_worker_or_error();

	set_enabled(ws, true);
	PG_RETURN_TEXT_P(cstring_to_text("streaming starts when this transaction commits"));
}

Datum
cdc_kafka_stop(PG_FUNCTION_ARGS)
{
	CdcWorkerStatus *ws = my_worker();

	set_enabled(ws, false);
	PG_RETURN_TEXT_P(cstring_to_text("streaming stops when this transaction commits"));
}

Datum
cdc_kafka_restart(PG_FUNCTION_ARGS)
{
	CdcWorkerStatus *ws = my_worker_or_error();

	send_command(ws, CDC_CMD_RESTART);
	PG_RETURN_TEXT_P(cstring_to_text("streaming restarts from the slot's confirmed position"));
}

/* ---- captured tables -------------------------------------------------------------------- */

static const char *
publication_name(void)
{
	return cdc_publication_name;
}

static Datum
tables_result(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(publication_name())};

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	SPI_connect();
	SPI_execute_with_args("SELECT format('%I.%I', schemaname, tablename)::regclass "
						  "FROM pg_publication_tables WHERE pubname = $1 "
						  "AND schemaname <> '" CDC_EXTENSION_SCHEMA "' ORDER BY 1::text",
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

static void
alter_publication(ArrayType *tables, const char *verb)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	StringInfoData sql;

	(void) my_publication();
	deconstruct_array(tables, REGCLASSOID, sizeof(Oid), true, TYPALIGN_INT, &elems, &nulls, &n);
	if (n == 0)
		return;
	initStringInfo(&sql);
	appendStringInfo(&sql, "ALTER PUBLICATION %s %s TABLE ", quote_identifier(publication_name()), verb);
	for (int i = 0; i < n; i++)
	{
		Oid			relid = DatumGetObjectId(elems[i]);

		if (nulls[i])
			continue;
		appendStringInfo(&sql, "%s%s.%s", i > 0 ? ", " : "",
						 quote_identifier(get_namespace_name(get_rel_namespace(relid))),
						 quote_identifier(get_rel_name(relid)));
	}
	SPI_connect();
	SPI_execute(sql.data, false, 0);
	SPI_finish();
}

Datum
cdc_kafka_add_tables(PG_FUNCTION_ARGS)
{
	alter_publication(PG_GETARG_ARRAYTYPE_P(0), "ADD");
	return tables_result(fcinfo);
}

Datum
cdc_kafka_remove_tables(PG_FUNCTION_ARGS)
{
	alter_publication(PG_GETARG_ARRAYTYPE_P(0), "DROP");
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
	char	   *dbname = current_dbname();
	StringInfoData buf;

	if (ws != NULL && ws->slot_name[0] != '\0')
		return pstrdup(ws->slot_name);
	initStringInfo(&buf);
	for (const char *p = cdc_slot_name; *p; p++)
	{
		if (p[0] == '%' && p[1] == 'd')
		{
			for (const char *d = dbname; *d; d++)
				appendStringInfoChar(&buf, isalnum((unsigned char) *d) ?
									 pg_tolower((unsigned char) *d) : '_');
			p++;
		}
		else
			appendStringInfoChar(&buf, *p);
	}
	return buf.data;
}

static bool
slot_exists(const char *slot)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(slot)};
	bool		exists;

	SPI_connect();
	SPI_execute_with_args("SELECT 1 FROM pg_replication_slots WHERE slot_name = $1",
						  1, types, values, NULL, true, 1);
	exists = SPI_processed > 0;
	SPI_finish();
	return exists;
}

static void
slot_call(const char *sql, const char *slot, Datum extra, Oid extratype)
{
	Oid			types[2] = {TEXTOID, extratype};
	Datum		values[2] = {CStringGetTextDatum(slot), extra};

	SPI_connect();
	SPI_execute_with_args(sql, extratype == InvalidOid ? 1 : 2, types, values, NULL, false, 0);
	SPI_finish();
}

/*
 * Forget that the worker had this slot (cdc_kafka.worker_state): it will
 * not take its absence for a loss.  Returns true if it was remembered.
 */
static bool
forget_slot(const char *slot)
{
	Oid			types[1] = {NAMEOID};
	Datum		values[1] = {DirectFunctionCall1(namein, CStringGetDatum(slot))};
	bool		forgotten;

	SPI_connect();
	SPI_execute_with_args("UPDATE cdc_kafka.worker_state SET slot_name = NULL WHERE slot_name = $1",
						  1, types, values, NULL, false, 0);
	forgotten = SPI_processed > 0;
	SPI_finish();
	return forgotten;
}

Datum
cdc_kafka_create_slot(PG_FUNCTION_ARGS)
{
	char	   *slot = my_slot_name();

	if (!slot_exists(slot))
		slot_call("SELECT pg_create_logical_replication_slot($1, 'cdc_kafka')", slot, 0, InvalidOid);
	PG_RETURN_DATUM(DirectFunctionCall1(namein, CStringGetDatum(slot)));
}

Datum
cdc_kafka_drop_slot(PG_FUNCTION_ARGS)
{
	CdcWorkerStatus *ws = my_worker();
	char	   *slot = my_slot_name();
	CdcWorkerState state = CDC_STATE_UNUSED;

	if (ws != NULL)
	{
		SpinLockAcquire(&ws->mutex);
		state = ws->pid != 0 ? ws->state : CDC_STATE_STOPPED;
		SpinLockRelease(&ws->mutex);
	}
	if (state == CDC_STATE_STREAMING || state == CDC_STATE_SNAPSHOTTING ||
		state == CDC_STATE_BLOCKED || state == CDC_STATE_STARTING)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("cannot drop replication slot \"%s\" while streaming", slot),
				 errhint("Call cdc_kafka.stop() first; dropping the slot forgets its position.")));
	if (slot_exists(slot))
	{
		slot_call("SELECT pg_drop_replication_slot($1)", slot, 0, InvalidOid);
		(void) forget_slot(slot);
		ereport(LOG, (errmsg("cdc_kafka: replication slot \"%s\" dropped by %s", slot,
							 GetUserNameFromId(GetUserId(), false))));
	}
	else if (forget_slot(slot))
		ereport(LOG, (errmsg("cdc_kafka: the loss of replication slot \"%s\" (dropped from outside) accepted by %s; "
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

		SpinLockAcquire(&ws->mutex);
		done = ws->command_done && ws->state != CDC_STATE_STREAMING;
		pid = ws->pid;
		SpinLockRelease(&ws->mutex);
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
 * A position reset_offsets() can move the slot to: not past the WAL flushed
 * (pg_replication_slot_advance would stop there, silently), not before the
 * WAL the slot still holds.
 */
static void
check_reset_position(const char *slot, XLogRecPtr lsn)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(slot)};
	XLogRecPtr	flushed = GetFlushRecPtr(NULL);
	XLogRecPtr	restart = InvalidXLogRecPtr;
	bool		found;

	SPI_connect();
	SPI_execute_with_args("SELECT restart_lsn FROM pg_replication_slots WHERE slot_name = $1",
						  1, types, values, NULL, true, 1);
	found = SPI_processed == 1;
	if (found)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		restart = isnull ? InvalidXLogRecPtr : DatumGetLSN(d);
	}
	SPI_finish();
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("replication slot \"%s\" does not exist", slot)));
	if (lsn > flushed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot move replication slot \"%s\" to %X/%X, beyond the end of WAL",
						slot, LSN_FORMAT_ARGS(lsn)),
				 errdetail("WAL is flushed up to %X/%X.", LSN_FORMAT_ARGS(flushed)),
				 errhint("Use a position at or before pg_current_wal_flush_lsn().")));
	if (XLogRecPtrIsInvalid(restart) || lsn < restart)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot move replication slot \"%s\" to %X/%X, before the WAL it holds",
						slot, LSN_FORMAT_ARGS(lsn)),
				 XLogRecPtrIsInvalid(restart) ?
				 errdetail("The slot holds no WAL (it was invalidated).") :
				 errdetail("The slot's oldest WAL (restart_lsn) is at %X/%X; a slot only moves forward.",
						   LSN_FORMAT_ARGS(restart))));
}

/* Advance the slot; returns where it actually is afterwards. */
static XLogRecPtr
advance_slot(const char *slot, XLogRecPtr lsn)
{
	Oid			types[2] = {TEXTOID, PG_LSNOID};
	Datum		values[2] = {CStringGetTextDatum(slot), LSNGetDatum(lsn)};
	XLogRecPtr	result = InvalidXLogRecPtr;

	SPI_connect();
	SPI_execute_with_args("SELECT end_lsn FROM pg_replication_slot_advance($1, $2)",
						  2, types, values, NULL, false, 1);
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			result = DatumGetLSN(d);
	}
	SPI_finish();
	return result;
}

Datum
cdc_kafka_reset_offsets(PG_FUNCTION_ARGS)
{
	XLogRecPtr	lsn = PG_GETARG_LSN(0);
	CdcWorkerStatus *ws = my_worker();
	char	   *slot = my_slot_name();
	XLogRecPtr	moved = InvalidXLogRecPtr;

	check_reset_position(slot, lsn);
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
	ereport(LOG, (errmsg("cdc_kafka: replication slot \"%s\" moved to %X/%X by %s", slot,
						 LSN_FORMAT_ARGS(moved), GetUserNameFromId(GetUserId(), false))));
	PG_RETURN_LSN(moved);
}

Datum
cdc_kafka_skip_record(PG_FUNCTION_ARGS)
{
	XLogRecPtr	lsn = PG_GETARG_LSN(0);
	CdcWorkerStatus *ws = my_worker_or_error();
	CdcWorkerState state;
	XLogRecPtr	blocked;
	char		table[CDC_TEXT_LEN];

	SpinLockAcquire(&ws->mutex);
	state = ws->state;
	blocked = ws->blocked_lsn;
	strlcpy(table, ws->blocked_table, CDC_TEXT_LEN);
	if (state == CDC_STATE_BLOCKED && blocked == lsn)
		ws->skip_lsn = lsn;
	SpinLockRelease(&ws->mutex);
	if (state != CDC_STATE_BLOCKED || blocked != lsn)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no refused record at LSN %X/%X to skip", LSN_FORMAT_ARGS(lsn)),
				 errhint("cdc_kafka.status shows the refused record (blocked_lsn) of a blocked worker.")));
	ereport(LOG,
			(errmsg("cdc_kafka: %s asked to skip the refused record of table %s at LSN %X/%X",
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

		if (!cdc_shared->workers[i].in_use)
			continue;
		SpinLockAcquire(&cdc_shared->workers[i].mutex);
		memcpy(&copy, &cdc_shared->workers[i], sizeof(copy));
		SpinLockRelease(&cdc_shared->workers[i].mutex);
		if (!copy.in_use)
			continue;
		status_row(&copy, values, nulls);
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
	n = cdcshm_table_stats_snapshot(MyDatabaseId, &relids, &records, &bytes, &last);
	for (int i = 0; i < n; i++)
	{
		Datum		values[4] = {ObjectIdGetDatum(relids[i]), Int64GetDatum(records[i]),
		Int64GetDatum(bytes[i]), TimestampTzGetDatum(last[i])};
		bool		nulls[4] = {false, false, false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
