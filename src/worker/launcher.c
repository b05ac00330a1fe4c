/*-------------------------------------------------------------------------
 *
 * launcher.c
 *		The cdc_kafka launcher: one streaming worker per database listed in
 *		cdc_kafka.databases, restarted after cdc_kafka.restart_delay (and
 *		longer pauses if it keeps failing) when it stops on an error.
 *
 * A worker that stops on an error again and again is restarted after
 * longer and longer pauses (up to a minute), so that a failure that only
 * shows at run time costs a log line now and then, not a loop.  A database
 * whose worker cannot run with the settings as they are (two databases on
 * one slot, a topic prefix Kafka refuses) gets no worker: its status says
 * why until the settings are put right.
 *
 * The launcher is a static background worker, registered when the library
 * is preloaded.  It connects to no database (only the shared catalogs, to
 * know which databases exist) and registers the workers as dynamic
 * background workers that notify it when they stop.  On reload it starts
 * workers for databases added to the list and stops those of databases
 * removed from it.  A worker's status slot stays assigned while its
 * database is listed, so the SQL views keep showing why it stopped.
 * On a hot standby the launcher runs but starts no worker: the statuses say
 * the server is in recovery, and the workers start when it is promoted.
 * Every message of the launcher carries the context "cdc_kafka launcher".
 *
 * src/worker/launcher.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_database.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "worker/launcher.h"
#include "worker/settings.h"
#include "worker/status.h"
#include "worker/worker.h"

/* Longest pause before a failing worker is started again, unless restart_delay is longer. */
#define MAX_BACKOFF_MS		60000

/* The launcher's view of each status slot's worker process. */
typedef struct LauncherEntry
{
	BackgroundWorkerHandle *handle;
	TimestampTz stopped_at;		/* when it was seen stopped; 0 while running */
	int			failures;		/* stops in a row without streaming in between */
	long		delay_ms;		/* pause before the next start */
	bool		streamed;		/* the running worker reached state streaming */
	bool		warned;			/* "cannot start" already logged */
	char		refused[CDC_TEXT_LEN];	/* why no worker may run, logged once */
} LauncherEntry;

static LauncherEntry entries[CDC_MAX_WORKERS];
static bool warned_too_many = false;
static bool logged_recovery = false;

#define IN_RECOVERY_DETAIL \
	"server is in recovery (a standby): cdc_kafka streams after promotion"

void
launcher_register(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	/* on a hot standby too, to say in the status why nothing streams there */
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = 5;
	strlcpy(worker.bgw_library_name, "cdc_kafka", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "cdc_kafka_launcher_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "cdc_kafka launcher", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "cdc_kafka launcher", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

/*
 * Is there such a database?  The launcher has no database of its own, so
 * it scans pg_database (a shared catalog) the way autovacuum's launcher
 * does, rather than through the catalog caches.
 */
static bool
database_exists(const char *dbname)
{
	MemoryContext cxt = CurrentMemoryContext;
	bool		exists = false;
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;

	StartTransactionCommand();
	(void) GetTransactionSnapshot();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while (!exists && (tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
		exists = strcmp(NameStr(((Form_pg_database) GETSTRUCT(tup))->datname), dbname) == 0;
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	return exists;
}

static List *
listed_databases(void)
{
	char	   *copy = pstrdup(settings_databases ? settings_databases : "");
	List	   *names = NIL;

	if (!SplitIdentifierString(copy, ',', &names))
		names = NIL;
	return names;
}

static bool
start_worker(CdcWorkerStatus *ws, LauncherEntry *e)
{
	BackgroundWorker worker;
	MemoryContext oldcxt = CurrentMemoryContext;
	bool		registered;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(worker.bgw_library_name, "cdc_kafka", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "cdc_kafka_worker_main", BGW_MAXLEN);
	snprintf(worker.bgw_name, BGW_MAXLEN, "cdc_kafka worker for database %s", ws->dbname);
	strlcpy(worker.bgw_type, "cdc_kafka worker", BGW_MAXLEN);
	memcpy(worker.bgw_extra, ws->dbname, NAMEDATALEN);
	worker.bgw_notify_pid = MyProcPid;

	/* the handle outlives the loop's memory context */
	MemoryContextSwitchTo(TopMemoryContext);
	registered = RegisterDynamicBackgroundWorker(&worker, &e->handle);
	MemoryContextSwitchTo(oldcxt);
	if (!registered)
	{
		if (!e->warned)
			ereport(WARNING,
					(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
					 errmsg("cdc_kafka could not start the worker for database \"%s\"", ws->dbname),
					 errhint("You may need to increase max_worker_processes.")));
		e->warned = true;
		e->handle = NULL;
		return false;
	}
	e->warned = false;
	e->stopped_at = 0;
	return true;
}

/*
 * Why dbname's worker may not run with the settings as they are, or NULL:
 * what the settings' check hooks cannot see, because it depends on the
 * database's name or on two settings.  Two workers must never share a slot.
 */
static char *
refusal(const char *dbname, List *listed)
{
	char	   *slot = settings_slot_name_for(dbname);
	char	   *prefix = settings_topic_prefix_for(dbname);
	ListCell   *lc;

	foreach(lc, listed)
	{
		const char *other = lfirst(lc);

		if (strcmp(other, dbname) != 0 && strcmp(settings_slot_name_for(other), slot) == 0)
			return psprintf("databases \"%s\" and \"%s\" would share replication slot \"%s\"; "
							"neither is streamed until cdc_kafka.slot_name has %%d or one leaves cdc_kafka.databases",
							dbname, other, slot);
	}
	if (!settings_topic_prefix_valid(prefix))
		return psprintf("topic prefix \"%s\" made from the name of database \"%s\" is not a valid "
						"Kafka topic name (1 to 200 of A-Z, a-z, 0-9, '.', '_', '-'); "
						"set cdc_kafka.topic_prefix", prefix, dbname);
	return NULL;
}

/* No worker may run for ws: stop it if it runs, say why in its status and once in the log. */
static void
refuse(CdcWorkerStatus *ws, LauncherEntry *e, const char *why)
{
	pid_t		pid;

	if (e->handle != NULL && GetBackgroundWorkerPid(e->handle, &pid) != BGWH_STOPPED)
		TerminateBackgroundWorker(e->handle);
	/* set again while the stopping worker may still write its own state */
	status_set_state(ws, CDC_STATE_ERROR, why);
	if (strcmp(e->refused, why) == 0)
		return;
	strlcpy(e->refused, why, sizeof(e->refused));
	status_set_error(ws, why);
	ereport(WARNING,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cdc_kafka cannot stream database \"%s\"", ws->dbname),
			 errdetail("%s", why)));
}

/*
 * A worker seen stopped: the pause before the next start doubles with each
 * stop in a row (cdc_kafka.restart_delay, twice that, ... up to a minute or
 * restart_delay if longer); a worker that reached streaming starts afresh.
 */
static void
note_stopped(CdcWorkerStatus *ws, LauncherEntry *e, TimestampTz now)
{
	long		base = settings_restart_delay_s * 1000L;
	long		cap = Max(base, MAX_BACKOFF_MS);
	CdcWorkerState state;

	if (e->streamed)
		e->failures = 0;
	e->streamed = false;
	e->failures++;
	e->delay_ms = base;
	for (int i = 1; i < e->failures && e->delay_ms < cap; i++)
		e->delay_ms *= 2;
	e->delay_ms = Min(e->delay_ms, cap);
	e->stopped_at = now;
	state = status_get_state(ws);
	if (state == CDC_STATE_ERROR)
		status_set_state(ws, CDC_STATE_ERROR,
						 psprintf("stopped on an error; restarts in %ld s", e->delay_ms / 1000));
}

/* Keep the worker of one listed database running, with the restart pause. */
static void
keep_running(const char *dbname, List *listed)
{
	CdcWorkerStatus *ws = status_claim_worker(dbname);
	LauncherEntry *e;
	pid_t		pid;
	TimestampTz now = GetCurrentTimestamp();
	char	   *why;

	if (ws == NULL)
	{
		/* cdc_kafka.databases' check hook allows no more: say it once */
		if (!warned_too_many)
			ereport(WARNING,
					(errmsg("cdc_kafka streams at most %d databases; \"%s\" is not streamed",
							CDC_MAX_WORKERS, dbname)));
		warned_too_many = true;
		return;
	}
	e = &entries[ws - status_state->workers];
	why = refusal(dbname, listed);
	if (why != NULL)
	{
		refuse(ws, e, why);
		return;
	}
	if (e->refused[0] != '\0')
	{
		/* the settings were put right: start at once */
		e->refused[0] = '\0';
		e->failures = 0;
		if (e->handle != NULL && GetBackgroundWorkerPid(e->handle, &pid) == BGWH_STOPPED)
		{
			pfree(e->handle);
			e->handle = NULL;
			e->stopped_at = 0;
		}
	}
	if (e->handle != NULL &&
		GetBackgroundWorkerPid(e->handle, &pid) != BGWH_STOPPED)
	{
		CdcWorkerState state;

		state = status_get_state(ws);
		e->streamed |= (state == CDC_STATE_STREAMING);
		return;
	}
	if (e->handle != NULL && e->stopped_at == 0)
		note_stopped(ws, e, now);
	if (e->stopped_at != 0 &&
		!TimestampDifferenceExceeds(e->stopped_at, now, e->delay_ms))
		return;
	if (!database_exists(dbname))
	{
		status_set_state(ws, CDC_STATE_WAITING,
						 "database listed in cdc_kafka.databases does not exist");
		if (!e->warned)
			ereport(WARNING,
					(errmsg("database \"%s\" listed in cdc_kafka.databases does not exist", dbname)));
		e->warned = true;
		e->handle = NULL;
		return;
	}
	start_worker(ws, e);
}

/*
 * A standby cannot stream: the worker writes (its publication, its state
 * table, the watermarks of incremental snapshots), and a slot synchronized
 * from the primary may not be decoded before promotion.  Each listed
 * database's status says so, the log once; the workers start once the
 * server is promoted.
 */
static void
wait_for_promotion(List *listed)
{
	ListCell   *lc;

	foreach(lc, listed)
	{
		CdcWorkerStatus *ws = status_claim_worker(lfirst(lc));

		if (ws != NULL)
			status_set_state(ws, CDC_STATE_WAITING, IN_RECOVERY_DETAIL);
	}
	if (!logged_recovery && listed != NIL)
		ereport(LOG,
				(errmsg("cdc_kafka waits for the end of recovery"),
				 errdetail("The server is a standby; the workers of cdc_kafka.databases start after promotion.")));
	logged_recovery = true;
}

/* Stop the workers of databases no longer listed and free their slots. */
static void
stop_unlisted(List *listed)
{
	for (int i = 0; i < CDC_MAX_WORKERS; i++)
	{
		CdcWorkerStatus *ws = &status_state->workers[i];
		LauncherEntry *e = &entries[i];
		ListCell   *lc;
		bool		wanted = false;

		if (!ws->in_use)
			continue;
		foreach(lc, listed)
			wanted |= strcmp(lfirst(lc), ws->dbname) == 0;
		if (wanted)
			continue;
		if (e->handle != NULL)
		{
			TerminateBackgroundWorker(e->handle);
			pfree(e->handle);
		}
		memset(e, 0, sizeof(*e));
		status_release_worker(ws);
	}
}

/*
 * After a reload, workers stopped on an error start again at once: the new
 * settings may have put right what they stopped on.
 */
static void
retry_stopped_workers(void)
{
	for (int i = 0; i < CDC_MAX_WORKERS; i++)
	{
		LauncherEntry *e = &entries[i];
		pid_t		pid;

		if (e->handle != NULL && e->stopped_at != 0 &&
			GetBackgroundWorkerPid(e->handle, &pid) == BGWH_STOPPED)
		{
			pfree(e->handle);
			e->handle = NULL;
			e->stopped_at = 0;
			e->failures = 0;
		}
	}
}

/* Which process a message comes from (the context line of all its messages). */
static void
launcher_error_context(void *arg)
{
	errcontext("cdc_kafka launcher");
}

void
cdc_kafka_launcher_main(Datum arg)
{
	/* for the life of the process: an ERROR ends it */
	static ErrorContextCallback errcallback = {.callback = launcher_error_context};
	MemoryContext loopcxt;

	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("cdc_kafka launcher");
	loopcxt = AllocSetContextCreate(TopMemoryContext, "cdc_kafka launcher loop",
									ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(loopcxt);

	for (;;)
	{
		List	   *listed;
		ListCell   *lc;

		MemoryContextReset(loopcxt);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			retry_stopped_workers();
		}
		listed = listed_databases();
		if (list_length(listed) <= CDC_MAX_WORKERS)
			warned_too_many = false;
		stop_unlisted(listed);
		if (RecoveryInProgress())
			wait_for_promotion(listed);
		else
		{
			if (logged_recovery)
				ereport(LOG, (errmsg("cdc_kafka starts its workers: recovery has ended")));
			logged_recovery = false;
			foreach(lc, listed)
				keep_running(lfirst(lc), listed);
		}

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
