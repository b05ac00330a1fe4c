/*-------------------------------------------------------------------------
 *
 * snapshot.c
 *		The initial snapshot: the rows that already exist, as op "r"
 *		records, before a new slot's stream starts.
 *
 * When the worker creates its slot (snapshot modes initial, initial_only,
 * always, when_needed), it does so inside a REPEATABLE READ transaction
 * that adopts the slot's initial snapshot, the database exactly as of the
 * slot's consistent point.  Every captured table is read in key order
 * (tablereader.c) through a cursor, a bounded number of rows at a time,
 * and each row is sent as an op "r" record marked as Debezium marks them
 * (first, first_in_data_collection, true, last_in_data_collection, last),
 * with the consistent point as its LSN.  Only then does decoding start, at
 * that same point: no change is lost or doubled at the seam.  Progress (the
 * last key acknowledged per table) is written to a file next to the slot;
 * if a restart interrupts the snapshot, its snapshot is gone, and the
 * tables not finished are completed by incremental snapshots
 * (incremental.c, which snapshots on request while the stream runs)
 * starting after their last acknowledged key.
 *
 * src/worker/snapshot.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogutils.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "common/string.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "replication/logical.h"
#include "replication/slot.h"
#include "replication/snapbuild.h"
#include "storage/fd.h"
#include "storage/proc.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "plugin/compat.h"
#include "plugin/plugin.h"
#include "worker/privilege.h"
#include "worker/settings.h"
#include "worker/status.h"
#include "worker/snapshot.h"
#include "worker/stream.h"
#include "worker/tablereader.h"

/* How often an initial snapshot records its progress (after acknowledgements). */
#define PROGRESS_INTERVAL_MS 5000

/* ---- the initial snapshot's progress file ----------------------------------------- */

/*
 * $PGDATA/pg_logical/cdc_kafka_snapshot_<slot>: while an initial snapshot
 * runs, one line per table, "relid done|pending rows [key text in hex]...",
 * written (atomically) after acknowledgements.  It is removed when the
 * snapshot completed.
 */
static char *
progress_path(const char *slot)
{
	return psprintf("pg_logical/cdc_kafka_snapshot_%s", slot);
}

typedef struct TableProgress
{
	Oid			relid;
	bool		done;
	int64		rows;
	int			nkeys;
	char	  **keys;			/* text of the last key acknowledged, or NULL */
} TableProgress;

/* The progress file's text (also committed to Kafka by exactly_once streams). */
static char *
progress_text(TableProgress *tp, int n)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
	{
		appendStringInfo(&buf, "%u %s " INT64_FORMAT, tp[i].relid,
						 tp[i].done ? "done" : "pending", tp[i].rows);
		for (int k = 0; tp[i].keys != NULL && k < tp[i].nkeys; k++)
		{
			size_t		len = strlen(tp[i].keys[k]);
			char	   *hex = palloc(len * 2 + 1);

			hex[hex_encode(tp[i].keys[k], len, hex)] = '\0';
			appendStringInfo(&buf, " x%s", hex);
		}
		appendStringInfoChar(&buf, '\n');
	}
	return buf.data;
}

static void
progress_write_text(const char *slot, const char *text)
{
	char	   *path = progress_path(slot);
	char	   *tmp = psprintf("%s.tmp", path);
	int			len = strlen(text);
	int			fd;

	fd = OpenTransientFile(tmp, O_CREAT | O_TRUNC | O_WRONLY | PG_BINARY);
	if (fd < 0 || write(fd, text, len) != len || pg_fsync(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", tmp)));
	CloseTransientFile(fd);
	durable_rename(tmp, path, ERROR);
}

static void
progress_write(const char *slot, TableProgress *tp, int n)
{
	progress_write_text(slot, progress_text(tp, n));
}

/*
 * Read the progress file; NULL if there is none.  A line holds a table's
 * whole key in hex, so it can be of any length: read whole lines.
 */
static TableProgress *
progress_read(const char *slot, int *n)
{
	FILE	   *f = AllocateFile(progress_path(slot), "r");
	TableProgress *tp = NULL;
	StringInfoData line;
	int			cap = 0;

	*n = 0;
	if (f == NULL)
		return NULL;
	initStringInfo(&line);
	while (pg_get_line_buf(f, &line))
	{
		char	   *save = NULL;
		char	   *tok = strtok_r(line.data, " \n", &save);
		TableProgress *t;

		if (tok == NULL)
			continue;
		if (*n == cap)
		{
			cap = cap ? cap * 2 : 16;
			tp = tp ? repalloc(tp, sizeof(TableProgress) * cap) : palloc(sizeof(TableProgress) * cap);
		}
		t = &tp[(*n)++];
		memset(t, 0, sizeof(*t));
		t->relid = (Oid) strtoul(tok, NULL, 10);
		tok = strtok_r(NULL, " \n", &save);
		t->done = tok != NULL && strcmp(tok, "done") == 0;
		tok = strtok_r(NULL, " \n", &save);
		t->rows = tok ? strtoll(tok, NULL, 10) : 0;
		t->keys = palloc(sizeof(char *) * INDEX_MAX_KEYS);
		while ((tok = strtok_r(NULL, " \n", &save)) != NULL && t->nkeys < INDEX_MAX_KEYS)
		{
			size_t		len = strlen(tok + 1);
			char	   *text = palloc(len / 2 + 1);

			text[hex_decode(tok + 1, len, text)] = '\0';
			t->keys[t->nkeys++] = text;
		}
		if (t->nkeys == 0)
			t->keys = NULL;
	}
	pfree(line.data);
	FreeFile(f);
	return tp;
}

/* Is an initial snapshot of this slot unfinished (interrupted)? */
bool
snapshot_initial_pending(const char *slot)
{
	return access(progress_path(slot), F_OK) == 0;
}

/* ---- the initial snapshot ------------------------------------------------------------ */

/* One initial snapshot in progress. */
typedef struct InitialRun
{
	CdcWorkerStatus *ws;
	CdcStream  *s;
	const char *slot;
	CdcOptions	opts;
	CdcTxnState src;			/* the source block all its records share */
	XLogRecPtr	lsn;			/* the slot's consistent point */
	List	   *tables;			/* CdcCapturedTable */
	TableProgress *progress;	/* one per table, same order */
	int			ntables;
	TimestampTz last_checkpoint;
	bool		(*interrupted) (void);
	bool		stopped;		/* interrupted: the rest is for later */
	StringInfoData frame;
	MemoryContext rowcxt;		/* reset per row */
} InitialRun;

/*
 * Create the slot as a walsender's CREATE_REPLICATION_SLOT ... USE_SNAPSHOT
 * does: our REPEATABLE READ transaction adopts the snapshot of the slot's
 * consistent point.  The slot stays ephemeral (gone if we fail) until the
 * progress file says what is left to read.  Returns the consistent point.
 */
static XLogRecPtr
create_slot_with_snapshot(const char *slot)
{
	LogicalDecodingContext *ctx;
	Snapshot	snap;
	XLogRecPtr	consistent;

	CheckSlotPermissions();
	compat_check_logical_decoding();
	compat_slot_create(slot, false, settings_slot_failover);
	ctx = CreateInitDecodingContext(CDC_PLUGIN_NAME, NIL, true, InvalidXLogRecPtr,
									XL_ROUTINE(.page_read = read_local_xlog_page,
											   .segment_open = wal_segment_open,
											   .segment_close = wal_segment_close),
									NULL, NULL, NULL);
	DecodingContextFindStartpoint(ctx);
	snap = SnapBuildInitialSnapshot(ctx->snapshot_builder);
	RestoreTransactionSnapshot(snap, MyProc);
	consistent = MyReplicationSlot->data.confirmed_flush;
	FreeDecodingContext(ctx);
	return consistent;
}

/*
 * Every PROGRESS_INTERVAL_MS (exactly_once: also when the Kafka transaction
 * reached its bounds): wait for Kafka to acknowledge what was sent, then
 * record it, so a restart re-reads only what came after.
 */
static void
maybe_checkpoint(InitialRun *run, bool force)
{
	char	   *text;

	if (!force && !TimestampDifferenceExceeds(run->last_checkpoint, GetCurrentTimestamp(),
											  PROGRESS_INTERVAL_MS) &&
		!stream_txn_full(run->s))
		return;
	stream_drain(run->s);
	if (run->s->blocked)
		return;
	text = progress_text(run->progress, run->ntables);
	/* exactly_once: the rows and the progress that covers them commit together */
	if (run->s->eos)
		stream_commit(run->s, psprintf("%X/%X\n%s", LSN_FORMAT_ARGS(run->lsn), text));
	progress_write_text(run->slot, text);
	run->last_checkpoint = GetCurrentTimestamp();
}

/* A record Kafka (or the schema registry) refused ends the snapshot: say which, loudly. */
static void
fail_if_blocked(InitialRun *run, const char *table)
{
	if (!run->s->blocked)
		return;
	if (stream_blocked_by_registry(run->s))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s", run->s->blocked_reason),
				 errdetail("The initial snapshot stops at table %s, key %s; it resumes after a restart.",
						   table, run->s->blocked_key),
				 errhint("Change the subject's compatibility rule in the registry, or the table.")));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("Kafka refused a snapshot record of table %s with key %s: %s",
					table, run->s->blocked_key, stream_blocked_reason(run->s)),
			 errdetail("The initial snapshot stops here; it resumes after a restart."),
			 errhint("Raise the topic's max.message.bytes (and message.max.bytes in cdc_kafka.kafka_properties).")));
}

/* Debezium's marker of a snapshot record, from its place in the snapshot. */
static const char *
read_marker(bool first_table, bool last_table, bool first_row, bool last_row)
{
	if (last_table && last_row)
		return "last";
	if (first_table && first_row)
		return "first";
	if (last_row)
		return "last_in_data_collection";
	if (first_row)
		return "first_in_data_collection";
	return "true";
}

static void
send_row(InitialRun *run, const CdcTableReader *r, HeapTuple tup, TupleDesc desc,
		 const char *marker)
{
	MemoryContext old = MemoryContextSwitchTo(run->rowcxt);
	CdcRow		row;

	tablereader_row(r, tup, desc, &row);
	tablereader_write_frame(&run->frame, r, &row, &run->src, marker, run->lsn, &run->opts);
	MemoryContextSwitchTo(old);
	MemoryContextReset(run->rowcxt);
	stream_produce_frame(run->s, &run->frame, false);
}

/* Remember how far table t was sent (its last key, in text). */
static void
note_sent(InitialRun *run, int t, const CdcTableReader *r, HeapTuple tup, TupleDesc desc,
		  int64 rows)
{
	TableProgress *tp = &run->progress[t];
	MemoryContext old = MemoryContextSwitchTo(run->s->cxt);

	tp->rows = rows;
	if (r->nkeys > 0)
	{
		tp->nkeys = r->nkeys;
		tp->keys = tablereader_key_text(r, tup, desc);
	}
	MemoryContextSwitchTo(old);
}

/*
 * Read table t of the snapshot through a cursor, settings_snapshot_fetch_size
 * rows at a time.  One row of lookahead tells the last row of the table.
 * The table's owner reads it (privilege.c): planning and reading run the
 * owner's code (index predicates, row security), never as superuser.
 */
static void
read_table(InitialRun *run, int t, bool first_table, bool last_table)
{
	CdcCapturedTable  *st = list_nth(run->tables, t);
	MemoryContext tablecxt = AllocSetContextCreate(CurrentMemoryContext, "cdc_kafka snapshot table",
												   ALLOCSET_DEFAULT_SIZES);
	CdcTableReader *r = tablereader_open(st->relid, st->columns, st->rowfilter, NULL,
										 &run->opts, tablecxt);
	SPITupleTable *batch;
	uint64		n;
	int64		rows = 0;
	Portal		portal;
	CdcAsRole	as;

	if (r == NULL)
	{
		run->progress[t].done = true;	/* dropped meanwhile */
		MemoryContextDelete(tablecxt);
		return;
	}
	status_set_snapshot_progress(run->ws, r->from, 0, (int64) r->estimated_rows);
	privilege_as_role_begin(&as, r->owner);
	portal = SPI_cursor_open(NULL, SPI_prepare(tablereader_sql(r, false, 0), 0, NULL),
							 NULL, NULL, true);
	SPI_cursor_fetch(portal, true, settings_snapshot_fetch_size);
	privilege_as_role_end(&as);
	batch = SPI_tuptable;
	n = SPI_processed;
	while (n > 0 && !run->stopped)
	{
		SPITupleTable *next;
		uint64		nnext;

		for (uint64 i = 0; i + 1 < n; i++, rows++)
			send_row(run, r, batch->vals[i], batch->tupdesc,
					 read_marker(first_table, last_table, rows == 0, false));
		privilege_as_role_begin(&as, r->owner);
		SPI_cursor_fetch(portal, true, settings_snapshot_fetch_size);
		privilege_as_role_end(&as);
		next = SPI_tuptable;
		nnext = SPI_processed;
		send_row(run, r, batch->vals[n - 1], batch->tupdesc,
				 read_marker(first_table, last_table, rows == 0, nnext == 0));
		rows++;
		note_sent(run, t, r, batch->vals[n - 1], batch->tupdesc, rows);
		SPI_freetuptable(batch);
		batch = next;
		n = nnext;
		fail_if_blocked(run, r->from);
		status_set_snapshot_progress(run->ws, NULL, rows, (int64) Max(r->estimated_rows, rows));
		stream_poll(run->s, 0);
		stream_publish_status(run->s, false);
		CHECK_FOR_INTERRUPTS();
		maybe_checkpoint(run, false);
		fail_if_blocked(run, r->from);
		run->stopped = run->interrupted != NULL && run->interrupted();
	}
	SPI_freetuptable(batch);
	SPI_cursor_close(portal);
	if (!run->stopped)
	{
		run->progress[t].done = true;
		run->progress[t].rows = rows;
	}
	MemoryContextDelete(tablecxt);
}

static void
run_init(InitialRun *run, CdcWorkerStatus *ws, const CdcStreamConfig *cfg,
		 const char *publication)
{
	ListCell   *lc;
	int			i = 0;

	memset(run, 0, sizeof(*run));
	run->ws = ws;
	run->slot = cfg->slot_name;
	stream_plugin_options(&run->opts, cfg);
	run->tables = tablereader_captured(publication);
	run->ntables = list_length(run->tables);
	run->progress = palloc0(sizeof(TableProgress) * Max(run->ntables, 1));
	foreach(lc, run->tables)
		run->progress[i++].relid = ((CdcCapturedTable *) lfirst(lc))->relid;
	run->src.cxt = CurrentMemoryContext;
	run->src.xid = GetTopTransactionId();	/* Debezium's txid_current() */
	run->src.commit_time = GetCurrentTimestamp();	/* the snapshot's CURRENT_TIMESTAMP */
	run->last_checkpoint = GetCurrentTimestamp();
	run->rowcxt = AllocSetContextCreate(CurrentMemoryContext, "cdc_kafka snapshot row",
										ALLOCSET_DEFAULT_SIZES);
	initStringInfo(&run->frame);
}

/*
 * The initial snapshot of a new slot.  Called outside a transaction; on
 * return the slot exists, every captured table was read and acknowledged,
 * and the returned session decodes from the slot's consistent point.
 * Returns NULL (snapshot unfinished, progress kept for resuming) if
 * interrupted() said to stop.
 */
CdcStream *
snapshot_initial(CdcWorkerStatus *ws, CdcStreamConfig *cfg, const char *publication,
				 bool (*interrupted) (void))
{
	MemoryContext cxt = CurrentMemoryContext;
	InitialRun	run;

	status_set_state(ws, CDC_STATE_SNAPSHOT, "creating the replication slot for the initial snapshot");
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	XactIsoLevel = XACT_REPEATABLE_READ;
	XactReadOnly = false;
	{
		XLogRecPtr	lsn = create_slot_with_snapshot(cfg->slot_name);

		PushActiveSnapshot(GetTransactionSnapshot());
		SPI_connect();
		run_init(&run, ws, cfg, publication);
		run.lsn = lsn;
		run.interrupted = interrupted;
	}
	/* what is left to read is on disk before the slot can outlive us */
	progress_write(run.slot, run.progress, run.ntables);
	ReplicationSlotPersist();
	ReplicationSlotRelease();
	ereport(LOG,
			(errmsg("cdc_kafka created replication slot \"%s\" at %X/%X; initial snapshot of %d tables",
					cfg->slot_name, LSN_FORMAT_ARGS(run.lsn), run.ntables)));

	cfg->defer_decoding = true;
	run.s = stream_open(ws, cfg);
	if (run.s == NULL)
		elog(ERROR, "replication slot \"%s\" vanished while it was being created", cfg->slot_name);
	status_set_state(ws, CDC_STATE_SNAPSHOT, psprintf("initial snapshot of %d tables at %X/%X", run.ntables,
							  LSN_FORMAT_ARGS(run.lsn)));
	for (int t = 0; t < run.ntables && !run.stopped; t++)
		read_table(&run, t, t == 0, t == run.ntables - 1);
	maybe_checkpoint(&run, true);
	if (run.s->blocked)
		fail_if_blocked(&run, get_rel_name(run.s->blocked_relid));
	if (!run.stopped)
	{
		durable_unlink(progress_path(run.slot), ERROR);
		stream_commit(run.s, "");	/* the progress is not committed any more */
	}

	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	status_set_snapshot_progress(ws, "", 0, 0);
	if (run.stopped)
	{
		stream_close(run.s, 0);
		return NULL;
	}
	ereport(LOG, (errmsg("cdc_kafka finished the initial snapshot of slot \"%s\"", cfg->slot_name)));
	stream_start_decoding(run.s, cfg);
	return run.s;
}

/* ---- an interrupted initial snapshot -------------------------------------------------- */

/*
 * exactly_once: the progress an interrupted initial snapshot committed to
 * Kafka with its rows ("<consistent point>\n<progress file>"), read back
 * by the next session, replaces the progress file, which may lag behind
 * it: the snapshot resumes after the rows Kafka has, not before.  Only for
 * the snapshot of this slot at lsn (a slot made again has another one).
 */
void
snapshot_adopt_progress(const char *slot, const char *committed, XLogRecPtr lsn)
{
	const char *nl = strchr(committed, '\n');
	char	   *expect = psprintf("%X/%X", LSN_FORMAT_ARGS(lsn));

	if (nl == NULL || !snapshot_initial_pending(slot) ||
		strlen(expect) != (size_t) (nl - committed) ||
		strncmp(committed, expect, nl - committed) != 0)
		return;
	progress_write_text(slot, nl + 1);
	ereport(LOG,
			(errmsg("initial snapshot of slot \"%s\": progress committed to Kafka adopted", slot)));
}

/* Forget an unfinished initial snapshot (its slot is gone or about to be). */
void
snapshot_forget_initial(const char *slot)
{
	if (snapshot_initial_pending(slot))
		durable_unlink(progress_path(slot), ERROR);
}

/* A text[] of the key texts, or a null Datum. */
static Datum
keys_array(const TableProgress *tp, char *isnull)
{
	Datum	   *elems;

	*isnull = (tp->keys == NULL) ? 'n' : ' ';
	if (tp->keys == NULL)
		return (Datum) 0;
	elems = palloc(sizeof(Datum) * tp->nkeys);
	for (int k = 0; k < tp->nkeys; k++)
		elems[k] = CStringGetTextDatum(tp->keys[k]);
	return PointerGetDatum(construct_array(elems, tp->nkeys, TEXTOID, -1, false, TYPALIGN_INT));
}

/*
 * The initial snapshot of this slot was interrupted: its transaction and
 * snapshot are gone.  The tables it had not finished become incremental
 * snapshots ("resumed") that start after the last key Kafka acknowledged,
 * and the stream starts at the slot's consistent point as planned.
 */
void
snapshot_resume_initial(const char *slot)
{
	MemoryContext cxt = CurrentMemoryContext;
	int			n;
	TableProgress *tp = progress_read(slot, &n);
	int			resumed = 0;

	if (tp == NULL)
		return;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
	/* a crash after this transaction and before the unlink repeats it */
	SPI_execute("DELETE FROM cdc_kafka.snapshots WHERE kind OPERATOR(pg_catalog.=) 'resumed' "
				"AND state OPERATOR(pg_catalog.=) ANY ('{pending,running}'::pg_catalog.text[])",
				false, 0);
	for (int i = 0; i < n; i++)
	{
		Oid			types[4] = {OIDOID, TEXTARRAYOID, INT8OID, OIDOID};
		Datum		values[4];
		char		nulls[4] = {' ', ' ', ' ', ' '};

		if (tp[i].done)
			continue;
		values[0] = ObjectIdGetDatum(tp[i].relid);
		values[1] = keys_array(&tp[i], &nulls[1]);
		values[2] = Int64GetDatum(tp[i].rows);
		values[3] = ObjectIdGetDatum(BOOTSTRAP_SUPERUSERID);
		SPI_execute_with_args("INSERT INTO cdc_kafka.snapshots (table_oid, table_name, kind, "
							  "last_key, rows_sent, requested_by, requested_by_superuser) "
							  "SELECT $1, coalesce((SELECT pg_catalog.format('%I.%I', n.nspname, c.relname) "
							  "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
							  "ON n.oid OPERATOR(pg_catalog.=) c.relnamespace "
							  "WHERE c.oid OPERATOR(pg_catalog.=) $1), $1::pg_catalog.text), "
							  "'resumed', $2, $3, $4, true",
							  4, types, values, nulls, false, 0);
		resumed++;
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	durable_unlink(progress_path(slot), ERROR);
	ereport(LOG,
			(errmsg("the initial snapshot of slot \"%s\" was interrupted; %d tables continue as incremental snapshots",
					slot, resumed)));
}
