/*-------------------------------------------------------------------------
 *
 * status.c
 *		Shared memory of cdc_kafka: one status slot per streaming worker
 *		and the per-table counters, read by the SQL views.
 *
 * Status slots are assigned to databases by the launcher (under the array
 * lock) and survive a worker's restart, so the last error of a worker that
 * stopped on it stays visible.  Each slot has an LWLock of its own (tranche
 * "cdc_kafka", after the array lock and the table counters' lock): its
 * worker writes under it in exclusive mode, the views and commands read
 * under it in shared mode; commands from the SQL API go the other way
 * through the same slot.  The views copy a whole slot (some kilobytes),
 * which is why this is not a spinlock.
 *
 * Shared memory is requested in shmem_request_hook and set up in
 * shmem_startup_hook (PostgreSQL 15), both chained to earlier hooks.
 *
 * src/worker/status.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"

#include "worker/status.h"

/* The tranche: the array lock, the table counters' lock, one per slot. */
#define CDC_FIRST_SLOT_LOCK 2

/* How many (database, table) counters the views can show. */
#define CDC_MAX_TABLE_STATS 4096

typedef struct TableStatsKey
{
	Oid			dboid;
	Oid			relid;
} TableStatsKey;

typedef struct TableStatsEntry
{
	TableStatsKey key;
	int64		records;
	int64		bytes;
	TimestampTz last;
} TableStatsEntry;

CdcSharedState *status_state = NULL;
static HTAB *table_stats = NULL;
static LWLock *table_stats_lock = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
status_request_hook(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(CdcSharedState)));
	RequestAddinShmemSpace(hash_estimate_size(CDC_MAX_TABLE_STATS, sizeof(TableStatsEntry)));
	RequestNamedLWLockTranche("cdc_kafka", CDC_FIRST_SLOT_LOCK + CDC_MAX_WORKERS);
}

static void
status_startup_hook(void)
{
	bool		found;
	HASHCTL		ctl;
	LWLockPadded *locks;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	status_state = ShmemInitStruct("cdc_kafka", sizeof(CdcSharedState), &found);
	locks = GetNamedLWLockTranche("cdc_kafka");
	if (!found)
	{
		memset(status_state, 0, sizeof(CdcSharedState));
		status_state->lock = &locks[0].lock;
		for (int i = 0; i < CDC_MAX_WORKERS; i++)
			status_state->workers[i].lock = &locks[CDC_FIRST_SLOT_LOCK + i].lock;
	}
	table_stats_lock = &locks[1].lock;
	ctl.keysize = sizeof(TableStatsKey);
	ctl.entrysize = sizeof(TableStatsEntry);
	table_stats = ShmemInitHash("cdc_kafka table stats", CDC_MAX_TABLE_STATS,
								CDC_MAX_TABLE_STATS, &ctl, HASH_ELEM | HASH_BLOBS);
	LWLockRelease(AddinShmemInitLock);
}

/* Called from _PG_init while shared_preload_libraries is processed. */
void
status_request(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = status_request_hook;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = status_startup_hook;
}

/* ---- worker slots ----------------------------------------------------------- */

CdcWorkerStatus *
status_find_worker(const char *dbname)
{
	CdcWorkerStatus *result = NULL;

	if (status_state == NULL)
		return NULL;
	LWLockAcquire(status_state->lock, LW_SHARED);
	for (int i = 0; i < CDC_MAX_WORKERS; i++)
	{
		CdcWorkerStatus *ws = &status_state->workers[i];

		if (ws->in_use && strcmp(ws->dbname, dbname) == 0)
		{
			result = ws;
			break;
		}
	}
	LWLockRelease(status_state->lock);
	return result;
}

/* The slot of dbname, taking a free one if it has none; NULL if all are used. */
CdcWorkerStatus *
status_claim_worker(const char *dbname)
{
	CdcWorkerStatus *result = status_find_worker(dbname);

	if (result != NULL)
		return result;
	LWLockAcquire(status_state->lock, LW_EXCLUSIVE);
	for (int i = 0; i < CDC_MAX_WORKERS && result == NULL; i++)
	{
		CdcWorkerStatus *ws = &status_state->workers[i];

		if (ws->in_use)
			continue;
		LWLockAcquire(ws->lock, LW_EXCLUSIVE);
		memset(((char *) ws) + offsetof(CdcWorkerStatus, pid), 0,
			   sizeof(CdcWorkerStatus) - offsetof(CdcWorkerStatus, pid));
		ws->state = CDC_STATE_STARTING;
		LWLockRelease(ws->lock);
		strlcpy(ws->dbname, dbname, NAMEDATALEN);
		ws->in_use = true;
		result = ws;
	}
	LWLockRelease(status_state->lock);
	return result;
}

void
status_release_worker(CdcWorkerStatus *ws)
{
	LWLockAcquire(status_state->lock, LW_EXCLUSIVE);
	ws->in_use = false;
	ws->dbname[0] = '\0';
	LWLockRelease(status_state->lock);
}

/*
 * Copy slot i, if in use, into *copy (for the views): the identity under the
 * array lock, the rest under the slot's lock.
 */
bool
status_copy(int i, CdcWorkerStatus *copy)
{
	CdcWorkerStatus *ws = &status_state->workers[i];
	bool		in_use;

	LWLockAcquire(status_state->lock, LW_SHARED);
	in_use = ws->in_use;
	if (in_use)
	{
		LWLockAcquire(ws->lock, LW_SHARED);
		memcpy(copy, ws, sizeof(CdcWorkerStatus));
		LWLockRelease(ws->lock);
	}
	LWLockRelease(status_state->lock);
	return in_use;
}

CdcWorkerState
status_get_state(CdcWorkerStatus *ws)
{
	CdcWorkerState state;

	LWLockAcquire(ws->lock, LW_SHARED);
	state = ws->state;
	LWLockRelease(ws->lock);
	return state;
}

/* A name field of ws, copied under its lock; palloc'd. */
static char *
copy_name(CdcWorkerStatus *ws, const char *field)
{
	char		name[NAMEDATALEN];

	LWLockAcquire(ws->lock, LW_SHARED);
	strlcpy(name, field, NAMEDATALEN);
	LWLockRelease(ws->lock);
	return pstrdup(name);
}

/* The slot name the worker streams from, palloc'd ("" before its first session). */
char *
status_get_slot_name(CdcWorkerStatus *ws)
{
	return copy_name(ws, ws->slot_name);
}

/* The publication the worker streams, palloc'd. */
char *
status_get_publication(CdcWorkerStatus *ws)
{
	return copy_name(ws, ws->publication);
}

void
status_set_state(CdcWorkerStatus *ws, CdcWorkerState state, const char *detail)
{
	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	ws->state = state;
	strlcpy(ws->detail, detail ? detail : "", CDC_TEXT_LEN);
	LWLockRelease(ws->lock);
}

void
status_set_error(CdcWorkerStatus *ws, const char *message)
{
	TimestampTz now = GetCurrentTimestamp();

	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	strlcpy(ws->last_error, message, CDC_TEXT_LEN);
	ws->last_error_time = now;
	LWLockRelease(ws->lock);
}

void
status_set_snapshot_progress(CdcWorkerStatus *ws, const char *table, int64 rows, int64 estimated)
{
	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	if (table != NULL)
		strlcpy(ws->snapshot_table, table, CDC_TEXT_LEN);
	ws->snapshot_rows = rows;
	ws->snapshot_rows_estimated = estimated;
	LWLockRelease(ws->lock);
}

void
status_set_snapshot_wait(CdcWorkerStatus *ws, const char *what)
{
	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	strlcpy(ws->snapshot_wait, what, CDC_TEXT_LEN);
	LWLockRelease(ws->lock);
}

/* Set the worker's latch (it looks at its commands and requests). */
void
status_wake(CdcWorkerStatus *ws)
{
	pid_t		pid;

	LWLockAcquire(ws->lock, LW_SHARED);
	pid = ws->pid;
	LWLockRelease(ws->lock);
	if (pid != 0)
	{
		PGPROC	   *proc = BackendPidGetProc(pid);

		if (proc != NULL)
			SetLatch(&proc->procLatch);
	}
}

/* ---- per-table counters ----------------------------------------------------- */

void
status_table_stats_add(Oid dboid, Oid relid, int64 records, int64 bytes, TimestampTz when)
{
	TableStatsKey key = {dboid, relid};
	TableStatsEntry *e;
	bool		found;

	LWLockAcquire(table_stats_lock, LW_EXCLUSIVE);
	e = hash_search(table_stats, &key, HASH_ENTER_NULL, &found);
	if (e != NULL)
	{
		if (!found)
		{
			e->records = 0;
			e->bytes = 0;
			e->last = 0;
		}
		e->records += records;
		e->bytes += bytes;
		e->last = Max(e->last, when);
	}
	LWLockRelease(table_stats_lock);
}

/* Copy the counters of dboid into palloc'd arrays; returns how many. */
int
status_table_stats_snapshot(Oid dboid, Oid **relids, int64 **records,
							int64 **bytes, TimestampTz **last)
{
	HASH_SEQ_STATUS status;
	TableStatsEntry *e;
	int			n = 0;

	*relids = palloc(sizeof(Oid) * CDC_MAX_TABLE_STATS);
	*records = palloc(sizeof(int64) * CDC_MAX_TABLE_STATS);
	*bytes = palloc(sizeof(int64) * CDC_MAX_TABLE_STATS);
	*last = palloc(sizeof(TimestampTz) * CDC_MAX_TABLE_STATS);
	LWLockAcquire(table_stats_lock, LW_SHARED);
	hash_seq_init(&status, table_stats);
	while ((e = hash_seq_search(&status)) != NULL)
	{
		if (e->key.dboid != dboid)
			continue;
		(*relids)[n] = e->key.relid;
		(*records)[n] = e->records;
		(*bytes)[n] = e->bytes;
		(*last)[n] = e->last;
		n++;
	}
	LWLockRelease(table_stats_lock);
	return n;
}
