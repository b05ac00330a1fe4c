/*-------------------------------------------------------------------------
 *
 * launcher.c
 *		The cdc_kafka launcher: one streaming worker per database listed in
 *		cdc_kafka.databases, restarted after cdc_kafka.restart_delay when it
 *		stops on an error.
 *
 * The launcher is a static background worker, registered when the library
 * is preloaded.  It connects to no database (only the shared catalogs, to
 * know which databases exist) and registers the workers as dynamic
 * background workers that notify it when they stop.  On reload it starts
 * workers for databases added to the list and stops those of databases
 * removed from it.  A worker's status slot stays assigned while its
 * database is listed, so the SQL views keep showing why it stopped.
 *
 * src/launcher.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
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

#include "worker.h"

/* The launcher's view of each status slot's worker process. */
typedef struct LauncherEntry
{
	BackgroundWorkerHandle *handle;
	TimestampTz stopped_at;		/* when it was seen stopped; 0 while running */
	bool		warned;			/* "cannot start" already logged */
} LauncherEntry;

static LauncherEntry entries[CDC_MAX_WORKERS];

void
launcher_register(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
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
	char	   *copy = pstrdup(cdc_databases ? cdc_databases : "");
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

/* Keep the worker of one listed database running, with the restart pause. */
static void
keep_running(const char *dbname)
{
	CdcWorkerStatus *ws = cdcshm_claim_worker(dbname);
	LauncherEntry *e;
	pid_t		pid;
	TimestampTz now = GetCurrentTimestamp();

	if (ws == NULL)
	{
		ereport(WARNING,
				(errmsg("cdc_kafka streams at most %d databases; \"%s\" is not streamed",
						CDC_MAX_WORKERS, dbname)));
		return;
	}
	e = &entries[ws - cdc_shared->workers];
	if (e->handle != NULL &&
		GetBackgroundWorkerPid(e->handle, &pid) != BGWH_STOPPED)
		return;
	if (e->handle != NULL && e->stopped_at == 0)
		e->stopped_at = now;
	if (e->stopped_at != 0 &&
		!TimestampDifferenceExceeds(e->stopped_at, now, cdc_restart_delay_s * 1000))
		return;
	if (!database_exists(dbname))
	{
		cdcshm_set_state(ws, CDC_STATE_WAITING,
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

/* Stop the workers of databases no longer listed and free their slots. */
static void
stop_unlisted(List *listed)
{
	for (int i = 0; i < CDC_MAX_WORKERS; i++)
	{
		CdcWorkerStatus *ws = &cdc_shared->workers[i];
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
		cdcshm_release_worker(ws);
	}
}

void
cdc_kafka_launcher_main(Datum arg)
{
	MemoryContext loopcxt;

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
		}
		listed = listed_databases();
		stop_unlisted(listed);
		foreach(lc, listed)
			keep_running(lfirst(lc));

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
