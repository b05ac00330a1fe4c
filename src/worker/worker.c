/*-------------------------------------------------------------------------
 *
 * worker.c
 *		The streaming worker of one database.
 *
 * The launcher starts one per database of cdc_kafka.databases.  The worker
 * waits, visibly and logging each reason once, until it can stream (Kafka
 * servers configured, cdc_kafka in output_plugin_libraries, the extension
 * created, streaming not stopped with cdc_kafka.stop()); creates the
 * publication and the slot if they are missing (a slot it had that went
 * missing, or was invalidated, is lost: state slot_lost until the operator
 * accepts the loss, see slot_vanished); then runs streaming
 * sessions (stream.c).  A session ends when the settings change, when the
 * SQL API asks, when Kafka refuses a record for good (the worker then waits
 * for cdc_kafka.skip_record() or new settings), or when the producer fails
 * fatally (a new session rebuilds it and resumes from the last confirmed
 * position).  Any other error ends the process; the launcher's registration
 * restarts it after cdc_kafka.restart_delay.  Nothing here can take the
 * server down: errors are ERRORs of this process only.  Every message of
 * the process carries the context 'cdc_kafka worker for database "x"'.
 *
 * src/worker/worker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "replication/logical.h"
#include "replication/slot.h"
#include "storage/lwlock.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/varlena.h"

#include "plugin/colhash.h"
#include "plugin/colmask.h"
#include "plugin/compat.h"
#include "plugin/options.h"
#include "plugin/optvalue.h"
#include "plugin/outbox.h"
#include "plugin/plugin.h"
#include "plugin/registry.h"
#include "plugin/unwrap.h"
#include "worker/privilege.h"
#include "worker/settings.h"
#include "worker/status.h"
#include "worker/incremental.h"
#include "worker/snapshot.h"
#include "worker/stream.h"
#include "worker/worker.h"

/* How long a session gets, when it ends, to have its records acknowledged. */
#define SESSION_FLUSH_MS	5000
/* How often a waiting worker looks again without being woken. */
#define WAIT_RECHECK_MS		5000
/* How long a worker blocked on a refused record waits before trying again. */
#define BLOCKED_RETRY_MS	60000

static CdcWorkerStatus *MyStatus = NULL;
static char my_dbname[NAMEDATALEN];	/* this worker's database */
static char last_logged[CDC_TEXT_LEN];
static char *session_fingerprint = NULL;
/* snapshot_mode always: the snapshot of this process's first session is taken */
static bool startup_snapshot_done = false;

/* ---- small helpers ------------------------------------------------------------ */

/* Publish a state; log its reason once, the first time it is entered. */
static void
set_state(CdcWorkerState state, const char *detail, int elevel)
{
	status_set_state(MyStatus, state, detail);
	pgstat_report_activity(state == CDC_STATE_STREAMING ? STATE_RUNNING : STATE_IDLE, detail);
	if (detail != NULL && strcmp(detail, last_logged) != 0)
	{
		ereport(elevel, (errmsg("%s", detail)));
		strlcpy(last_logged, detail, sizeof(last_logged));
	}
}

/* Sleep until woken (SIGHUP, a command) or ms pass; handle SIGTERM, reloads. */
static void
worker_wait(long ms)
{
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, ms,
					 PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
}

static CdcCommand
take_command(void)
{
	CdcCommand	cmd;

	LWLockAcquire(MyStatus->lock, LW_EXCLUSIVE);
	cmd = MyStatus->command;
	if (cmd != CDC_CMD_RELEASE_SLOT)
		MyStatus->command = CDC_CMD_NONE;
	MyStatus->command_done = (cmd != CDC_CMD_NONE);
	LWLockRelease(MyStatus->lock);
	return cmd;
}

static bool
slot_release_requested(void)
{
	bool		result;

	LWLockAcquire(MyStatus->lock, LW_EXCLUSIVE);
	result = MyStatus->command == CDC_CMD_RELEASE_SLOT;
	if (result)
		MyStatus->command_done = true;
	LWLockRelease(MyStatus->lock);
	return result;
}

/* The slot name: see settings_slot_name_for(). */
static char *
slot_name(void)
{
	return settings_slot_name_for(my_dbname);
}

/*
 * Another database of cdc_kafka.databases whose slot would have our
 * slot's name (a slot_name without %d, or names that differ only in case
 * or punctuation), or NULL.
 */
static char *
slot_shared_with(const char *slot)
{
	char	   *copy = pstrdup(settings_databases);
	List	   *names;
	ListCell   *lc;

	if (!SplitIdentifierString(copy, ',', &names))
		return NULL;
	foreach(lc, names)
	{
		char	   *db = lfirst(lc);

		if (strcmp(db, my_dbname) != 0 && strcmp(settings_slot_name_for(db), slot) == 0)
			return db;
	}
	return NULL;
}

/*
 * cdc_kafka.topic_prefix (%d: the database name), or the database name;
 * sanitised as a topic name, since a database name may hold characters
 * Kafka does not allow.
 */
static const char *
topic_prefix(void)
{
	return settings_topic_prefix_for(my_dbname);
}

/* One prefix for several databases: their equal keys would share topics. */
static void
warn_shared_prefix(void)
{
	char	   *copy = pstrdup(settings_databases);
	List	   *names;

	if (settings_topic_prefix[0] == '\0' || strstr(settings_topic_prefix, "%d") != NULL ||
		!SplitIdentifierString(copy, ',', &names) || list_length(names) < 2)
		return;
	ereport(WARNING,
			(errmsg("cdc_kafka.topic_prefix \"%s\" is used by all %d databases of cdc_kafka.databases",
					settings_topic_prefix, list_length(names)),
			 errdetail("Their tables of the same name go to the same topics."),
			 errhint("Put %%d in cdc_kafka.topic_prefix for the database name, or leave it empty.")));
}

static void add_plugin_options(CdcStreamConfig *cfg);

/*
 * Every setting a session depends on, to notice a reload that changes one:
 * the plugin options the settings make (add_plugin_options, so a new
 * option cannot be forgotten here), then what the session itself uses.
 */
static char *
config_fingerprint(void)
{
	CdcStreamConfig cfg;
	StringInfoData fp;

	memset(&cfg, 0, sizeof(cfg));
	add_plugin_options(&cfg);
	initStringInfo(&fp);
	for (int i = 0; i < cfg.noptions; i++)
		appendStringInfo(&fp, "%s=%s|", cfg.option_names[i],
						 cfg.option_values[i] ? cfg.option_values[i] : "");
	appendStringInfo(&fp, "%s|%s|%d|%d|%s|%s|%s|%d|%d|%d|%s|%s",
					 settings_bootstrap_servers, settings_slot_name, settings_slot_failover,
					 settings_publication_autocreate, settings_table_include_list,
					 settings_kafka_properties, settings_kafka_secrets_file,
					 settings_max_inflight_kb, settings_heartbeat_interval_ms,
					 settings_delivery, settings_offsets_topic,
					 settings_schema_registry_ca_file);
	return fp.data;
}

/* ---- what must hold before streaming ------------------------------------------ */

static bool
plugin_allowed(void)
{
	char	   *copy = pstrdup(output_plugin_libraries_string ? output_plugin_libraries_string : "");
	List	   *names;
	ListCell   *lc;
	bool		found = false;

	if (!SplitIdentifierString(copy, ',', &names))
		return false;
	foreach(lc, names)
		found |= strcmp(lfirst(lc), CDC_PLUGIN_NAME) == 0;
	return found;
}

/* In a transaction: is the extension there, and is streaming enabled? */
static bool
extension_ready(bool *enabled)
{
	MemoryContext cxt = CurrentMemoryContext;
	bool		present;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	present = OidIsValid(get_extension_oid("cdc_kafka", true));
	*enabled = false;
	if (present && SPI_connect() == SPI_OK_CONNECT)
	{
		if (SPI_execute("SELECT enabled FROM cdc_kafka.worker_state", true, 1) == SPI_OK_SELECT &&
			SPI_processed == 1)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

			*enabled = !isnull && DatumGetBool(d);
		}
		SPI_finish();
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	return present;
}

/*
 * Wait until streaming may start; returns false if a waiting state was
 * entered and the caller should look again later.
 */
static bool
ready_to_stream(void)
{
	bool		enabled;

	if (settings_bootstrap_servers == NULL || settings_bootstrap_servers[0] == '\0')
		set_state(CDC_STATE_WAITING, "waiting for cdc_kafka.bootstrap_servers to be set", LOG);
	else if (!plugin_allowed())
		set_state(CDC_STATE_WAITING,
				  "waiting for cdc_kafka to be listed in output_plugin_libraries "
				  "(add it in postgresql.conf: output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka', and reload)",
				  WARNING);
	else if (!extension_ready(&enabled))
		set_state(CDC_STATE_WAITING, "waiting for CREATE EXTENSION cdc_kafka", LOG);
	/* a stopped worker must also say it lets go of the slot */
	else if (slot_release_requested())
		set_state(CDC_STATE_STOPPED, "slot released for a slot operation", LOG);
	else if (!enabled)
	{
		/* keep a more specific reason (snapshot_mode initial_only) */
		if (status_get_state(MyStatus) != CDC_STATE_STOPPED)
			set_state(CDC_STATE_STOPPED, "stopped by cdc_kafka.stop()", LOG);
	}
	else
		return true;
	return false;
}

/* ---- publication and slot ------------------------------------------------------ */

static bool
run_sql_bool(const char *sql, int nargs, Oid *types, Datum *values)
{
	bool		result = false;

	if (SPI_execute_with_args(sql, nargs, types, values, NULL, true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		result = !isnull && DatumGetBool(d);
	}
	return result;
}

/* The FOR TABLE list of a filtered publication, from cdc_kafka.table_include_list. */
static char *
include_list_sql(void)
{
	char	   *copy = pstrdup(settings_table_include_list);
	List	   *names;
	ListCell   *lc;
	StringInfoData buf;

	initStringInfo(&buf);
	if (!SplitIdentifierString(copy, ',', &names))
		return buf.data;
	foreach(lc, names)
	{
		char	   *name = lfirst(lc);
		char	   *dot = strchr(name, '.');

		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		if (dot != NULL)
		{
			*dot = '\0';
			appendStringInfo(&buf, "%s.%s", quote_identifier(name), quote_identifier(dot + 1));
		}
		else					/* not left to the worker's search_path */
			appendStringInfo(&buf, "public.%s", quote_identifier(name));
	}
	return buf.data;
}

/*
 * Is cdc_kafka.table_include_list other than when last applied?  (Records
 * it as applied.)  The list is applied when it changes, not at every start:
 * add_tables() and remove_tables() made since stay.
 */
static bool
include_list_changed(void)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(settings_table_include_list)};

	SPI_execute_with_args("UPDATE cdc_kafka.worker_state SET include_list_applied = $1 "
						  "WHERE include_list_applied IS DISTINCT FROM $1::pg_catalog.text",
						  1, types, values, NULL, false, 0);
	return SPI_processed > 0;
}

typedef enum PublicationCondition
{
	PUBLICATION_OK,
	PUBLICATION_MISSING,		/* and autocreate disabled */
	PUBLICATION_ALL_TABLES		/* FOR ALL TABLES, and autocreate filtered */
} PublicationCondition;

/* Create the publication as cdc_kafka.publication_autocreate_mode says. */
static PublicationCondition
ensure_publication(void)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(settings_publication_name)};
	const char *pub = quote_identifier(settings_publication_name);
	char	   *tables = include_list_sql();

	if (run_sql_bool("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_publication "
					 "WHERE pubname OPERATOR(pg_catalog.=) $1::pg_catalog.name)",
					 1, types, values))
	{
		/* its tables cannot be set: say so, rather than fail on every start */
		if (settings_publication_autocreate == CDC_PUBLICATION_FILTERED &&
			run_sql_bool("SELECT puballtables FROM pg_catalog.pg_publication "
						 "WHERE pubname OPERATOR(pg_catalog.=) $1",
						 1, types, values))
			return PUBLICATION_ALL_TABLES;
		if (settings_publication_autocreate == CDC_PUBLICATION_FILTERED && tables[0] != '\0' &&
			include_list_changed())
		{
			SPI_execute(psprintf("ALTER PUBLICATION %s SET TABLE %s", pub, tables), false, 0);
			ereport(LOG, (errmsg("cdc_kafka set the tables of publication \"%s\" to cdc_kafka.table_include_list",
								 settings_publication_name)));
		}
		return PUBLICATION_OK;
	}
	(void) include_list_changed();	/* the new publication follows the list */
	if (settings_publication_autocreate == CDC_PUBLICATION_DISABLED)
		return PUBLICATION_MISSING;
	if (settings_publication_autocreate == CDC_PUBLICATION_ALL_TABLES)
		SPI_execute(psprintf("CREATE PUBLICATION %s FOR ALL TABLES", pub), false, 0);
	else if (tables[0] != '\0')
		SPI_execute(psprintf("CREATE PUBLICATION %s FOR TABLE %s", pub, tables), false, 0);
	else
		SPI_execute(psprintf("CREATE PUBLICATION %s", pub), false, 0);
	ereport(LOG, (errmsg("cdc_kafka created publication \"%s\"", settings_publication_name)));
	return PUBLICATION_OK;
}

static void
ensure_slot(const char *slot)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(slot)};

	if (run_sql_bool("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_replication_slots "
					 "WHERE slot_name OPERATOR(pg_catalog.=) $1::pg_catalog.name)",
					 1, types, values))
		return;
	SPI_execute_with_args("SELECT pg_catalog.pg_create_logical_replication_slot($1::pg_catalog.name, "
						  "'cdc_kafka'::pg_catalog.name)",
						  1, types, values, NULL, false, 0);
	ereport(LOG, (errmsg("cdc_kafka created replication slot \"%s\"", slot)));
}

/* The publication; false (state set) if it cannot be had. */
static bool
prepare_publication(void)
{
	MemoryContext cxt = CurrentMemoryContext;
	PublicationCondition cond;

	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	cond = ensure_publication();
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	if (cond == PUBLICATION_MISSING)
		set_state(CDC_STATE_WAITING,
				  psprintf("waiting for publication \"%s\" (cdc_kafka.publication_autocreate_mode is disabled)",
						   settings_publication_name),
				  WARNING);
	else if (cond == PUBLICATION_ALL_TABLES)
	{
		/* a state of its own: looked at again every WAIT_RECHECK_MS, logged once */
		set_state(CDC_STATE_ERROR,
				  psprintf("publication \"%s\" is FOR ALL TABLES, but cdc_kafka.publication_autocreate_mode "
						   "is filtered: its tables cannot be set to cdc_kafka.table_include_list; "
						   "drop the publication (the worker creates it) or use mode all_tables",
						   settings_publication_name),
				  WARNING);
		status_set_error(MyStatus, MyStatus->detail);
	}
	return cond == PUBLICATION_OK;
}

/* A slot without a snapshot (snapshot_mode no_data), in its own transaction. */
static void
create_plain_slot(const char *slot)
{
	MemoryContext cxt = CurrentMemoryContext;

	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	ensure_slot(slot);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
}

typedef enum SlotCondition
{
	SLOT_MISSING,
	SLOT_VALID,
	SLOT_INVALID				/* invalidated: its WAL is gone */
} SlotCondition;

static SlotCondition
slot_condition(const char *slot)
{
	SlotCondition result = SLOT_MISSING;
	ReplicationSlot *rs;

	LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
	rs = SearchNamedReplicationSlot(slot, false);
	if (rs != NULL)
	{
		SpinLockAcquire(&rs->mutex);
		result = (XLogRecPtrIsInvalid(rs->data.restart_lsn) ||
				  compat_slot_invalidated(rs->data)) ? SLOT_INVALID : SLOT_VALID;
		SpinLockRelease(&rs->mutex);
	}
	LWLockRelease(ReplicationSlotControlLock);
	return result;
}

/*
 * The slot the worker has had, in cdc_kafka.worker_state: remembered
 * across restarts of the worker and the server, so a slot that vanishes
 * is told apart from one never created.  slot NULL forgets it.
 */
static void
remember_slot_sql(const char *slot)
{
	Oid			types[1] = {NAMEOID};
	Datum		values[1] = {slot ? DirectFunctionCall1(namein, CStringGetDatum(slot)) : (Datum) 0};

	SPI_execute_with_args("UPDATE cdc_kafka.worker_state SET slot_name = $1 "
						  "WHERE slot_name IS DISTINCT FROM $1",
						  1, types, values, slot ? NULL : "n", false, 0);
}

static void
remember_slot(const char *slot)
{
	MemoryContext cxt = CurrentMemoryContext;

	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	remember_slot_sql(slot);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
}

/* Has the worker had this slot (and not let go of it on purpose)? */
static bool
slot_remembered(const char *slot)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid			types[1] = {NAMEOID};
	Datum		values[1] = {DirectFunctionCall1(namein, CStringGetDatum(slot))};
	bool		result;

	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	result = run_sql_bool("SELECT EXISTS (SELECT 1 FROM cdc_kafka.worker_state "
						  "WHERE slot_name OPERATOR(pg_catalog.=) $1)",
						  1, types, values);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	return result;
}

static void
drop_slot(const char *slot, const char *why)
{
	ReplicationSlotDrop(slot, true);
	snapshot_forget_initial(slot);
	remember_slot(NULL);
	ereport(LOG, (errmsg("cdc_kafka dropped replication slot \"%s\": %s", slot, why)));
}

/*
 * The slot the worker had is gone (pg_drop_replication_slot() from
 * outside): the changes since its position are lost.  Say so and stop,
 * unless snapshot_mode when_needed asks for a new snapshot then.  Returns
 * true if a new slot may be created.
 */
static bool
slot_vanished(const char *slot)
{
	if (settings_snapshot_mode == CDC_SNAPSHOT_WHEN_NEEDED)
	{
		ereport(WARNING,
				(errmsg("replication slot \"%s\" was dropped from outside cdc_kafka; "
						"snapshot_mode when_needed takes a new slot and a new snapshot", slot),
				 errdetail("The changes between the slot's last position and the new snapshot were not streamed.")));
		remember_slot(NULL);
		return true;
	}
	set_state(CDC_STATE_SLOT_LOST,
			  psprintf("replication slot \"%s\" was dropped from outside cdc_kafka: "
					   "the changes after its last position are gone; accept the loss with "
					   "cdc_kafka.drop_slot() (a new slot takes a new snapshot), "
					   "or set cdc_kafka.snapshot_mode = when_needed",
					   slot),
			  WARNING);
	status_set_error(MyStatus, MyStatus->detail);
	return false;
}

/* ---- a session --------------------------------------------------------------------- */

static void
add_option(CdcStreamConfig *cfg, const char *name, const char *value)
{
	if (cfg->noptions >= CDC_MAX_STREAM_OPTIONS)
		elog(ERROR, "more than %d plugin options", CDC_MAX_STREAM_OPTIONS);
	cfg->option_names[cfg->noptions] = name;
	cfg->option_values[cfg->noptions] = value;
	cfg->noptions++;
}

/* A column rule setting that its check hook let through and that does not parse. */
static void
rule_setting_valid(const char *setting, const char *err)
{
	if (err != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for setting \"%s\"", setting),
				 errdetail("%s", err)));
}

/*
 * cdc_kafka.column_mask_with_chars, column_truncate_to_chars and
 * column_mask_hash as the options column_mask_with_<n>_chars,
 * column_truncate_to_<n>_chars and column_mask_hash_*; the source type
 * lists as their options.
 */
static void
add_column_masks(CdcStreamConfig *cfg)
{
	List	   *names = NIL;
	List	   *lists = NIL;
	ListCell   *ln;
	ListCell   *ll;

	/* checked by the settings' check hooks; never silently left out */
	rule_setting_valid("cdc_kafka.column_truncate_to_chars",
					   colmask_setting_options(settings_column_truncate_to_chars, true,
											   &names, &lists));
	rule_setting_valid("cdc_kafka.column_mask_with_chars",
					   colmask_setting_options(settings_column_mask_with_chars, false,
											   &names, &lists));
	rule_setting_valid("cdc_kafka.column_mask_hash",
					   colhash_setting_options(settings_column_mask_hash, &names, &lists));
	if (settings_column_propagate_source_type[0] != '\0')
		add_option(cfg, "column_propagate_source_type", settings_column_propagate_source_type);
	if (settings_datatype_propagate_source_type[0] != '\0')
		add_option(cfg, "datatype_propagate_source_type", settings_datatype_propagate_source_type);
	forboth(ln, names, ll, lists)
		add_option(cfg, lfirst(ln), lfirst(ll));
}

static const char *
bool_text(bool b)
{
	return b ? "true" : "false";
}

/* The plugin options the settings make. */
static void
add_plugin_options(CdcStreamConfig *cfg)
{
	add_option(cfg, "output_format", "binary");
	add_option(cfg, "publication_names", quote_identifier(settings_publication_name));
	add_option(cfg, "topic_prefix", topic_prefix());
	add_option(cfg, "schemas", bool_text(settings_schemas));
	add_option(cfg, "decimal_handling_mode",
			   options_value_name(options_decimal_modes, settings_decimal_mode));
	add_option(cfg, "binary_handling_mode",
			   options_value_name(options_binary_modes, settings_binary_mode));
	add_option(cfg, "time_precision_mode",
			   options_value_name(options_time_modes, settings_time_mode));
	add_option(cfg, "interval_handling_mode",
			   options_value_name(options_interval_modes, settings_interval_mode));
	add_option(cfg, "hstore_handling_mode",
			   options_value_name(options_hstore_modes, settings_hstore_mode));
	add_option(cfg, "tombstones_on_delete", bool_text(settings_tombstones_on_delete));
	add_option(cfg, "skipped_operations", settings_skipped_operations);
	add_option(cfg, "provide_transaction_metadata", bool_text(settings_transaction_metadata));
	add_option(cfg, "unavailable_value_placeholder", settings_unavailable_placeholder);
	add_option(cfg, "money_fraction_digits", psprintf("%d", settings_money_fraction_digits));
	add_option(cfg, "extended_headers_enabled", bool_text(settings_extended_headers));
	add_option(cfg, "watermark_prefix", CDC_WATERMARK_PREFIX);
	add_option(cfg, "transforms", settings_transforms);
	add_option(cfg, "unwrap_add_fields", settings_unwrap_add_fields);
	add_option(cfg, "unwrap_add_fields_prefix", settings_unwrap_add_fields_prefix);
	add_option(cfg, "unwrap_add_headers", settings_unwrap_add_headers);
	add_option(cfg, "unwrap_add_headers_prefix", settings_unwrap_add_headers_prefix);
	add_option(cfg, "unwrap_delete_tombstone_handling_mode",
			   options_value_name(unwrap_delete_modes, settings_unwrap_delete_mode));
	add_option(cfg, "unwrap_route_by_field", settings_unwrap_route_by_field);
	add_option(cfg, "unwrap_drop_fields_header_name", settings_unwrap_drop_fields_header_name);
	add_option(cfg, "unwrap_drop_fields_from_key", bool_text(settings_unwrap_drop_fields_from_key));
	add_option(cfg, "unwrap_drop_fields_keep_schema_compatible",
			   bool_text(settings_unwrap_drop_fields_keep_schema_compatible));
	add_option(cfg, "unwrap_replace_null_with_default",
			   bool_text(settings_unwrap_replace_null_with_default));
	add_option(cfg, "outbox_table_field_event_id", settings_outbox_table_field_event_id);
	add_option(cfg, "outbox_table_field_event_key", settings_outbox_table_field_event_key);
	add_option(cfg, "outbox_table_field_event_type", settings_outbox_table_field_event_type);
	add_option(cfg, "outbox_table_field_event_payload", settings_outbox_table_field_event_payload);
	add_option(cfg, "outbox_table_field_event_timestamp", settings_outbox_table_field_event_timestamp);
	add_option(cfg, "outbox_table_fields_additional_placement", settings_outbox_table_fields_additional_placement);
	add_option(cfg, "outbox_table_field_event_schema_version", settings_outbox_table_field_event_schema_version);
	add_option(cfg, "outbox_route_by_field", settings_outbox_route_by_field);
	add_option(cfg, "outbox_route_topic_regex", settings_outbox_route_topic_regex);
	add_option(cfg, "outbox_route_topic_replacement", settings_outbox_route_topic_replacement);
	add_option(cfg, "outbox_route_tombstone_on_empty_payload", bool_text(settings_outbox_route_tombstone_on_empty_payload));
	add_option(cfg, "outbox_table_expand_json_payload", bool_text(settings_outbox_table_expand_json_payload));
	add_option(cfg, "outbox_table_field_additional_missing",
			   options_value_name(outbox_missing_behaviors, settings_outbox_table_field_additional_missing));
	add_option(cfg, "outbox_table_op_invalid_behavior",
			   options_value_name(outbox_invalid_op_behaviors, settings_outbox_table_op_invalid_behavior));
	add_option(cfg, "outbox_table_json_payload_null_behavior",
			   options_value_name(outbox_null_behaviors, settings_outbox_table_json_payload_null_behavior));
	add_option(cfg, "outbox_field_name_adjustment_mode",
			   options_value_name(optvalue_name_adjustment_modes, settings_outbox_field_name_adjustment_mode));
	add_option(cfg, "route_topic_regex", settings_route_topic_regex);
	add_option(cfg, "route_topic_replacement", settings_route_topic_replacement);
	add_option(cfg, "route_key_field_name", settings_route_key_field_name);
	add_option(cfg, "route_key_field_regex", settings_route_key_field_regex);
	add_option(cfg, "route_key_field_replacement", settings_route_key_field_replacement);
	add_option(cfg, "route_key_enforce_uniqueness",
			   bool_text(settings_route_key_enforce_uniqueness));
	add_option(cfg, "route_schema_name_adjustment_mode",
			   options_value_name(optvalue_name_adjustment_modes,
								  settings_route_schema_name_mode));
	if (settings_message_key_columns[0] != '\0')
		add_option(cfg, "message_key_columns", settings_message_key_columns);
	add_column_masks(cfg);
	add_option(cfg, "topic_delimiter", settings_topic_delimiter);
	add_option(cfg, "topic_transaction", settings_topic_transaction);
	add_option(cfg, "topic_heartbeat_prefix", settings_topic_heartbeat_prefix);
	add_option(cfg, "message_prefix_include_list", settings_message_prefix_include_list);
	add_option(cfg, "message_prefix_exclude_list", settings_message_prefix_exclude_list);
	add_option(cfg, "schema_name_adjustment_mode",
			   options_value_name(optvalue_name_adjustment_modes, settings_schema_name_mode));
	add_option(cfg, "field_name_adjustment_mode",
			   options_value_name(optvalue_name_adjustment_modes, settings_field_name_mode));
	add_option(cfg, "include_unknown_datatypes",
			   bool_text(settings_include_unknown_datatypes));
	if (settings_record_format == CDC_FORMAT_AVRO)
	{
		add_option(cfg, "format", "avro");
		if (settings_schema_registry_url[0] != '\0')
			add_option(cfg, "schema_registry_url", settings_schema_registry_url);
	}
}

/* A session's configuration: the plugin options, what to skip or send alone. */
static void
build_config(CdcStreamConfig *cfg, const char *slot)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->dbname = my_dbname;
	cfg->slot_name = slot;
	add_plugin_options(cfg);
	LWLockAcquire(MyStatus->lock, LW_SHARED);
	cfg->skip_lsn = MyStatus->skip_lsn;
	cfg->skip_index = MyStatus->skip_index;
	cfg->careful_until = MyStatus->careful_until;
	cfg->careful_job = MyStatus->careful_job;
	LWLockRelease(MyStatus->lock);
}

static void
publish_names(const char *slot)
{
	const char *prefix = topic_prefix();

	LWLockAcquire(MyStatus->lock, LW_EXCLUSIVE);
	strlcpy(MyStatus->slot_name, slot, NAMEDATALEN);
	strlcpy(MyStatus->publication, settings_publication_name, NAMEDATALEN);
	strlcpy(MyStatus->topic_prefix, prefix, CDC_TEXT_LEN);
	strlcpy(MyStatus->broker, settings_bootstrap_servers, CDC_TEXT_LEN);
	LWLockRelease(MyStatus->lock);
}

/* "schema.table" of relid, in a short transaction. */
static char *
table_name(Oid relid)
{
	MemoryContext cxt = CurrentMemoryContext;
	char	   *rel;
	char	   *result;

	StartTransactionCommand();
	rel = get_rel_name(relid);
	result = MemoryContextStrdup(cxt, rel == NULL ? "?" :
								 psprintf("%s.%s", get_namespace_name(get_rel_namespace(relid)), rel));
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	return result;
}

/* The session stopped at a record Kafka (or the schema registry) refused: say which, and wait. */
static void
report_blocked(CdcStream *s)
{
	char	   *table = OidIsValid(s->blocked_relid) ? table_name(s->blocked_relid) : "(none)";
	bool		by_registry = stream_blocked_by_registry(s);
	const char *what = s->blocked_job != 0 ?
		psprintf("a row of incremental snapshot %lld", (long long) s->blocked_job) : "a record";
	char	   *refusal;
	char	   *way_out;
	char	   *detail;

	LWLockAcquire(MyStatus->lock, LW_EXCLUSIVE);
	strlcpy(MyStatus->blocked_table, table, CDC_TEXT_LEN);
	strlcpy(MyStatus->blocked_key, s->blocked_key, CDC_TEXT_LEN);
	MyStatus->blocked_lsn = s->blocked_lsn;
	MyStatus->skip_index = s->blocked_index;
	MyStatus->blocked_job = s->blocked_job;
	MyStatus->blocked_key_hash = s->blocked_key_hash;
	LWLockRelease(MyStatus->lock);
	refusal = by_registry ? psprintf("%s, for %s", s->blocked_reason, what) :
		psprintf("Kafka refused %s (%s)", what, rd_kafka_err2str(s->blocked_err));
	way_out = psprintf("cdc_kafka.skip_record('%X/%X') %s", LSN_FORMAT_ARGS(s->blocked_lsn),
					   s->blocked_job != 0 ? "leaves the row out" : "skips it");
	if (s->blocked_job != 0)
		way_out = psprintf("%s, cdc_kafka.cancel_snapshot(%lld) ends the snapshot", way_out,
						   (long long) s->blocked_job);
	if (by_registry)
		way_out = psprintf("%s, cdc_kafka.restart() tries again (once the subject's compatibility rule allows it; "
						   "a change of settings restarts by itself)",
						   way_out);
	/* the reason and the way out first: a key can be long */
	detail = psprintf("%s; streaming waits at LSN %X/%X, %s; table %s, topic \"%s\", key %s",
					  refusal, LSN_FORMAT_ARGS(s->blocked_lsn), way_out, table,
					  s->blocked_topic, s->blocked_key);
	status_set_error(MyStatus, detail);
	set_state(CDC_STATE_BLOCKED, detail, WARNING);
}

/*
 * Once the slot is confirmed past a refused record, forget it: the skip
 * request, the blocked record in the status, and (ending the session) the
 * one-record batches.  Returns true if the session should end.
 */
static bool
past_refusal(CdcStream *s)
{
	bool		end = false;

	LWLockAcquire(MyStatus->lock, LW_EXCLUSIVE);
	if (MyStatus->skip_lsn != InvalidXLogRecPtr && s->confirmed > MyStatus->skip_lsn)
		MyStatus->skip_lsn = InvalidXLogRecPtr;
	if ((s->careful_until != InvalidXLogRecPtr && s->confirmed >= s->careful_until) ||
		(s->careful_job != 0 && MyStatus->careful_job == 0))
	{
		MyStatus->careful_until = InvalidXLogRecPtr;
		MyStatus->blocked_lsn = InvalidXLogRecPtr;
		MyStatus->blocked_table[0] = '\0';
		MyStatus->blocked_key[0] = '\0';
		MyStatus->blocked_job = 0;
		end = true;
	}
	LWLockRelease(MyStatus->lock);
	if (end)
		ereport(LOG, (errmsg("past the refused record; records are batched again")));
	return end;
}

/* Does the session have to end?  (Settings changed, a command, a block.) */
static bool
session_should_end(CdcStream *s, const char *fingerprint)
{
	CdcCommand	cmd;

	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
		if (strcmp(fingerprint, config_fingerprint()) != 0)
		{
			ereport(LOG, (errmsg("settings changed, restarting streaming")));
			return true;
		}
	}
	cmd = take_command();
	if (cmd == CDC_CMD_RESTART || cmd == CDC_CMD_RELOAD || cmd == CDC_CMD_RELEASE_SLOT)
		return true;
	return s->blocked || s->abandoned;
}

/*
 * Asked by a session stuck waiting for Kafka: is there a reload or a
 * command to act on?  (Only looks: session_should_end acts.)
 */
static bool
session_interrupted(void)
{
	bool		command;

	LWLockAcquire(MyStatus->lock, LW_SHARED);
	command = MyStatus->command != CDC_CMD_NONE;
	LWLockRelease(MyStatus->lock);
	return command || ConfigReloadPending;
}

static void
stream_until_done(CdcStream *s, const CdcStreamConfig *cfg, const char *fingerprint)
{
	CdcOptions	hb;
	TimestampTz last_heartbeat = GetCurrentTimestamp();
	MemoryContext sessioncxt = CurrentMemoryContext;
	MemoryContext passcxt = AllocSetContextCreate(sessioncxt, "cdc_kafka stream pass",
												  ALLOCSET_DEFAULT_SIZES);

	/* heartbeats are written with the session's plugin options (topics, route) */
	stream_plugin_options(&hb, cfg);
	while (!session_should_end(s, fingerprint))
	{
		bool		caught_up;
		bool		busy;

		/* whatever a pass allocates is gone by the next one */
		MemoryContextSwitchTo(passcxt);
		MemoryContextReset(passcxt);
		caught_up = stream_read(s, 200);

		stream_poll(s, 0);
		stream_commit_due(s, caught_up);
		stream_confirm(s, false);
		/* cleared before the new position is published */
		if (past_refusal(s))
			break;
		busy = incremental_step(s);
		if (settings_heartbeat_interval_ms > 0 &&
			TimestampDifferenceExceeds(last_heartbeat, GetCurrentTimestamp(),
									   settings_heartbeat_interval_ms))
		{
			stream_heartbeat(s, &hb);
			last_heartbeat = GetCurrentTimestamp();
		}
		stream_publish_status(s, false);
		if (!caught_up || busy)
			continue;
		/*
		 * Caught up: wait for WAL, the reports of what is in flight, the
		 * latch; the postmaster's death ends the process here too.
		 */
		stream_wait_for_wal(s, settings_poll_interval_ms);
		CHECK_FOR_INTERRUPTS();
	}
	MemoryContextSwitchTo(sessioncxt);
	MemoryContextDelete(passcxt);
}

/* Does the initial snapshot have to stop?  (A command, changed settings.) */
static bool
snapshot_interrupted(void)
{
	CdcCommand	cmd = take_command();

	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
		if (strcmp(session_fingerprint, config_fingerprint()) != 0)
			return true;
	}
	return cmd != CDC_CMD_NONE;
}

/* snapshot_mode initial_only: the snapshot is all; no slot is kept. */
static void
finish_initial_only(CdcStream *s, const char *slot)
{
	MemoryContext cxt = CurrentMemoryContext;

	stream_close(s, SESSION_FLUSH_MS);
	drop_slot(slot, "snapshot_mode is initial_only");
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_execute("UPDATE cdc_kafka.worker_state SET enabled = false", false, 0);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	set_state(CDC_STATE_STOPPED,
			  "initial snapshot done; snapshot_mode initial_only does not stream "
			  "(cdc_kafka.start() takes a new snapshot)", LOG);
}

/*
 * Give an existing slot the failover flag cdc_kafka.slot_failover asks for
 * (a new one is created with it): on, a standby with sync_replication_slots
 * keeps a copy that its worker continues from after promotion.
 */
static void
align_slot_failover(const char *slot)
{
	ReplicationSlot *rs;
	bool		failover;

	LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
	rs = SearchNamedReplicationSlot(slot, false);
	failover = rs != NULL && compat_slot_is_failover(rs->data);
	LWLockRelease(ReplicationSlotControlLock);
	if (rs == NULL || failover == settings_slot_failover)
		return;
	compat_slot_set_failover(slot, settings_slot_failover);
	ereport(LOG,
			(errmsg("cdc_kafka set replication slot \"%s\" to %s", slot,
					settings_slot_failover ? "failover" : "no failover"),
			 errdetail("cdc_kafka.slot_failover is %s.", settings_slot_failover ? "on" : "off")));
}

/*
 * Open the session as cdc_kafka.snapshot_mode says, taking the initial
 * snapshot if the slot is new.  NULL: no streaming now (state set).
 */
static CdcStream *
open_session(CdcStreamConfig *cfg, const char *slot)
{
	SlotCondition cond = slot_condition(slot);
	CdcStream  *s;

	if (cond == SLOT_MISSING && slot_remembered(slot) && !slot_vanished(slot))
		return NULL;
	if (cond == SLOT_INVALID && settings_snapshot_mode == CDC_SNAPSHOT_WHEN_NEEDED)
	{
		drop_slot(slot, "it was invalidated, and snapshot_mode when_needed takes a new snapshot");
		cond = SLOT_MISSING;
	}
	if (cond == SLOT_VALID && settings_snapshot_mode == CDC_SNAPSHOT_INITIAL_ONLY)
	{
		/* an unfinished initial_only snapshot starts over */
		if (!snapshot_initial_pending(slot))
		{
			set_state(CDC_STATE_STOPPED, "snapshot_mode initial_only does not stream", LOG);
			return NULL;
		}
		drop_slot(slot, "its initial_only snapshot was interrupted and starts over");
		cond = SLOT_MISSING;
	}
	if (cond == SLOT_MISSING && settings_snapshot_mode == CDC_SNAPSHOT_NO_DATA)
	{
		snapshot_forget_initial(slot);
		create_plain_slot(slot);
	}
	else if (cond == SLOT_MISSING && settings_snapshot_chunked &&
			 settings_snapshot_mode != CDC_SNAPSHOT_INITIAL_ONLY)
	{
		/* the rows come while streaming, chunk by chunk: no long transaction */
		snapshot_forget_initial(slot);
		create_plain_slot(slot);
		incremental_request_all(settings_publication_name, "initial");
		startup_snapshot_done = true;
	}
	else if (cond == SLOT_MISSING)
	{
		snapshot_forget_initial(slot);
		s = snapshot_initial(MyStatus, cfg, settings_publication_name, snapshot_interrupted);
		if (s != NULL && settings_snapshot_mode == CDC_SNAPSHOT_INITIAL_ONLY)
		{
			finish_initial_only(s, slot);
			return NULL;
		}
		startup_snapshot_done = true;
		return s;
	}
	if (settings_snapshot_mode == CDC_SNAPSHOT_ALWAYS && !startup_snapshot_done)
		incremental_request_all(settings_publication_name, "startup");
	startup_snapshot_done = true;
	align_slot_failover(slot);
	s = stream_open(MyStatus, cfg);
	/* after the open: an exactly_once stream knows what Kafka has of it */
	if (s != NULL && snapshot_initial_pending(slot))
	{
		if (s->resumed_snapshot != NULL)
			snapshot_adopt_progress(slot, s->resumed_snapshot, s->confirmed);
		snapshot_resume_initial(slot);
	}
	return s;
}

static void
run_session(void)
{
	char	   *slot = slot_name();
	CdcStreamConfig cfg;
	CdcStream  *s;

	if (session_fingerprint != NULL)
		pfree(session_fingerprint);
	session_fingerprint = MemoryContextStrdup(TopMemoryContext, config_fingerprint());
	if (slot_shared_with(slot) != NULL)
	{
		/* the launcher refuses to start such a worker: a reload can race it */
		char	   *why = psprintf("replication slot name \"%s\" is also the slot name of database \"%s\": "
								   "give cdc_kafka.slot_name a %%d, or rename one of the databases",
								   slot, slot_shared_with(slot));

		set_state(CDC_STATE_ERROR, why, WARNING);
		status_set_error(MyStatus, why);
		return;
	}
	if (!prepare_publication())
		return;
	(void) take_command();		/* whatever was asked before now is done by starting */
	build_config(&cfg, slot);
	/* the registry's CA; its credentials come with the secrets file (producer.c) */
	registry_set_ca_file(settings_schema_registry_ca_file);
	publish_names(slot);
	warn_shared_prefix();
	s = open_session(&cfg, slot);
	if (s == NULL)
	{
		if (slot_condition(slot) == SLOT_INVALID)
		{
			char	   *detail =
			psprintf("replication slot \"%s\" was invalidated (max_slot_wal_keep_size): "
					 "changes after its last position are gone; drop it with "
					 "cdc_kafka.drop_slot() and start again (a new slot takes a new snapshot), "
					 "or set cdc_kafka.snapshot_mode = when_needed",
					 slot);

			set_state(CDC_STATE_SLOT_LOST, detail, WARNING);
			status_set_error(MyStatus, detail);
		}
		return;
	}
	remember_slot(slot);
	set_state(CDC_STATE_STREAMING, psprintf("streaming %sslot \"%s\" to %s",
											settings_slot_failover ? "failover " : "", slot,
											settings_bootstrap_servers), LOG);
	s->should_stop = session_interrupted;
	if (s->resumed_incremental != NULL)
		incremental_adopt_progress(s->resumed_incremental);
	incremental_session_start(s, &cfg);
	stream_until_done(s, &cfg, session_fingerprint);
	incremental_session_end();
	/* the registry names the very record it refuses: no need to look for it */
	if (s->blocked && s->blocked_job != 0 && cfg.careful_job == 0 && !stream_blocked_by_registry(s))
	{
		/* as below, for a snapshot's row: its LSN is new at each read */
		LWLockAcquire(MyStatus->lock, LW_EXCLUSIVE);
		MyStatus->careful_job = s->blocked_job;
		LWLockRelease(MyStatus->lock);
		ereport(LOG,
				(errmsg("Kafka refused a row of incremental snapshot %lld (%s); sending one record per batch to find which",
						(long long) s->blocked_job, rd_kafka_err2str(s->blocked_err))));
		stream_close(s, 0);
		return;
	}
	if (s->blocked && s->blocked_job == 0 && cfg.careful_until == InvalidXLogRecPtr &&
		!stream_blocked_by_registry(s))
	{
		/*
		 * The broker refuses a produce batch whole, so the record named may
		 * be an innocent neighbour: go again, one record per batch, up to
		 * all that was read, to find the one it cannot take.
		 */
		LWLockAcquire(MyStatus->lock, LW_EXCLUSIVE);
		MyStatus->careful_until = Max(s->ctx ? s->ctx->reader->EndRecPtr : 0, s->blocked_lsn);
		LWLockRelease(MyStatus->lock);
		ereport(LOG,
				(errmsg("Kafka refused a record near LSN %X/%X (%s); sending one record per batch to find which",
						LSN_FORMAT_ARGS(s->blocked_lsn), rd_kafka_err2str(s->blocked_err))));
		stream_close(s, 0);
		return;
	}
	if (s->blocked)
	{
		report_blocked(s);		/* before stream_close frees s */
		stream_close(s, 0);
		return;
	}
	stream_close(s, SESSION_FLUSH_MS);
}

/* ---- the process ----------------------------------------------------------------- */

/* Which worker a message comes from (the context line of all its messages). */
static void
worker_error_context(void *arg)
{
	errcontext("cdc_kafka worker for database \"%s\"", my_dbname);
}

static void
worker_exit(int code, Datum arg)
{
	if (MyStatus == NULL)
		return;
	LWLockAcquire(MyStatus->lock, LW_EXCLUSIVE);
	MyStatus->pid = 0;
	MyStatus->reading_job = 0;
	if (code != 0 && MyStatus->state != CDC_STATE_SLOT_LOST &&
		MyStatus->state != CDC_STATE_FENCED)
		MyStatus->state = CDC_STATE_ERROR;
	LWLockRelease(MyStatus->lock);
}

static uint32
fingerprint_hash(void)
{
	char	   *fp = config_fingerprint();

	return hash_bytes((const unsigned char *) fp, strlen(fp));
}

/* Keep the error that ends the process in the status view. */
static void
record_error(void)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	ErrorData  *edata = CopyErrorData();

	MemoryContextSwitchTo(oldcxt);
	/* the detail says which setting, line or property: keep it too */
	status_set_error(MyStatus, edata->detail == NULL ? edata->message :
					 psprintf("%s: %s", edata->message, edata->detail));
	if (stream_fenced())
	{
		/* starting again would fence the other one: a loop; wait for the operator */
		uint32		config = fingerprint_hash();

		status_set_state(MyStatus, CDC_STATE_FENCED,
						 "fenced: another producer streams this slot with the same transactional id; "
						 "stopped until cdc_kafka.restart() or a change of settings");
		LWLockAcquire(MyStatus->lock, LW_EXCLUSIVE);
		MyStatus->fenced_config = config;
		LWLockRelease(MyStatus->lock);
		return;
	}
	status_set_state(MyStatus, CDC_STATE_ERROR,
					 psprintf("stopped on an error; restarts in %d s", settings_restart_delay_s));
}

/*
 * A fenced worker stays stopped (another server streams its slot) until
 * cdc_kafka.restart() (or start()), or until its settings change.
 */
static bool
still_fenced(void)
{
	uint32		fenced_config;

	if (status_get_state(MyStatus) != CDC_STATE_FENCED)
		return false;
	LWLockAcquire(MyStatus->lock, LW_SHARED);
	fenced_config = MyStatus->fenced_config;
	LWLockRelease(MyStatus->lock);
	if (take_command() == CDC_CMD_NONE &&
		fingerprint_hash() == fenced_config)
		return true;
	set_state(CDC_STATE_STARTING, "starting again after being fenced", LOG);
	return false;
}

static void
worker_loop(void)
{
	MemoryContext loopcxt = AllocSetContextCreate(TopMemoryContext, "cdc_kafka worker loop",
												  ALLOCSET_DEFAULT_SIZES);

	for (;;)
	{
		CdcWorkerState state;

		MemoryContextSwitchTo(loopcxt);
		MemoryContextReset(loopcxt);
		if (still_fenced())
		{
			worker_wait(WAIT_RECHECK_MS);
			continue;
		}
		if (ready_to_stream())
			run_session();
		state = status_get_state(MyStatus);
		if (state == CDC_STATE_STREAMING)
			continue;			/* a session ended on purpose: start the next */
		worker_wait(state == CDC_STATE_BLOCKED ? BLOCKED_RETRY_MS : WAIT_RECHECK_MS);
	}
}

void
cdc_kafka_worker_main(Datum arg)
{
	/* for the life of the process: an ERROR ends it */
	static ErrorContextCallback errcallback = {.callback = worker_error_context};

	memcpy(my_dbname, MyBgworkerEntry->bgw_extra, NAMEDATALEN);
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(my_dbname, NULL, 0);
	privilege_pin_search_path();

	MyStatus = status_find_worker(my_dbname);
	if (MyStatus == NULL)
		proc_exit(0);			/* the launcher gave up on this database */
	LWLockAcquire(MyStatus->lock, LW_EXCLUSIVE);
	MyStatus->pid = MyProcPid;
	if (MyStatus->state != CDC_STATE_FENCED)
		MyStatus->state = CDC_STATE_STARTING;
	MyStatus->reading_job = 0;
	LWLockRelease(MyStatus->lock);
	before_shmem_exit(worker_exit, 0);
	pgstat_report_appname("cdc_kafka worker");

	PG_TRY();
	{
		worker_loop();
	}
	PG_CATCH();
	{
		record_error();
		PG_RE_THROW();
	}
	PG_END_TRY();
}
