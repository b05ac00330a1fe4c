/*-------------------------------------------------------------------------
 *
 * incremental.c
 *		Incremental snapshots: re-read tables while streaming goes on, and
 *		the SQL functions that ask for them.
 *
 * cdc_kafka.snapshot() records a request in cdc_kafka.snapshots; the
 * worker's streaming session picks requests up in order and reads each
 * table in key-ordered chunks of cdc_kafka.incremental_snapshot_chunk_size
 * rows, following DBLog (as Debezium's incremental snapshots do):
 *
 *	1. write a low watermark (a non-transactional logical decoding message
 *	   with a token naming the chunk) and flush it;
 *	2. make sure the read sees every transaction whose commit record
 *	   precedes the low watermark (see below);
 *	3. read the chunk (as the role that asked, with its row filter, or
 *	   for a superuser's request and the worker's own as the table's
 *	   owner: see reading_role()) and write the high watermark;
 *	4. decoding goes on meanwhile: once it passes the low watermark, any
 *	   change to a key of the chunk drops that key's row from the chunk
 *	   (the change is as new or newer).  Chunks follow the table's own
 *	   key; a table whose record key (message.key.columns) lacks a column
 *	   of it is refused, since a change could not be matched to its row;
 *	5. when decoding reaches the high watermark, the rows left go to
 *	   Kafka as op "r" records with source.snapshot "incremental", in the
 *	   stream's order, then decoding goes on.
 *
 * Step 2 closes DBLog's gap between commit and visibility.  A transaction
 * writes its commit record, then marks itself committed in the commit log,
 * then (after waiting for synchronous replication, if asked to) leaves the
 * ProcArray, and only then do new snapshots see it.  If its commit record
 * precedes the low watermark, its changes are streamed before the window
 * opens and drop nothing; a read that does not see it yet would send the
 * old row last.  So, certainly and without timeouts:
 *
 *	a. right after the low watermark, note the next xid (only older ones can
 *	   have a commit record before it) and the backends inside their commit
 *	   critical section (DELAY_CHKPT_START, raised before the commit record
 *	   is inserted and lowered once the commit log is marked); wait until
 *	   they have left it (microseconds, or an fsync).  From then on,
 *	   every transaction with a commit record before the low watermark is
 *	   committed in the commit log;
 *	b. in the read's own transaction, look at its snapshot: an xid older
 *	   than the noted one that the snapshot takes for running (in xip, or
 *	   not below xmax) but that the commit log says committed may have
 *	   committed before the low watermark: do not read; wait (polling, so
 *	   streaming goes on) until it has left the ProcArray and try again
 *	   (only older xids count: the retries end).
 *	   One that is not committed commits, if ever, after the low watermark:
 *	   the window sees its changes, so idle or prepared transactions hold
 *	   nothing back.
 *
 * A commit that never ends (synchronous replication without a standby)
 * holds the snapshot, not the stream: status column snapshot_wait names
 * the transaction, its backend and what it waits for.
 *
 * So for every key, the last record in the topic is the current row.  A
 * chunk's progress (the last key read) is written to cdc_kafka.snapshots
 * once Kafka acknowledged the chunk and the slot moved past it; a restart
 * repeats at most the chunks in flight.
 *
 * WAL is not read while a chunk is: the read is bounded by
 * cdc_kafka.snapshot_chunk_timeout (a slow row filter fails its request,
 * streaming goes on), cancel_snapshot() interrupts it, and status says
 * meanwhile (state snapshotting).  A row Kafka refuses blocks the stream
 * as a refused change does; as its chunk's LSN is new at each read, it is
 * named by its job and key: skip_record() leaves that row out.
 *
 * Tables are read with tablereader.c, as the initial snapshot reads them
 * (snapshot.c).  The streaming session (stream.c) tells this module of the
 * changes and watermarks it decodes through the hooks
 * incremental_session_start hands it; incremental_step runs between its
 * decoding passes.
 *
 * src/worker/incremental.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/subtrans.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parse_coerce.h"
#include "parser/parse_collate.h"
#include "parser/parse_expr.h"
#include "parser/parse_relation.h"
#include "parser/parser.h"
#include "replication/message.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "plugin/compat.h"
#include "plugin/encoder.h"
#include "plugin/keycols.h"
#include "plugin/options.h"
#include "worker/api.h"
#include "worker/privilege.h"
#include "worker/settings.h"
#include "worker/status.h"
#include "worker/incremental.h"
#include "worker/stream.h"
#include "worker/tablereader.h"

PG_FUNCTION_INFO_V1(cdc_kafka_snapshot);
PG_FUNCTION_INFO_V1(cdc_kafka_snapshot_where);
PG_FUNCTION_INFO_V1(cdc_kafka_cancel_snapshot);

/* How long a chunk waits for a commit to end before it says so in the log. */
#define COMMIT_WAIT_WARN_MS	10000
/* A request still to do, in SQL with nothing left to the search_path. */
#define JOB_ACTIVE	"state OPERATOR(pg_catalog.=) ANY ('{pending,running}'::pg_catalog.text[])"

/* How often an idle session looks for new requests. */
#define REQUEST_POLL_MS		1000

typedef enum ChunkPhase
{
	CHUNK_NONE,					/* no chunk: look for work */
	CHUNK_WAIT_COMMITS,			/* low watermark written, commits to wait for */
	CHUNK_READ,					/* read, high watermark written: decoding will emit */
} ChunkPhase;

/* One row of the chunk: its key (to compare with changes) and its record. */
typedef struct ChunkRow
{
	char	   *key;
	int			keylen;
	int			next;			/* next row with the same key hash, or -1 */
	bool		dropped;
	StringInfoData frame;
} ChunkRow;

typedef struct KeyHashEntry
{
	uint64		hash;
	int			row;			/* first row with this hash, or -1 */
} KeyHashEntry;

/* A chunk sent but not yet acknowledged: what to record once it is. */
typedef struct PendingProgress
{
	XLogRecPtr	hw_end;
	int64		job;
	ArrayType  *last_key;		/* NULL: nothing read */
	int64		rows;
	bool		table_done;
} PendingProgress;

/* The engine of one streaming session. */
typedef struct IncState
{
	MemoryContext cxt;			/* the session's */
	MemoryContext jobcxt;		/* reset per job */
	MemoryContext chunkcxt;		/* reset per chunk */
	CdcStream  *s;
	CdcOptions	opts;
	TimestampTz next_poll;

	/* the job (a row of cdc_kafka.snapshots) */
	int64		job;
	Oid			relid;
	Oid			requester;		/* requested_by */
	bool		by_superuser;	/* requested_by_superuser */
	Oid			role;			/* who reads the table: reading_role() */
	CdcTableReader *reader;
	ArrayType  *last_key;		/* where the next chunk starts, or NULL */
	int64		rows_sent;

	/* the chunk */
	ChunkPhase	phase;
	char		token[64];
	uint64		chunk_no;
	XLogRecPtr	lw_lsn;			/* the low watermark: the LSN of the chunk's records */
	TransactionId lw_next_xid;	/* the next xid when the low watermark was written */
	VirtualTransactionId *committing;	/* writing a commit record then */
	int			ncommitting;
	TransactionId wait_xid;		/* committed, not yet visible: wait for its end */
	TimestampTz wait_start;		/* of the wait for wait_xid */
	bool		wait_warned;
	bool		window_open;
	HTAB	   *seen;			/* key hashes changed in the window before the read */
	HTAB	   *index;			/* key hash -> first ChunkRow */
	ChunkRow   *rows;
	int			nrows;
	ArrayType  *chunk_last_key;
	bool		chunk_is_last;
	XLogRecPtr	hw_end;

	List	   *pending;		/* PendingProgress, oldest first */

	/* the row Kafka refused that skip_record() asked to leave out */
	int64		skip_job;
	uint64		skip_hash;
} IncState;

static IncState *inc = NULL;

static bool cancelled(void);

/* cancel_snapshot(): the job whose running read to cancel at commit */
static int64 cancel_read_job = 0;
static CdcWorkerStatus *cancel_worker = NULL;

/* ---- requests: the cdc_kafka.snapshots table -------------------------------------- */

/* Run fn in a transaction of its own, with SPI connected. */
static void
in_transaction(void (*fn) (void *), void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;

	SetCurrentStatementStartTimestamp();	/* now() in the statements */
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
	fn(arg);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
}

typedef struct JobEnd
{
	int64		job;
	const char *state;
	const char *error;
} JobEnd;

static void
end_job_sql(void *arg)
{
	JobEnd	   *je = arg;
	Oid			types[3] = {INT8OID, TEXTOID, TEXTOID};
	Datum		values[3] = {Int64GetDatum(je->job), CStringGetTextDatum(je->state),
	(Datum) 0};
	char		nulls[3] = {' ', ' ', 'n'};

	if (je->error != NULL)
	{
		values[2] = CStringGetTextDatum(je->error);
		nulls[2] = ' ';
	}
	SPI_execute_with_args("UPDATE cdc_kafka.snapshots SET state = $2, error = $3, "
						  "finished_at = pg_catalog.now() "
						  "WHERE id OPERATOR(pg_catalog.=) $1 AND " JOB_ACTIVE,
						  3, types, values, nulls, false, 0);
}

static void
forget_job(void)
{
	inc->job = 0;
	inc->reader = NULL;
	inc->last_key = NULL;
	inc->phase = CHUNK_NONE;
	inc->window_open = false;
	inc->seen = NULL;
	inc->index = NULL;
	inc->nrows = 0;
	inc->ncommitting = 0;
	inc->wait_xid = InvalidTransactionId;
	MemoryContextReset(inc->chunkcxt);
	MemoryContextReset(inc->jobcxt);
	status_set_snapshot_progress(inc->s->ws, "", 0, 0);
	status_set_snapshot_wait(inc->s->ws, "");
}

/* End the job with a final state; error (for "failed") says why. */
static void
end_job(const char *state, const char *error)
{
	JobEnd		je = {inc->job, state, error};

	if (error != NULL)
		ereport(WARNING,
				(errmsg("incremental snapshot %lld of %s failed: %s",
						(long long) inc->job, inc->reader ? inc->reader->from : "?", error)));
	in_transaction(end_job_sql, &je);
	forget_job();
}

typedef struct JobRow
{
	bool		found;
	bool		cancelled;
	int64		id;
	Oid			relid;
	Oid			role;
	bool		by_superuser;	/* the role was a superuser when it asked */
	bool		unresolved;		/* a filter, not written by cdc_kafka.snapshot() */
	char	   *filter;			/* filter_sql: as cdc_kafka.snapshot() resolved it */
	ArrayType  *last_key;
	int64		rows;
} JobRow;

static void
next_job_sql(void *arg)
{
	JobRow	   *jr = arg;
	bool		isnull;
	TupleDesc	desc;
	HeapTuple	tup;
	MemoryContext old;

	SPI_execute("SELECT id, table_oid, requested_by, filter_sql, last_key, rows_sent, "
				"requested_by_superuser, filter IS NOT NULL AND filter_sql IS NULL "
				"FROM cdc_kafka.snapshots WHERE " JOB_ACTIVE " ORDER BY id LIMIT 1", true, 1);
	if (SPI_processed == 0)
		return;
	desc = SPI_tuptable->tupdesc;
	tup = SPI_tuptable->vals[0];
	old = MemoryContextSwitchTo(inc->jobcxt);
	jr->found = true;
	jr->id = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
	jr->relid = DatumGetObjectId(SPI_getbinval(tup, desc, 2, &isnull));
	jr->role = DatumGetObjectId(SPI_getbinval(tup, desc, 3, &isnull));
	jr->filter = SPI_getvalue(tup, desc, 4);
	{
		Datum		d = SPI_getbinval(tup, desc, 5, &isnull);

		jr->last_key = isnull ? NULL : DatumGetArrayTypePCopy(d);
	}
	jr->rows = DatumGetInt64(SPI_getbinval(tup, desc, 6, &isnull));
	jr->by_superuser = DatumGetBool(SPI_getbinval(tup, desc, 7, &isnull));
	jr->unresolved = DatumGetBool(SPI_getbinval(tup, desc, 8, &isnull));
	MemoryContextSwitchTo(old);
	SPI_execute(psprintf("UPDATE cdc_kafka.snapshots SET state = 'running', "
						 "started_at = coalesce(started_at, pg_catalog.now()) "
						 "WHERE id OPERATOR(pg_catalog.=) " INT64_FORMAT, jr->id), false, 0);
}

/* The publication's column list and row filter of the job's table. */
static CdcCapturedTable *
find_captured(Oid relid)
{
	ListCell   *lc;

	foreach(lc, tablereader_captured(status_get_publication(inc->s->ws)))
	{
		CdcCapturedTable  *t = lfirst(lc);

		if (t->relid == relid)
			return t;
	}
	return NULL;
}

typedef struct OpenJob
{
	JobRow	   *jr;
	const char *error;
} OpenJob;

/* Why a table whose record key does not identify its rows is not read. */
#define RECORD_KEY_NOT_UNIQUE \
	"the record key (cdc_kafka.message_key_columns) lacks a column of the table's primary key: " \
	"a change made while a chunk is read could not be matched to its row"

/*
 * Who reads the table for a request, decided again now (the request may
 * be old, the role changed since): the role that asked, if it still exists
 * and may read the table; for a superuser's request and the worker's own
 * (initial, startup, resumed), the table's owner, whose code the read may
 * run.  Returns why not, or NULL.
 */
static const char *
reading_role(Oid relid, Oid requester, bool by_superuser, Oid *role)
{
	Oid			owner = privilege_rel_owner(relid);
	char	   *name = GetUserNameFromId(requester, true);

	if (!OidIsValid(owner))
		return "the table was dropped";
	if (name == NULL)
		return "the role that asked for it no longer exists";
	if (superuser_arg(requester))
	{
		if (!by_superuser)
			return psprintf("role \"%s\" became a superuser after it asked for the snapshot; "
							"a superuser must ask again", name);
		*role = owner;
		return NULL;
	}
	if (pg_class_aclcheck(relid, requester, ACL_SELECT) != ACLCHECK_OK)
		return psprintf("role \"%s\" no longer has SELECT on the table", name);
	*role = requester;
	return NULL;
}

static void
open_job_sql(void *arg)
{
	OpenJob    *oj = arg;
	CdcCapturedTable  *st = find_captured(oj->jr->relid);

	if (st == NULL)
	{
		oj->error = "the table is no longer captured (or was dropped)";
		return;
	}
	if (oj->jr->unresolved)
	{
		oj->error = "the request has a filter but no filter_sql: ask with cdc_kafka.snapshot()";
		return;
	}
	oj->error = reading_role(oj->jr->relid, oj->jr->role, oj->jr->by_superuser, &inc->role);
	if (oj->error != NULL)
	{
		oj->error = MemoryContextStrdup(inc->jobcxt, oj->error);
		return;
	}
	inc->reader = tablereader_open(oj->jr->relid, st->columns, st->rowfilter, oj->jr->filter,
							  &inc->opts, inc->jobcxt);
	if (inc->reader == NULL)
		oj->error = "the table was dropped";
	else if (inc->reader->nkeys == 0)
		oj->error = "the table has no primary key (nor a unique index on non-null columns) to read it in order by";
	else if (!inc->reader->record_key_is_unique)
		oj->error = RECORD_KEY_NOT_UNIQUE;
}

/* Take up the next request, if there is one.  Returns true if it did. */
static bool
load_next_job(void)
{
	JobRow		jr = {0};
	OpenJob		oj = {&jr, NULL};

	in_transaction(next_job_sql, &jr);
	if (!jr.found)
		return false;
	inc->job = jr.id;
	inc->relid = jr.relid;
	inc->role = InvalidOid;		/* reading_role() says */
	inc->requester = jr.role;
	inc->by_superuser = jr.by_superuser;
	inc->last_key = jr.last_key;
	inc->rows_sent = jr.rows;
	in_transaction(open_job_sql, &oj);
	if (oj.error != NULL)
	{
		end_job("failed", oj.error);
		return true;
	}
	ereport(LOG, (errmsg("incremental snapshot %lld of %s started",
						 (long long) inc->job, inc->reader->from)));
	status_set_snapshot_progress(inc->s->ws, inc->reader->from, inc->rows_sent,
								 (int64) inc->reader->estimated_rows);
	return true;
}

static void
job_state_sql(void *arg)
{
	bool	   *active = arg;

	SPI_execute(psprintf("SELECT 1 FROM cdc_kafka.snapshots WHERE id OPERATOR(pg_catalog.=) "
						 INT64_FORMAT " AND " JOB_ACTIVE, inc->job), true, 1);
	*active = SPI_processed == 1;
}

/* Was the job cancelled (or deleted) meanwhile? */
static bool
job_cancelled(void)
{
	bool		active = false;

	in_transaction(job_state_sql, &active);
	return !active;
}

/* ---- progress, once Kafka acknowledged a chunk --------------------------------------- */

/* The UPDATE of a job's progress; ahead_only: unless it was recorded as far already. */
#define PROGRESS_UPDATE \
	"UPDATE cdc_kafka.snapshots SET " \
	"last_key = coalesce($2, last_key), rows_sent = $3, " \
	"state = CASE WHEN $4 THEN 'done' ELSE state END, " \
	"finished_at = CASE WHEN $4 THEN pg_catalog.now() END " \
	"WHERE id OPERATOR(pg_catalog.=) $1 AND " JOB_ACTIVE

/* Record pp; returns whether a row changed. */
static bool
update_progress(PendingProgress *pp, bool ahead_only)
{
	Oid			types[4] = {INT8OID, TEXTARRAYOID, INT8OID, BOOLOID};
	Datum		values[4] = {Int64GetDatum(pp->job), PointerGetDatum(pp->last_key),
	Int64GetDatum(pp->rows), BoolGetDatum(pp->table_done)};
	char		nulls[4] = {' ', pp->last_key ? ' ' : 'n', ' ', ' '};

	SPI_execute_with_args(ahead_only ?
						  PROGRESS_UPDATE " AND rows_sent OPERATOR(pg_catalog.<) $3" :
						  PROGRESS_UPDATE,
						  4, types, values, nulls, false, 0);
	return SPI_processed > 0;
}

static void
progress_sql(void *arg)
{
	(void) update_progress(arg, false);
}

/*
 * After Kafka refused a row of snapshot careful_job, rows go one per batch
 * (to name the row refused, not a neighbour in its batch) until a chunk of
 * that job is acknowledged, or the session works on another job (it was
 * cancelled, or is done): then the worker batches again (see worker.c).
 * job 0: whatever the job, it is over.
 */
static void
settle_careful(int64 job)
{
	CdcWorkerStatus *ws = inc->s->ws;

	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	if (job == 0 || job == ws->careful_job)
		ws->careful_job = 0;
	LWLockRelease(ws->lock);
}

/* Record the chunks the slot has moved past. */
static void
record_progress(void)
{
	while (inc->pending != NIL)
	{
		PendingProgress *pp = linitial(inc->pending);

		if (inc->s->confirmed < pp->hw_end)
			break;
		in_transaction(progress_sql, pp);
		settle_careful(pp->job);
		if (pp->table_done)
			ereport(LOG, (errmsg("incremental snapshot %lld done, " INT64_FORMAT " rows",
								 (long long) pp->job, pp->rows)));
		inc->pending = list_delete_first(inc->pending);
	}
}

/*
 * A chunk's last key as its elements in hex, comma-separated ("-": none).
 * No catalog access: this runs inside decoding, outside any transaction.
 */
static void
append_key_hex(StringInfo buf, ArrayType *key)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (key == NULL)
	{
		appendStringInfoChar(buf, '-');
		return;
	}
	deconstruct_array(key, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		text	   *t = DatumGetTextPP(elems[i]);
		size_t		len = VARSIZE_ANY_EXHDR(t);

		if (i > 0)
			appendStringInfoChar(buf, ',');
		enlargeStringInfo(buf, len * 2 + 1);
		buf->len += hex_encode(VARDATA_ANY(t), len, buf->data + buf->len);
		buf->data[buf->len] = '\0';
	}
}

/* The key append_key_hex wrote, as a text[]. */
static ArrayType *
key_from_hex(char *hex)
{
	Datum		elems[INDEX_MAX_KEYS];
	int			n = 0;
	char	   *save = NULL;

	for (char *e = strtok_r(hex, ",", &save); e != NULL && n < INDEX_MAX_KEYS;
		 e = strtok_r(NULL, ",", &save))
	{
		size_t		len = strlen(e);
		char	   *decoded = palloc(len / 2 + 1);

		decoded[hex_decode(e, len, decoded)] = '\0';
		elems[n++] = CStringGetTextDatum(decoded);
	}
	return construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT);
}

/*
 * exactly_once: the chunks a Kafka transaction commits (all pending ones up
 * to upto) are written with its position, one line each,
 * "job rows done|more key-in-hex|-", and adopted by the next session
 * (incremental_adopt_progress) if the worker stopped before recording
 * them: their rows are then never read and sent again.
 */
static char *
committed_progress(void *arg, XLogRecPtr upto)
{
	StringInfoData buf;
	ListCell   *lc;

	if (inc == NULL || inc->pending == NIL)
		return NULL;
	initStringInfo(&buf);
	foreach(lc, inc->pending)
	{
		PendingProgress *pp = lfirst(lc);

		if (pp->hw_end > upto)
			break;
		appendStringInfo(&buf, INT64_FORMAT " " INT64_FORMAT " %s ", pp->job, pp->rows,
						 pp->table_done ? "done" : "more");
		append_key_hex(&buf, pp->last_key);
		appendStringInfoChar(&buf, '\n');
	}
	return buf.len > 0 ? buf.data : NULL;
}

static void
adopt_sql(void *arg)
{
	PendingProgress *pp = arg;

	/* never behind what was recorded already */
	if (!update_progress(pp, true))
		pp->rows = -1;
}

/*
 * A new exactly_once session found chunks committed to Kafka (lines of
 * committed_progress) that the last one may not have recorded: record them.
 */
void
incremental_adopt_progress(const char *text)
{
	char	   *copy = pstrdup(text);
	char	   *save = NULL;

	for (char *line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
	{
		PendingProgress pp = {0};
		char		state[8];
		char	   *key = palloc(strlen(line) + 1);

		if (sscanf(line, INT64_FORMAT " " INT64_FORMAT " %7s %s", &pp.job, &pp.rows, state, key) != 4)
			continue;
		pp.table_done = strcmp(state, "done") == 0;
		if (strcmp(key, "-") != 0)
			pp.last_key = key_from_hex(key);
		in_transaction(adopt_sql, &pp);
		if (pp.rows < 0)		/* adopt_sql: nothing was behind */
			continue;
		ereport(LOG,
				(errmsg("incremental snapshot %lld: progress committed to Kafka adopted (" INT64_FORMAT " rows%s)",
						(long long) pp.job, pp.rows, pp.table_done ? ", done" : "")));
	}
}

/* ---- one chunk ----------------------------------------------------------------------- */

/* Write a watermark ("open <token>" or "close <token>"); returns its end. */
static XLogRecPtr
write_watermark(const char *what)
{
	char	   *content = psprintf("%s %s", what, inc->token);
	XLogRecPtr	end = compat_log_logical_message(CDC_WATERMARK_PREFIX, content,
												 strlen(content), false);

	XLogFlush(end);
	return end;
}

/*
 * Open the chunk's window: the low watermark, then what the read must wait
 * for (see the header comment, step 2a).
 */
static void
start_chunk(void)
{
	MemoryContext cxt = CurrentMemoryContext;

	MemoryContextReset(inc->chunkcxt);
	inc->chunk_no++;
	snprintf(inc->token, sizeof(inc->token), INT64_FORMAT ":" UINT64_FORMAT ":%d:" INT64_FORMAT,
			 inc->job, inc->chunk_no, MyProcPid, (int64) inc->next_poll);
	StartTransactionCommand();
	(void) write_watermark("open");
	inc->lw_lsn = ProcLastRecPtr;

	/*
	 * Both after the watermark's insertion: a transaction whose commit
	 * record precedes it got its xid earlier, and raised DELAY_CHKPT_START
	 * before inserting that record (and keeps it until the commit log says
	 * committed), as the checkpointer relies on for its redo pointer.
	 */
	inc->lw_next_xid = ReadNextTransactionId();
	MemoryContextSwitchTo(inc->chunkcxt);
	inc->committing = GetVirtualXIDsDelayingChkpt(&inc->ncommitting, DELAY_CHKPT_START);
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	inc->seen = NULL;
	inc->index = NULL;
	inc->window_open = false;
	inc->wait_xid = InvalidTransactionId;
	inc->phase = CHUNK_WAIT_COMMITS;
}

/* Say in status (and, after a while, in the log) which commit the chunk waits for. */
static void
show_commit_wait(void)
{
	TransactionId xid = inc->wait_xid;
	int			pid = BackendXidGetPid(xid);
	PGPROC	   *proc = pid != 0 ? BackendPidGetProc(pid) : NULL;
	uint32		wait_event = proc != NULL ? *(volatile uint32 *) &proc->wait_event_info : 0;
	char	   *what;

	if (proc == NULL)
		what = psprintf("transaction %u, committed but not yet visible (a prepared transaction being committed, or ending)",
						xid);
	else
		what = psprintf("transaction %u, committed but not yet visible: pid %d, wait event %s:%s",
						xid, pid,
						wait_event ? pgstat_get_wait_event_type(wait_event) : "none",
						wait_event ? pgstat_get_wait_event(wait_event) : "none");
	status_set_snapshot_wait(inc->s->ws, what);
	if (!inc->wait_warned &&
		TimestampDifferenceExceeds(inc->wait_start, GetCurrentTimestamp(), COMMIT_WAIT_WARN_MS))
	{
		ereport(WARNING,
				(errmsg("incremental snapshot %lld of %s waits for %s",
						(long long) inc->job, inc->reader->from, what),
				 errdetail("A chunk is read once every transaction whose commit record precedes its low watermark is visible; streaming goes on meanwhile."),
				 errhint("A commit waiting for synchronous replication ends when a standby confirms it, or when it is cancelled with pg_cancel_backend().")));
		inc->wait_warned = true;
	}
	pfree(what);
}

/*
 * May the chunk be read now?  The commit records being written at the low
 * watermark are marked in the commit log, and the committed transaction
 * the last attempt to read found not yet visible has ended.
 */
static bool
commits_settled(void)
{
	if (inc->ncommitting > 0)
	{
		if (HaveVirtualXIDsDelayingChkpt(inc->committing, inc->ncommitting, DELAY_CHKPT_START))
			return false;
		inc->ncommitting = 0;
	}
	if (!TransactionIdIsValid(inc->wait_xid))
		return true;
	if (TransactionIdIsInProgress(inc->wait_xid))
	{
		show_commit_wait();
		return false;
	}
	inc->wait_xid = InvalidTransactionId;
	status_set_snapshot_wait(inc->s->ws, "");
	return true;
}

/*
 * A transaction the read's snapshot does not see although the commit log
 * says it committed, and whose commit record may precede the low watermark
 * (its xid is older than the next xid then); InvalidTransactionId if none.
 * Running xids at or above the snapshot's xmax are not in xip: they are
 * looked up one by one (there are no more than the xids handed out and
 * not yet ended since the last transaction ended).
 */
static TransactionId
committed_unseen(Snapshot snap)
{
	TransactionId xid;

	for (uint32 i = 0; i < snap->xcnt; i++)
	{
		xid = snap->xip[i];
		if (TransactionIdPrecedes(xid, inc->lw_next_xid) && TransactionIdDidCommit(xid))
			return xid;
	}
	for (xid = snap->xmax; TransactionIdPrecedes(xid, inc->lw_next_xid);)
	{
		if (TransactionIdDidCommit(xid))
			return SubTransGetTopmostTransaction(xid);
		TransactionIdAdvance(xid);
	}
	return InvalidTransactionId;
}

static HTAB *
key_hash_table(const char *name)
{
	HASHCTL		ctl;

	ctl.keysize = sizeof(uint64);
	ctl.entrysize = sizeof(KeyHashEntry);
	ctl.hcxt = inc->chunkcxt;
	return hash_create(name, 256, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

/* The hash of a record key (also how the stream names a refused row). */
static uint64
key_hash(const char *key, int len)
{
	return stream_key_hash(key, len);
}

/* Keep one row read for the chunk: its key, its record, and the index. */
static void
add_chunk_row(HeapTuple tup, TupleDesc desc, CdcTxnState *src, StringInfo keybuf)
{
	CdcTableReader *r = inc->reader;
	ChunkRow   *cr = &inc->rows[inc->nrows];
	CdcRow		row;
	uint64		h;
	bool		found;
	KeyHashEntry *e;
	size_t		keylen;
	const char *key;

	tablereader_row(r, tup, desc, &row);
	initStringInfo(&cr->frame);
	tablereader_write_frame(&cr->frame, r, &row, src, "incremental", inc->lw_lsn, &inc->opts);
	/* the key's bytes as Kafka gets them (JSON or Avro): what saw_change() compares */
	key = stream_frame_key(&cr->frame, &keylen);
	cr->key = key == NULL ? pstrdup("") : pnstrdup(key, keylen);
	cr->keylen = (int) keylen;
	h = key_hash(cr->key, cr->keylen);
	cr->dropped = inc->seen != NULL && hash_search(inc->seen, &h, HASH_FIND, NULL) != NULL;
	if (inc->job == inc->skip_job && h == inc->skip_hash && !cr->dropped)
	{
		resetStringInfo(keybuf);
		encoder_write_key(keybuf, r->ri, &row, &inc->opts);
		ereport(LOG,
				(errmsg("incremental snapshot %lld of %s leaves out the row with key %s "
						"that Kafka refused, as requested with cdc_kafka.skip_record()",
						(long long) inc->job, r->from, keybuf->data)));
		cr->dropped = true;
	}
	e = hash_search(inc->index, &h, HASH_ENTER, &found);
	cr->next = found ? e->row : -1;
	e->row = inc->nrows++;
}

/* Run the chunk's SELECT as the role chosen by reading_role(). */
static void
select_chunk(void)
{
	CdcTableReader *r = inc->reader;
	CdcAsRole	as;
	Oid		   *types = palloc(sizeof(Oid) * r->nkeys);
	Datum	   *values = NULL;
	int			n = 0;
	const char *refused = reading_role(inc->relid, inc->requester, inc->by_superuser, &inc->role);

	if (refused != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s", refused)));

	for (int k = 0; k < r->nkeys; k++)
		types[k] = TEXTOID;
	if (inc->last_key != NULL)
		deconstruct_array(inc->last_key, TEXTOID, -1, false, TYPALIGN_INT, &values, NULL, &n);
	if (inc->last_key != NULL && n != r->nkeys)
		ereport(ERROR,
				(errmsg("the key of the table changed while it was being read (%d columns, was %d)",
						r->nkeys, n)));
	privilege_as_role_begin(&as, inc->role);
	SPI_execute_with_args(tablereader_sql(r, inc->last_key != NULL, settings_incremental_chunk_size),
						  inc->last_key != NULL ? r->nkeys : 0, types, values, NULL, true, 0);
	privilege_as_role_end(&as);
}

static ArrayType *
key_array(const CdcTableReader *r, HeapTuple tup, TupleDesc desc)
{
	char	  **keys = tablereader_key_text(r, tup, desc);
	Datum	   *elems = palloc(sizeof(Datum) * r->nkeys);

	for (int k = 0; k < r->nkeys; k++)
		elems[k] = CStringGetTextDatum(keys[k]);
	return construct_array(elems, r->nkeys, TEXTOID, -1, false, TYPALIGN_INT);
}

/* Read the chunk (in a transaction), then write the high watermark. */
static void
read_chunk_sql(void *arg)
{
	CdcTxnState *src;
	StringInfoData keybuf;
	MemoryContext old;

	inc->wait_xid = committed_unseen(GetActiveSnapshot());
	if (TransactionIdIsValid(inc->wait_xid))
		return;
	select_chunk();
	old = MemoryContextSwitchTo(inc->chunkcxt);
	src = palloc0(sizeof(CdcTxnState));
	src->cxt = inc->chunkcxt;
	src->xid = InvalidTransactionId;
	src->commit_time = GetCurrentTimestamp();
	initStringInfo(&keybuf);
	inc->index = key_hash_table("cdc_kafka chunk keys");
	inc->rows = palloc(sizeof(ChunkRow) * Max(SPI_processed, 1));
	inc->nrows = 0;
	for (uint64 i = 0; i < SPI_processed; i++)
		add_chunk_row(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, src, &keybuf);
	inc->chunk_is_last = SPI_processed < (uint64) settings_incremental_chunk_size;
	MemoryContextSwitchTo(inc->cxt);
	inc->chunk_last_key = SPI_processed == 0 ? NULL :
		key_array(inc->reader, SPI_tuptable->vals[SPI_processed - 1], SPI_tuptable->tupdesc);
	MemoryContextSwitchTo(old);
	inc->hw_end = write_watermark("close");
}

static void
queue_progress(XLogRecPtr hw_end, ArrayType *last_key, bool done)
{
	MemoryContext old = MemoryContextSwitchTo(inc->cxt);
	PendingProgress *pp = palloc(sizeof(PendingProgress));

	pp->hw_end = hw_end;
	pp->job = inc->job;
	pp->last_key = last_key;
	pp->rows = inc->rows_sent;
	pp->table_done = done;
	inc->pending = lappend(inc->pending, pp);
	MemoryContextSwitchTo(old);
}

/*
 * While a chunk is read, WAL is not: say so in status (state snapshotting,
 * what is read and since when; lag_seconds counts from then), and let the
 * read be cancelled: by cdc_kafka.cancel_snapshot() (SIGINT, sent only
 * while reading_job names the job) or by cdc_kafka.snapshot_chunk_timeout.
 * Outside reads SIGINT is ignored, so a late one cannot hit streaming.
 */
static void
begin_read(char *saved_detail, CdcWorkerState *saved_state)
{
	CdcWorkerStatus *ws = inc->s->ws;
	TimestampTz now = GetCurrentTimestamp();
	char	   *detail = psprintf("streaming waits while chunk " UINT64_FORMAT " of incremental snapshot %lld of %s is read "
								  "(since %s; cdc_kafka.snapshot_chunk_timeout %d ms)",
								  inc->chunk_no, (long long) inc->job, inc->reader->from,
								  timestamptz_to_str(now), settings_snapshot_chunk_timeout_ms);

	pqsignal(SIGINT, StatementCancelHandler);
	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	*saved_state = ws->state;
	strlcpy(saved_detail, ws->detail, CDC_TEXT_LEN);
	ws->state = CDC_STATE_SNAPSHOTTING;
	strlcpy(ws->detail, detail, CDC_TEXT_LEN);
	ws->reading_job = inc->job;
	ws->reading_since = now;
	LWLockRelease(ws->lock);
	pfree(detail);
	enable_timeout_after(STATEMENT_TIMEOUT, settings_snapshot_chunk_timeout_ms);
}

static void
end_read(const char *saved_detail, CdcWorkerState saved_state)
{
	CdcWorkerStatus *ws = inc->s->ws;

	disable_timeout(STATEMENT_TIMEOUT, false);
	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	ws->reading_job = 0;
	ws->reading_since = 0;
	if (ws->state == CDC_STATE_SNAPSHOTTING)
	{
		ws->state = saved_state;
		strlcpy(ws->detail, saved_detail, CDC_TEXT_LEN);
	}
	LWLockRelease(ws->lock);
	pqsignal(SIGINT, SIG_IGN);
	/* a cancel that came as the read ended is for nothing now */
	QueryCancelPending = false;
}

/*
 * Is the error the outside world's, not the job's: a service that cannot be
 * reached or refuses our credentials (the schema registry, Kafka)?  The job
 * must wait for it, not fail.
 */
static bool
outside_failure(int sqlerrcode)
{
	return ERRCODE_TO_CATEGORY(sqlerrcode) == ERRCODE_CONNECTION_EXCEPTION ||
		ERRCODE_TO_CATEGORY(sqlerrcode) == ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION;
}

/*
 * Read the chunk; a failure (dropped table, bad filter, no privilege, the
 * read taking longer than cdc_kafka.snapshot_chunk_timeout) ends the job.
 * A service that is down (the schema registry, in the records' encoding)
 * ends the session instead: the job goes on from its last chunk in the
 * next one.
 */
static void
read_chunk(void)
{
	MemoryContext cxt = CurrentMemoryContext;
	char		saved_detail[CDC_TEXT_LEN];
	CdcWorkerState saved_state;

	begin_read(saved_detail, &saved_state);
	PG_TRY();
	{
		in_transaction(read_chunk_sql, NULL);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		end_read(saved_detail, saved_state);
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (outside_failure(edata->sqlerrcode))
			PG_RE_THROW();
		FlushErrorState();
		AbortCurrentTransaction();
		MemoryContextSwitchTo(cxt);
		if (edata->sqlerrcode != ERRCODE_QUERY_CANCELED)
			end_job("failed", edata->message);
		else if (!cancelled())
			end_job("failed",
					psprintf("%s: the chunk was not read within cdc_kafka.snapshot_chunk_timeout (%d ms)",
							 edata->message, settings_snapshot_chunk_timeout_ms));
		return;
	}
	PG_END_TRY();
	end_read(saved_detail, saved_state);
	if (TransactionIdIsValid(inc->wait_xid))
	{
		/* not read: wait for that commit to end, then try again */
		inc->wait_start = GetCurrentTimestamp();
		inc->wait_warned = false;
		return;
	}
	if (inc->nrows == 0)
	{
		/* nothing (more) to read: the job is done once the slot passes here */
		queue_progress(inc->hw_end, NULL, true);
		forget_job();
		return;
	}
	inc->phase = CHUNK_READ;
}

/* Decoding reached the high watermark: send what is left of the chunk. */
static void
emit_chunk(CdcStream *s)
{
	int64		sent = 0;

	/* a row Kafka refuses is known by its job and key (see stream.c) */
	s->frame_job = inc->job;
	for (int i = 0; i < inc->nrows && !s->blocked; i++)
	{
		if (inc->rows[i].dropped)
			continue;
		stream_produce_frame(s, &inc->rows[i].frame, true);
		sent++;
	}
	s->frame_job = 0;
	/* not all sent: the unit stays open, nothing is confirmed past it */
	if (s->blocked || s->abandoned)
		return;
	stream_end_unit(s, inc->hw_end, GetCurrentTimestamp());
	inc->rows_sent += sent;
	queue_progress(inc->hw_end, inc->chunk_last_key, inc->chunk_is_last);
	inc->last_key = inc->chunk_last_key;
	inc->window_open = false;
	inc->phase = CHUNK_NONE;
	status_set_snapshot_progress(s->ws, inc->reader->from, inc->rows_sent,
								 (int64) Max(inc->reader->estimated_rows, inc->rows_sent));
	if (inc->chunk_is_last)
		forget_job();
	else
		MemoryContextReset(inc->chunkcxt);
}

/* ---- the session's side ---------------------------------------------------------------- */

static void saw_watermark(void *arg, CdcStream *s, XLogRecPtr lsn, const char *content,
						  size_t len);
static void saw_change(void *arg, Oid relid, const char *key, size_t keylen);
static char *committed_progress(void *arg, XLogRecPtr upto);

/* The stream tells these about its changes and watermarks while a session runs. */
static const CdcSnapshotHooks session_hooks = {
	.arg = NULL,
	.saw_change = saw_change,
	.watermark = saw_watermark,
	.progress = committed_progress,
};

void
incremental_session_start(CdcStream *s, const CdcStreamConfig *cfg)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "cdc_kafka incremental snapshots",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);

	inc = palloc0(sizeof(IncState));
	inc->cxt = cxt;
	inc->jobcxt = AllocSetContextCreate(cxt, "cdc_kafka snapshot job", ALLOCSET_DEFAULT_SIZES);
	inc->chunkcxt = AllocSetContextCreate(cxt, "cdc_kafka snapshot chunk", ALLOCSET_DEFAULT_SIZES);
	inc->s = s;
	stream_plugin_options(&inc->opts, cfg);
	MemoryContextSwitchTo(old);
	/* SIGINT cancels chunk reads only (see begin_read) */
	pqsignal(SIGINT, SIG_IGN);
	/* skip_record() on a refused row of a snapshot: leave that row out */
	LWLockAcquire(s->ws->lock, LW_EXCLUSIVE);
	if (s->ws->blocked_job != 0 && s->ws->skip_lsn != InvalidXLogRecPtr &&
		s->ws->skip_lsn == s->ws->blocked_lsn)
	{
		inc->skip_job = s->ws->blocked_job;
		inc->skip_hash = s->ws->blocked_key_hash;
	}
	LWLockRelease(s->ws->lock);
	stream_set_snapshot_hooks(s, &session_hooks);
}

void
incremental_session_end(void)
{
	if (inc == NULL)
		return;
	if (inc->s != NULL)
		stream_set_snapshot_hooks(inc->s, NULL);
	if (inc->s != NULL && inc->s->ws != NULL)
	{
		status_set_snapshot_progress(inc->s->ws, "", 0, 0);
		status_set_snapshot_wait(inc->s->ws, "");
	}
	MemoryContextDelete(inc->cxt);
	inc = NULL;
}

/* Was the job cancelled?  Then forget it. */
static bool
cancelled(void)
{
	if (!job_cancelled())
		return false;
	ereport(LOG, (errmsg("incremental snapshot %lld of %s cancelled",
						 (long long) inc->job, inc->reader->from)));
	forget_job();
	return true;
}

/*
 * One step of the incremental snapshots, between two decoding passes.
 * Returns true if there is more to do right away.
 */
bool
incremental_step(CdcStream *s)
{
	if (inc == NULL || s->blocked)
		return false;
	record_progress();
	switch (inc->phase)
	{
		case CHUNK_NONE:
			if (inc->job == 0)
			{
				TimestampTz now = GetCurrentTimestamp();

				/* a finished job stays 'running' until Kafka acknowledged it */
				if (inc->pending != NIL || now < inc->next_poll)
					return false;
				inc->next_poll = TimestampTzPlusMilliseconds(now, REQUEST_POLL_MS);
				if (!load_next_job())
				{
					settle_careful(0);
					return false;
				}
				if (inc->job != inc->s->careful_job)
					settle_careful(0);	/* that job is gone */
				return true;
			}
			if (cancelled())
				return true;
			start_chunk();
			return true;
		case CHUNK_WAIT_COMMITS:
			if (commits_settled())
			{
				read_chunk();
				return true;
			}
			/* a commit that may never end (synchronous replication) */
			if (TransactionIdIsValid(inc->wait_xid) && GetCurrentTimestamp() >= inc->next_poll)
			{
				inc->next_poll = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), REQUEST_POLL_MS);
				return cancelled();
			}
			return false;
		case CHUNK_READ:
			return false;		/* decoding will reach the high watermark */
	}
	return false;
}

/* A watermark decoded: it opens a chunk's window or closes it. */
static void
saw_watermark(void *arg, CdcStream *s, XLogRecPtr lsn, const char *content, size_t len)
{
	size_t		toklen;

	if (inc == NULL || inc->phase == CHUNK_NONE)
		return;
	toklen = strlen(inc->token);
	if (len == toklen + 5 && memcmp(content, "open ", 5) == 0 &&
		memcmp(content + 5, inc->token, toklen) == 0)
	{
		inc->window_open = true;
		if (inc->phase == CHUNK_WAIT_COMMITS && inc->seen == NULL)
			inc->seen = key_hash_table("cdc_kafka window keys");
	}
	else if (len == toklen + 6 && memcmp(content, "close ", 6) == 0 &&
			 memcmp(content + 6, inc->token, toklen) == 0 && inc->phase == CHUNK_READ)
		emit_chunk(s);
}

/* A change decoded: inside a chunk's window, it supersedes the chunk's row. */
static void
saw_change(void *arg, Oid relid, const char *key, size_t keylen)
{
	uint64		h;
	KeyHashEntry *e;

	if (inc == NULL || !inc->window_open || relid != inc->relid || key == NULL)
		return;
	h = key_hash(key, keylen);
	if (inc->phase == CHUNK_WAIT_COMMITS)
	{
		(void) hash_search(inc->seen, &h, HASH_ENTER, NULL);
		return;
	}
	e = hash_search(inc->index, &h, HASH_FIND, NULL);
	for (int i = e ? e->row : -1; i >= 0; i = inc->rows[i].next)
	{
		ChunkRow   *cr = &inc->rows[i];

		if (cr->keylen == (int) keylen && memcmp(cr->key, key, keylen) == 0)
			cr->dropped = true;
	}
}

/* ---- requests: the SQL functions ------------------------------------------------------ */

typedef struct RequestAll
{
	const char *publication;
	const char *kind;
} RequestAll;

/* A request for a snapshot of every captured table. */
static void
request_all_sql(void *arg)
{
	RequestAll *ra = arg;
	Oid			types[3] = {TEXTOID, OIDOID, TEXTOID};
	Datum		values[3] = {CStringGetTextDatum(ra->publication),
		ObjectIdGetDatum(BOOTSTRAP_SUPERUSERID), CStringGetTextDatum(ra->kind)};

	/* the worker's own request: each table is read by its owner */
	SPI_execute_with_args("INSERT INTO cdc_kafka.snapshots (table_oid, table_name, kind, "
						  "requested_by, requested_by_superuser, rows_estimated) "
						  "SELECT c.oid, pg_catalog.format('%I.%I', n.nspname, c.relname), $3, $2, true, "
						  "greatest(c.reltuples, 0::pg_catalog.float4) "
						  CDC_PUBLISHED_TABLES_SQL,
						  3, types, values, NULL, false, 0);
}

/* Queue a snapshot of every captured table: kind startup or initial. */
void
incremental_request_all(const char *publication, const char *kind)
{
	RequestAll	ra = {publication, kind};

	in_transaction(request_all_sql, &ra);
}

static void
filter_context(void *arg)
{
	errcontext("row filter \"%s\" of cdc_kafka.snapshot()", (const char *) arg);
}

/*
 * snapshot('a', 'b') means table a with filter "b": say so when b is a
 * table's name rather than one of a's columns.
 */
static void
refuse_table_name(Relation rel, const char *filter)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(filter)};
	bool		names_table;

	if (filter[0] == '\0' ||
		strspn(filter, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.\"") != strlen(filter) ||
		get_attnum(RelationGetRelid(rel), filter) != InvalidAttrNumber)
		return;
	SPI_connect();
	SPI_execute_with_args("SELECT pg_catalog.to_regclass($1) IS NOT NULL", 1, types, values, NULL, true, 1);
	names_table = SPI_processed == 1 &&
		strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), "t") == 0;
	SPI_finish();
	if (names_table)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row filter \"%s\" names a table, not a condition", filter),
				 errhint("cdc_kafka.snapshot(table, filter) takes one table and a condition; "
						 "for several tables write cdc_kafka.snapshot(VARIADIC ARRAY['%s', '%s']::regclass[]).",
						 RelationGetRelationName(rel), filter)));
}

/*
 * The filter as the worker runs it: analysed here, as the caller and with
 * the caller's search_path (the functions, operators and tables it means),
 * then written back with every name that search_path pg_catalog would not
 * find qualified, so that the worker, whose search_path is that, runs
 * exactly what was checked.
 */
static char *
resolve_filter(Relation rel, Node *raw)
{
	ParseState *pstate = make_parsestate(NULL);
	ParseNamespaceItem *nsitem;
	Node	   *expr;
	CdcAsRole	as;
	char	   *result;

	nsitem = addRangeTableEntryForRelation(pstate, rel, AccessShareLock, NULL, false, true);
	addNSItemToQuery(pstate, nsitem, true, true, true);
	expr = transformExpr(pstate, raw, EXPR_KIND_WHERE);
	expr = coerce_to_boolean(pstate, expr, "WHERE");
	assign_expr_collations(pstate, expr);
	privilege_as_role_begin(&as, GetUserId());
	result = deparse_expression(expr, deparse_context_for(RelationGetRelationName(rel),
														  RelationGetRelid(rel)),
								false, false);
	privilege_as_role_end(&as);
	free_parsestate(pstate);
	return result;
}

/*
 * The filter must be one condition: parsed alone as an expression, then
 * analysed against the table.  Anything else (a second statement, a
 * FROM, a UNION smuggled in) is refused before it reaches the worker.
 * Returns it as the worker is to run it (resolve_filter()).
 */
static char *
check_filter(Relation rel, const char *filter)
{
	ErrorContextCallback cb = {error_context_stack, filter_context, (void *) filter};
	List	   *raw;
	SelectStmt *sel = NULL;
	CdcAsRole	as;
	char	   *resolved;

	refuse_table_name(rel, filter);
	error_context_stack = &cb;
	raw = raw_parser(filter, RAW_PARSE_PLPGSQL_EXPR);
	if (list_length(raw) == 1 && IsA(((RawStmt *) linitial(raw))->stmt, SelectStmt))
		sel = (SelectStmt *) ((RawStmt *) linitial(raw))->stmt;
	if (sel == NULL || list_length(sel->targetList) != 1 || sel->fromClause != NIL ||
		sel->whereClause != NULL || sel->groupClause != NIL || sel->havingClause != NULL ||
		sel->windowClause != NIL || sel->sortClause != NIL || sel->limitCount != NULL ||
		sel->limitOffset != NULL || sel->lockingClause != NIL || sel->distinctClause != NIL ||
		sel->withClause != NULL || sel->op != SETOP_NONE || sel->intoClause != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row filter must be a single condition on the table's columns"),
				 errhint("Write it as the part of a WHERE clause after WHERE, for example: region = 'EU' AND id > 1000.")));
	resolved = resolve_filter(rel, ((ResTarget *) linitial(sel->targetList))->val);
	/* and what the worker will run must plan: as this role, with its search_path */
	SPI_connect();
	privilege_as_role_begin(&as, GetUserId());
	if (SPI_prepare(psprintf("SELECT 1 FROM %s.%s WHERE (%s)",
							 quote_identifier(get_namespace_name(RelationGetNamespace(rel))),
							 quote_identifier(RelationGetRelationName(rel)), resolved),
					0, NULL) == NULL)
		elog(ERROR, "could not prepare the row filter: %s", SPI_result_code_string(SPI_result));
	privilege_as_role_end(&as);
	SPI_finish();
	error_context_stack = cb.previous;
	return resolved;
}

/* A key the chunks can be ordered and resumed by: unique and never null. */
static void
check_key(Relation rel, const CdcTableReader *r)
{
	bool		nullable = false;

	/* the names are checked: only the outbox transform contains "outbox" */
	if (strstr(settings_transforms, "outbox") != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("incremental snapshots are not available with the outbox transform"),
				 errdetail("A chunk's rows are matched to changes made while it is read by "
						   "their record keys; outbox events are keyed by their aggregate, "
						   "not by row."),
				 errhint("The initial snapshot of a new slot reads outbox tables.")));

	for (int k = 0; k < r->nkeys; k++)
	{
		AttrNumber	att = get_attnum(RelationGetRelid(rel), r->key_names[k]);

		nullable |= !TupleDescAttr(RelationGetDescr(rel), att - 1)->attnotnull;
	}
	if (r->nkeys == 0 || nullable)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has no primary key", RelationGetRelationName(rel)),
				 errdetail("An incremental snapshot reads a table in key order, chunk by chunk, "
						   "and drops from a chunk the rows that changed while it was read: "
						   "both need a unique key whose columns are not null."),
				 errhint("Add a primary key.  The initial snapshot of a new slot reads tables without one.")));
	if (!r->record_key_is_unique)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the record key of table \"%s\" does not identify its rows",
						RelationGetRelationName(rel)),
				 errdetail("cdc_kafka.message_key_columns keys its records by columns without "
						   "every column of its primary key, so a change made while a chunk is "
						   "read could not be matched to the row it changed."),
				 errhint("Add the primary key's columns to the table's entry in "
						 "cdc_kafka.message_key_columns.")));
}

/*
 * The publication's tables by OID, read once per call of snapshot(): each
 * table asked for is one lookup, not a scan of the publication.
 */
typedef struct CapturedEntry
{
	Oid			relid;			/* hash key */
	CdcCapturedTable  *table;
} CapturedEntry;

static HTAB *
captured_by_oid(void)
{
	List	   *tables = tablereader_captured(settings_publication_name);
	HASHCTL		ctl;
	HTAB	   *h;
	ListCell   *lc;

	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(CapturedEntry);
	ctl.hcxt = CurrentMemoryContext;
	h = hash_create("cdc_kafka captured tables", Max(list_length(tables), 16), &ctl,
					HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	foreach(lc, tables)
	{
		CdcCapturedTable  *t = lfirst(lc);
		CapturedEntry *e = hash_search(h, &t->relid, HASH_ENTER, NULL);

		e->table = t;
	}
	return h;
}

/*
 * The captured table relid, checked; its reader (for the key).  With a
 * filter, *resolved is the filter as the worker is to run it.
 */
static CdcTableReader *
check_table(Relation rel, const char *filter, HTAB *captured, char **resolved)
{
	CdcCapturedTable  *st = NULL;
	CapturedEntry *e;
	Oid			relid = RelationGetRelid(rel);
	CdcOptions	opts;
	CdcTableReader *r;

	if (pg_class_aclcheck(RelationGetRelid(rel), GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", RelationGetRelationName(rel)),
				 errdetail("The snapshot reads the table as the role that asks for it.")));
	e = hash_search(captured, &relid, HASH_FIND, NULL);
	if (e != NULL)
		st = e->table;
	if (st == NULL && rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot snapshot \"%s\": it is a partitioned table", RelationGetRelationName(rel)),
				 errdetail("Publication \"%s\" streams the changes of its partitions, each as its own table.",
						   settings_publication_name),
				 errhint("Snapshot its partitions: SELECT cdc_kafka.snapshot(VARIADIC ARRAY(SELECT relid FROM pg_partition_tree('%s') WHERE isleaf));",
						 RelationGetRelationName(rel))));
	if (st == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" is not captured by cdc_kafka", RelationGetRelationName(rel)),
				 errdetail("It is not in publication \"%s\".", settings_publication_name),
				 errhint("Capture it first: SELECT cdc_kafka.add_tables('%s');",
						 RelationGetRelationName(rel))));
	options_set_defaults(&opts);
	/* the record key the worker will use, to refuse one that is no key now */
	if (settings_message_key_columns[0] != '\0')
		opts.message_key_columns = keycols_parse("cdc_kafka.message_key_columns",
												 settings_message_key_columns);
	r = tablereader_open(RelationGetRelid(rel), st->columns, NULL, NULL, &opts, CurrentMemoryContext);
	check_key(rel, r);
	*resolved = filter != NULL ? check_filter(rel, filter) : NULL;
	return r;
}

/*
 * Write to the queue as its owner (the extension's): EXECUTE on the
 * function (and SELECT on the table to read) is what a role needs, not
 * rights on the extension's table, which nobody else may write.  The
 * caller's search_path stays out (privilege.c): every name in sql is
 * qualified, and nothing of the caller's runs as the owner.
 */
static void
run_as_queue_owner(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls)
{
	CdcAsRole	as;

	privilege_as_role_begin(&as, privilege_queue_owner());
	SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
	privilege_as_role_end(&as);
}

/*
 * Check one table for a request: the table's quoted name and estimated
 * rows go to the queue.  The lock taken to look at it is released once it
 * is checked, as PostgreSQL's own catalog lookups do: the request holds
 * the table's OID only, and the worker fails a request whose table is gone
 * by then.  Keeping it would hold one lock per table until commit.
 */
static void
check_request(Oid relid, const char *filter, HTAB *captured, char **name, int64 *estimated,
			  char **resolved)
{
	Relation	rel;
	CdcTableReader *r;

	api_check_table_arg(relid, "snapshot");
	rel = try_relation_open(relid, AccessShareLock);
	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table with OID %u does not exist", relid)));
	r = check_table(rel, filter, captured, resolved);
	*name = r->from;
	*estimated = (int64) r->estimated_rows;
	relation_close(rel, AccessShareLock);
}

/*
 * Queue the requests for the n tables (the same filter for all, as the
 * caller wrote it and as resolved) in one INSERT; their ids, in the order
 * of the tables, into ids.
 */
static void
queue_requests(int n, const Oid *relids, Datum *names, const int64 *estimated,
			   const char *filter, const char *resolved, int64 *ids)
{
	Oid			types[7] = {OIDARRAYOID, TEXTARRAYOID, TEXTOID, OIDOID, INT8ARRAYOID,
	BOOLOID, TEXTOID};
	Datum		values[7];
	char		nulls[7] = {' ', ' ', filter ? ' ' : 'n', ' ', ' ', ' ', resolved ? ' ' : 'n'};
	Datum	   *oids = palloc(sizeof(Datum) * n);
	Datum	   *rows = palloc(sizeof(Datum) * n);

	for (int i = 0; i < n; i++)
	{
		oids[i] = ObjectIdGetDatum(relids[i]);
		rows[i] = Int64GetDatum(estimated[i]);
	}
	values[0] = PointerGetDatum(construct_array(oids, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	values[1] = PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
	values[2] = filter ? CStringGetTextDatum(filter) : (Datum) 0;
	values[3] = ObjectIdGetDatum(GetUserId());
	values[4] = PointerGetDatum(construct_array(rows, n, INT8OID, sizeof(int64),
												FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	values[5] = BoolGetDatum(superuser());
	values[6] = resolved ? CStringGetTextDatum(resolved) : (Datum) 0;
	SPI_connect();
	/* rows are inserted, and their ids drawn, in the tables' order */
	run_as_queue_owner("INSERT INTO cdc_kafka.snapshots "
					   "(table_oid, table_name, kind, filter, requested_by, rows_estimated, "
					   "requested_by_superuser, filter_sql) "
					   "SELECT r.relid, r.name, 'incremental', $3, $4, r.estimated, $6, $7 "
					   "FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), "
					   "pg_catalog.unnest($5)) WITH ORDINALITY "
					   "AS r(relid, name, estimated, ord) "
					   "ORDER BY r.ord RETURNING id",
					   7, types, values, nulls);
	if (SPI_processed != (uint64) n)
		elog(ERROR, "queued " UINT64_FORMAT " snapshot requests instead of %d", SPI_processed, n);
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		ids[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1,
											 &isnull));
	}
	SPI_finish();
}

/*
 * Check every table, then queue them all: one pass over the publication,
 * a lookup per table, one INSERT.  What checking a table allocates goes
 * with it.  A filter comes with one table only (snapshot(table, filter)).
 */
static int64 *
request_snapshots(int n, const Oid *relids, const char *filter)
{
	HTAB	   *captured = captured_by_oid();
	Datum	   *names = palloc(sizeof(Datum) * n);
	int64	   *estimated = palloc(sizeof(int64) * n);
	int64	   *ids = palloc(sizeof(int64) * n);
	char	   *resolved = NULL;
	MemoryContext tablecxt = AllocSetContextCreate(CurrentMemoryContext, "cdc_kafka snapshot request",
												   ALLOCSET_DEFAULT_SIZES);

	Assert(filter == NULL || n == 1);
	for (int i = 0; i < n; i++)
	{
		MemoryContext old = MemoryContextSwitchTo(tablecxt);
		char	   *name;
		char	   *table_resolved;

		check_request(relids[i], filter, captured, &name, &estimated[i], &table_resolved);
		MemoryContextSwitchTo(old);
		names[i] = CStringGetTextDatum(name);
		if (table_resolved != NULL)
			resolved = pstrdup(table_resolved);
		MemoryContextReset(tablecxt);
	}
	MemoryContextDelete(tablecxt);
	queue_requests(n, relids, names, estimated, filter, resolved, ids);
	hash_destroy(captured);
	return ids;
}

/* Wake this database's worker, if it runs, to look at the requests now. */
static void
wake_worker(void)
{
	CdcWorkerStatus *ws = status_state ? status_find_worker(get_database_name(MyDatabaseId)) : NULL;

	if (ws != NULL)
		status_wake(ws);
}

/*
 * Once a cancellation is committed (the worker looks in cdc_kafka.snapshots),
 * wake the worker (a worker blocked on a row of the snapshot goes on) and,
 * if it is reading a chunk of that snapshot, cancel the read: its
 * statement, not the worker (see begin_read).
 */
static void
cancel_at_commit_cb(XactEvent event, void *arg)
{
	CdcWorkerStatus *ws = cancel_worker;
	pid_t		pid = 0;

	if (event != XACT_EVENT_COMMIT || cancel_read_job == 0)
	{
		if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT)
			cancel_read_job = 0;
		return;
	}
	if (ws != NULL)
	{
		LWLockAcquire(ws->lock, LW_EXCLUSIVE);
		if (ws->reading_job == cancel_read_job)
			pid = ws->pid;
		LWLockRelease(ws->lock);
		if (pid != 0)
			(void) kill(pid, SIGINT);
		status_wake(ws);
	}
	cancel_read_job = 0;
}

static void
cancel_at_commit(int64 job)
{
	static bool registered = false;

	if (!registered)
	{
		RegisterXactCallback(cancel_at_commit_cb, NULL);
		registered = true;
	}
	cancel_read_job = job;
	cancel_worker = status_state ? status_find_worker(get_database_name(MyDatabaseId)) : NULL;
}

/* cdc_kafka.snapshot(VARIADIC tables regclass[]) RETURNS SETOF bigint */
Datum
cdc_kafka_snapshot(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			n;
	Oid		   *relids;
	int64	   *ids;

	api_require_admin("snapshot");
	relids = api_table_args(fcinfo, "snapshot", "snapshot", &n);
	ids = request_snapshots(n, relids, NULL);
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	for (int i = 0; i < n; i++)
	{
		Datum		id = Int64GetDatum(ids[i]);
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &id, &isnull);
	}
	wake_worker();
	return (Datum) 0;
}

/* cdc_kafka.snapshot(tbl regclass, filter text) RETURNS bigint */
Datum
cdc_kafka_snapshot_where(PG_FUNCTION_ARGS)
{
	Oid			relid;
	int64		id;

	api_require_admin("snapshot");
	api_refuse_null_arg(fcinfo, 0, "tbl", "snapshot");
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"filter\" of cdc_kafka.snapshot() must not be null"),
				 errhint("For every row of the table call cdc_kafka.snapshot(table) without a filter.")));
	relid = PG_GETARG_OID(0);
	id = request_snapshots(1, &relid, text_to_cstring(PG_GETARG_TEXT_PP(1)))[0];
	wake_worker();
	PG_RETURN_INT64(id);
}

/* cdc_kafka.cancel_snapshot(id bigint) RETURNS boolean */
Datum
cdc_kafka_cancel_snapshot(PG_FUNCTION_ARGS)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1];
	bool		cancelled;
	bool		exists = true;

	api_require_admin("cancel_snapshot");
	api_refuse_null_arg(fcinfo, 0, "id", "cancel_snapshot");
	values[0] = PG_GETARG_DATUM(0);
	SPI_connect();
	run_as_queue_owner("UPDATE cdc_kafka.snapshots SET state = 'cancelled', "
					   "finished_at = pg_catalog.now() "
					   "WHERE id OPERATOR(pg_catalog.=) $1 AND " JOB_ACTIVE,
					   1, types, values, NULL);
	cancelled = SPI_processed == 1;
	if (!cancelled)
	{
		run_as_queue_owner("SELECT 1 FROM cdc_kafka.snapshots WHERE id OPERATOR(pg_catalog.=) $1", 1, types, values, NULL);
		exists = SPI_processed == 1;
	}
	SPI_finish();
	if (!exists)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("snapshot request " INT64_FORMAT " does not exist", PG_GETARG_INT64(0)),
				 errhint("cdc_kafka.snapshot_progress lists the requests by id.")));
	if (cancelled)
		cancel_at_commit(DatumGetInt64(values[0]));
	PG_RETURN_BOOL(cancelled);
}
