/*-------------------------------------------------------------------------
 *
 * plugin.c
 *		The cdc_kafka logical decoding output plugin.
 *
 * Each committed change of a published table becomes one or more Kafka
 * records in Debezium's format, one output row per record: a create,
 * update or delete event, the tombstone after a delete, the delete +
 * tombstone + create of a primary-key change, an op "t" event per
 * truncated table, an op "m" event per logical decoding message, and with
 * transaction metadata a BEGIN and an END record.  A partition published
 * via its partition root goes out as that root: its rows in the root's
 * shape, a TRUNCATE of the root as one event, of the partition as none.
 * How a row is framed (value only, the whole record, or binary frames for
 * the streaming worker) is recout.c's business; the envelope is encoder.c's.
 *
 * Streaming of in-progress transactions is off: a transaction reaches the
 * callbacks whole at commit, after the reorder buffer has spilled it to
 * disk beyond logical_decoding_work_mem, and every change is encoded in a
 * memory context reset afterwards, so memory does not grow with
 * transaction size.
 *
 * src/plugin/plugin.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "catalog/pg_publication.h"
#include "replication/logical.h"
#include "replication/origin.h"
#include "replication/output_plugin.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "plugin/avroout.h"
#include "plugin/compat.h"
#include "plugin/encoder.h"
#include "plugin/msgfilter.h"
#include "plugin/options.h"
#include "plugin/plugin.h"
#include "plugin/pubfilter.h"
#include "plugin/recout.h"
#include "plugin/relinfo.h"
#include "plugin/textenc.h"
#include "plugin/typemap.h"
#include "plugin/outbox.h"
#include "plugin/route.h"
#include "plugin/unwrap.h"

typedef struct CdcPluginState
{
	CdcOptions	opts;
	MemoryContext change_cxt;	/* reset after every change */
	MemoryContext txn_cxt;		/* reset after every transaction */
	uint64		last_commit_lsn;	/* end LSN of the last transaction sent */
	TimestampTz last_commit_time;
	char	   *message_topic;
	char	   *txn_topic;
	CdcKeyRoute *message_key_route;	/* route.c: how their keys change, or NULL */
	CdcKeyRoute *txn_key_route;
	CdcMsgFilter *msgfilter;	/* which messages are sent */
} CdcPluginState;

/* What the error context callback reports about the change being encoded. */
typedef struct ChangeErrorInfo
{
	const char *schemaname;
	const char *relname;
	XLogRecPtr	lsn;
} ChangeErrorInfo;

/* looked up by name when a slot names plugin "cdc_kafka" */
extern PGDLLEXPORT void _PG_output_plugin_init(OutputPluginCallbacks *cb);

static void plugin_startup(LogicalDecodingContext *ctx, OutputPluginOptions *opt,
						   bool is_init);
static void plugin_shutdown(LogicalDecodingContext *ctx);
static void plugin_begin(LogicalDecodingContext *ctx, ReorderBufferTXN *txn);
static void plugin_commit(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
						  XLogRecPtr commit_lsn);
static void plugin_change(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
						  Relation relation, ReorderBufferChange *change);
static void plugin_truncate(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
							int nrelations, Relation relations[],
							ReorderBufferChange *change);
static void plugin_message(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
						   XLogRecPtr lsn, bool transactional, const char *prefix,
						   Size sz, const char *message);

void
_PG_output_plugin_init(OutputPluginCallbacks *cb)
{
	AssertVariableIsOfType(&_PG_output_plugin_init, LogicalOutputPluginInit);

	cb->startup_cb = plugin_startup;
	cb->begin_cb = plugin_begin;
	cb->change_cb = plugin_change;
	cb->truncate_cb = plugin_truncate;
	cb->message_cb = plugin_message;
	cb->commit_cb = plugin_commit;
	cb->shutdown_cb = plugin_shutdown;
}

/* ---- session ----------------------------------------------------------------- */

static void
plugin_startup(LogicalDecodingContext *ctx, OutputPluginOptions *opt, bool is_init)
{
	CdcPluginState *state = MemoryContextAllocZero(ctx->context, sizeof(CdcPluginState));
	MemoryContext oldcxt = MemoryContextSwitchTo(ctx->context);

	/* no catalog access for encoding conversions once decoding runs */
	textenc_init();
	options_set_defaults(&state->opts);
	options_parse(&state->opts, ctx->output_plugin_options);
	state->change_cxt = AllocSetContextCreate(ctx->context, "cdc_kafka change",
											  ALLOCSET_DEFAULT_SIZES);
	state->txn_cxt = AllocSetContextCreate(ctx->context, "cdc_kafka transaction",
										   ALLOCSET_DEFAULT_SIZES);
	/* ".message" whatever topic.delimiter says, as in Debezium */
	state->message_topic = psprintf("%s.message", state->opts.topic_prefix);
	/* Debezium sanitises neither: their parts are valid topic names */
	state->txn_topic = psprintf("%s%s%s", state->opts.topic_prefix,
								state->opts.topic_delimiter, state->opts.topic_transaction);
	state->message_key_route = route_other(&state->opts, &state->message_topic);
	state->txn_key_route = route_other(&state->opts, &state->txn_topic);
	/* Debezium continues from its last commit; ours is the slot's position */
	state->last_commit_lsn = ctx->slot ? ctx->slot->data.confirmed_flush : 0;
	state->last_commit_time = GetCurrentTimestamp();
	relinfo_cache_init(ctx->context, &state->opts);
	state->msgfilter = msgfilter_create(state->opts.message_prefix_include_list,
										state->opts.message_prefix_exclude_list);
	MemoryContextSwitchTo(oldcxt);

	ctx->output_plugin_private = state;
	avroout_forget();
	/* Avro values as rows are bytes; as records, base64 in the JSON */
	opt->output_type = state->opts.output_format == CDC_OUTPUT_BINARY ||
		(state->opts.output_format == CDC_OUTPUT_VALUE &&
		 state->opts.record_format == CDC_FORMAT_AVRO) ?
		OUTPUT_PLUGIN_BINARY_OUTPUT : OUTPUT_PLUGIN_TEXTUAL_OUTPUT;
	/* whole transactions only: records must not reach Kafka before commit */
	ctx->streaming = false;
	ctx->twophase = false;
}

static void
plugin_shutdown(LogicalDecodingContext *ctx)
{
	relinfo_cache_destroy();
}

/* ---- transactions --------------------------------------------------------------- */

static void
plugin_begin(LogicalDecodingContext *ctx, ReorderBufferTXN *txn)
{
	CdcPluginState *state = ctx->output_plugin_private;
	CdcTxnState *ts = MemoryContextAllocZero(state->txn_cxt, sizeof(CdcTxnState));
	char	   *origin = NULL;

	ts->cxt = state->txn_cxt;
	ts->xid = txn->xid;
	ts->commit_time = txn->xact_time.commit_time;
	ts->last_commit_lsn = state->last_commit_lsn;
	ts->end_lsn = txn->end_lsn;
	if (txn->origin_id != InvalidRepOriginId &&
		replorigin_by_oid(txn->origin_id, true, &origin))
	{
		ts->origin = MemoryContextStrdup(state->txn_cxt, origin);
		ts->origin_lsn = txn->origin_lsn;
	}
	txn->output_plugin_private = ts;
}

/* Write one transaction metadata record (BEGIN or END) at lsn. */
static void
write_txn_record(LogicalDecodingContext *ctx, CdcTxnState *ts, bool is_begin,
				 uint64 lsn)
{
	CdcPluginState *state = ctx->output_plugin_private;
	CdcRecordOut ro;
	StringInfoData id;

	initStringInfo(&id);
	encoder_txn_id(&id, ts->xid, lsn, &state->opts);
	OutputPluginPrepareWrite(ctx, true);
	recout_begin(&ro, ctx->out, state->opts.output_format, state->txn_topic, lsn,
				 InvalidOid);
	recout_use_format(&ro, &state->opts);
	if (recout_wants_key(&ro))
	{
		recout_key_begin(&ro);
		encoder_write_txn_key(ctx->out, id.data, state->txn_key_route, &state->opts);
		recout_key_end(&ro);
	}
	recout_value_begin(&ro);
	encoder_write_txn_value(ctx->out, is_begin, id.data, ts, &state->opts);
	recout_value_end(&ro);
	recout_end(&ro);
	OutputPluginWrite(ctx, true);
	ts->nrecords++;
	pfree(id.data);
}

/*
 * pgoutput sends a transaction to Debezium (BEGIN ... COMMIT) once the
 * transaction has a published change, message or truncate, even when
 * Debezium then skips every event (skipped.operations).  From then on
 * Debezium has a BEGIN metadata record out and will count the COMMIT as
 * its last commit; called at each such change, it acts on the first.
 */
static void
txn_published(LogicalDecodingContext *ctx, CdcTxnState *ts, uint64 lsn)
{
	CdcPluginState *state = ctx->output_plugin_private;

	if (ts->began)
		return;
	ts->began = true;
	ts->begin_lsn = lsn;
	if (state->opts.transaction_metadata)
		write_txn_record(ctx, ts, true, lsn);
}

static void
plugin_commit(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, XLogRecPtr commit_lsn)
{
	CdcPluginState *state = ctx->output_plugin_private;
	CdcTxnState *ts = txn->output_plugin_private;
	bool		sent = ts != NULL && ts->began;

	if (sent)
	{
		if (state->opts.transaction_metadata)
			write_txn_record(ctx, ts, false, txn->end_lsn);
		if (state->opts.output_format == CDC_OUTPUT_BINARY)
		{
			OutputPluginPrepareWrite(ctx, true);
			recout_commit_marker(ctx->out, txn->end_lsn, txn->xact_time.commit_time);
			OutputPluginWrite(ctx, true);
		}
		state->last_commit_lsn = txn->end_lsn;
		state->last_commit_time = txn->xact_time.commit_time;
	}
	OutputPluginUpdateProgress(ctx, !sent);
	txn->output_plugin_private = NULL;
	MemoryContextReset(state->txn_cxt);
}

/* ---- row images ------------------------------------------------------------------ */

static bool
is_unchanged_toast(const CdcColumn *col, Datum value)
{
	return col->typlen == -1 && VARATT_IS_EXTERNAL_ONDISK(DatumGetPointer(value));
}

/*
 * Deform tuple into a row in the relation entry's column order (through
 * the entry's attrmap when a partition goes out as an ancestor laid out
 * differently).  For a new row, an unchanged TOASTed value is taken from
 * the old row when that has it (REPLICA IDENTITY FULL), else marked for
 * the placeholder.
 */
static CdcRow *
make_row(const CdcRelInfo *ri, Relation rel, HeapTuple tuple, const CdcRow *old)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	bool	   *nulls = palloc(sizeof(bool) * desc->natts);
	CdcRow	   *row = palloc(sizeof(CdcRow));

	heap_deform_tuple(tuple, desc, values, nulls);
	row->values = palloc(sizeof(Datum) * Max(ri->ncolumns, 1));
	row->nulls = palloc(sizeof(bool) * Max(ri->ncolumns, 1));
	row->unchanged = NULL;
	for (int i = 0; i < ri->ncolumns; i++)
	{
		const CdcColumn *col = &ri->columns[i];
		AttrNumber	attnum = ri->attrmap ? ri->attrmap->attnums[col->attnum - 1] : col->attnum;
		int			a = attnum - 1;

		row->values[i] = values[a];
		row->nulls[i] = nulls[a];
		if (nulls[a] || !is_unchanged_toast(col, values[a]))
			continue;
		if (old != NULL && !old->nulls[i] && !is_unchanged_toast(col, old->values[i]))
		{
			row->values[i] = old->values[i];
			continue;
		}
		if (row->unchanged == NULL)
			row->unchanged = palloc0(sizeof(bool) * ri->ncolumns);
		row->unchanged[i] = true;
	}
	return row;
}

/*
 * Key column i of row as Debezium's key struct holds it, rendered, or NULL
 * for null: a value missing from an old key tuple is, in a required column,
 * the schema default or the type's fallback its converters put there; in an
 * optional column it stays null, though JsonConverter then writes the default.
 */
static const char *
key_value(const CdcColumn *col, const CdcRow *row, int i, const CdcOptions *opts)
{
	StringInfoData buf;

	if (row->nulls[i])
		return col->optional ? NULL : col->default_json ? col->default_json : col->fallback_json;
	initStringInfo(&buf);
	if (row->unchanged != NULL && row->unchanged[i])
		typemap_write_placeholder(&buf, col, opts);
	else
		typemap_write_value(&buf, col, row->values[i], opts);
	return buf.data;
}

/*
 * Do two rows have the same key?  Debezium compares the key structs after
 * conversion, so values that convert alike are equal (numeric 1.0 and 1.00
 * in most decimal modes), and so is a missing value and its fallback.
 */
static bool
same_key(const CdcRelInfo *ri, const CdcRow *a, const CdcRow *b, const CdcOptions *opts)
{
	for (int k = 0; k < ri->nkeys; k++)
	{
		int			i = ri->keys[k];
		const CdcColumn *col = &ri->columns[i];
		const char *va;
		const char *vb;

		if (!a->nulls[i] && !b->nulls[i] &&
			datumIsEqual(a->values[i], b->values[i], col->typbyval, col->typlen))
			continue;
		va = key_value(col, a, i, opts);
		vb = key_value(col, b, i, opts);
		if (va == NULL || vb == NULL ? va != vb : strcmp(va, vb) != 0)
			return false;
	}
	return true;
}

/* ---- writing change records -------------------------------------------------------- */

typedef struct ChangeRecord
{
	const CdcRelInfo *ri;
	CdcOp		op;
	const CdcRow *before;
	const CdcRow *after;
	const CdcRow *key;			/* row whose key columns make the record key */
	const char *header;			/* __debezium.newkey / oldkey, or NULL */
	const CdcRow *header_key;
	bool		tombstone;		/* null value instead of an envelope */
	bool		null_key;		/* truncate: no key */
	uint64		lsn;
	char	   *unwrap_meta;	/* unwrap: the delete's metadata, for its tombstone */
} ChangeRecord;

static void
write_record_key(LogicalDecodingContext *ctx, CdcRecordOut *ro, const ChangeRecord *rec,
				 const CdcOptions *opts)
{
	if (rec->null_key || rec->ri->nkeys == 0)
	{
		recout_key_null(ro);
		return;
	}
	recout_key_begin(ro);
	encoder_write_key(ctx->out, rec->ri, rec->key, opts);
	recout_key_end(ro);
}

/* A change record through the outbox transform: an event, or nothing. */
static void
write_outbox_record(LogicalDecodingContext *ctx, CdcTxnState *ts, ChangeRecord *rec)
{
	CdcPluginState *state = ctx->output_plugin_private;
	const CdcOptions *opts = &state->opts;

	/* counted for transaction metadata as Debezium counts it: before transforms */
	if (!rec->tombstone)
	{
		StringInfoData meta;

		initStringInfo(&meta);
		encoder_write_envelope_meta(&meta, rec->ri, rec->op, ts, rec->lsn, opts);
		pfree(meta.data);
	}
	if (!outbox_accepts(opts, rec->ri, rec->op, rec->tombstone))
		return;
	OutputPluginPrepareWrite(ctx, true);
	outbox_write(ctx->out, opts->output_format, rec->ri, rec->ri->publish_relid, rec->after,
				 rec->lsn, rec->header, rec->header_key, opts);
	OutputPluginWrite(ctx, true);
	ts->nrecords++;
}

static void
write_change_record(LogicalDecodingContext *ctx, CdcTxnState *ts, ChangeRecord *rec)
{
	CdcPluginState *state = ctx->output_plugin_private;
	const CdcOptions *opts = &state->opts;
	CdcRecordOut ro;
	const char *topic = rec->ri->topic;
	UnwrapOutcome outcome = UNWRAP_FLAT;
	const CdcRow *row = rec->op == CDC_OP_DELETE ? rec->before : rec->after;
	StringInfoData meta;

	if (opts->outbox != NULL)
	{
		write_outbox_record(ctx, ts, rec);
		return;
	}
	if (opts->unwrap != NULL)
	{
		/* the envelope's metadata, counted even when the record is dropped */
		initStringInfo(&meta);
		if (!rec->tombstone)
			encoder_write_envelope_meta(&meta, rec->ri, rec->op, ts, rec->lsn, opts);
		/* Debezium's tombstone shares its delete's headers: keep them */
		if (rec->op == CDC_OP_DELETE && !rec->tombstone)
			rec->unwrap_meta = MemoryContextStrdup(state->change_cxt, meta.data);
		outcome = unwrap_outcome(opts->unwrap, rec->op, rec->tombstone);
		if (outcome == UNWRAP_SKIP)
			return;
		topic = unwrap_topic(opts->unwrap, rec->ri, rec->tombstone ? NULL : row, opts);
	}
	OutputPluginPrepareWrite(ctx, true);
	recout_begin(&ro, ctx->out, opts->output_format, topic, rec->lsn,
				 rec->ri->publish_relid);
	recout_use_format(&ro, opts);
	if (recout_wants_key(&ro))
		write_record_key(ctx, &ro, rec, opts);
	if (opts->unwrap != NULL)
		unwrap_write_value(&ro, outcome, rec->ri, rec->op, row, meta.data, opts);
	else if (rec->tombstone)
		recout_value_null(&ro);
	else
	{
		recout_value_begin(&ro);
		encoder_write_change_value(ctx->out, rec->ri, rec->op, rec->before,
								   rec->after, ts, rec->lsn, opts);
		recout_value_end(&ro);
	}
	if (rec->header != NULL && recout_wants_key(&ro))
	{
		recout_header_begin(&ro, rec->header);
		encoder_write_header_key(ctx->out, rec->ri, rec->header_key, opts);
		recout_header_end(&ro);
	}
	if (opts->extended_headers && recout_wants_key(&ro))
		encoder_write_context_headers(&ro, opts);
	if (opts->unwrap != NULL && recout_wants_key(&ro))
		unwrap_write_headers(&ro, opts->unwrap, rec->tombstone ? rec->unwrap_meta : meta.data,
							 rec->tombstone, opts);
	recout_end(&ro);
	OutputPluginWrite(ctx, true);
	ts->nrecords++;
}

/* A delete event and, unless disabled, its tombstone (same key, same headers). */
static void
write_delete(LogicalDecodingContext *ctx, CdcTxnState *ts, ChangeRecord *rec)
{
	CdcPluginState *state = ctx->output_plugin_private;

	rec->op = CDC_OP_DELETE;
	rec->after = NULL;
	rec->key = rec->before;
	write_change_record(ctx, ts, rec);
	if (state->opts.tombstones_on_delete)
	{
		rec->tombstone = true;
		write_change_record(ctx, ts, rec);
		rec->tombstone = false;
	}
}

/* An UPDATE that changed the key: delete (+ tombstone) of the old, create of the new. */
static void
write_key_change(LogicalDecodingContext *ctx, CdcTxnState *ts, ChangeRecord *rec,
				 const CdcRow *oldrow, const CdcRow *newrow)
{
	rec->before = oldrow;
	rec->header = "__debezium.newkey";
	rec->header_key = newrow;
	write_delete(ctx, ts, rec);

	rec->op = CDC_OP_CREATE;
	rec->before = NULL;
	rec->after = newrow;
	rec->key = newrow;
	rec->header = "__debezium.oldkey";
	rec->header_key = oldrow;
	write_change_record(ctx, ts, rec);
}

static bool
op_skipped(const CdcOptions *opts, ReorderBufferChangeType action)
{
	switch (action)
	{
		case REORDER_BUFFER_CHANGE_INSERT:
			return (opts->skipped_ops & CDC_SKIP_CREATE) != 0;
		case REORDER_BUFFER_CHANGE_UPDATE:
			return (opts->skipped_ops & CDC_SKIP_UPDATE) != 0;
		case REORDER_BUFFER_CHANGE_DELETE:
			return (opts->skipped_ops & CDC_SKIP_DELETE) != 0;
		default:
			return true;
	}
}

static void
encode_change(LogicalDecodingContext *ctx, CdcTxnState *ts, const CdcRelInfo *ri,
			  Relation rel, ReorderBufferChangeType action,
			  HeapTuple oldtuple, HeapTuple newtuple, XLogRecPtr lsn)
{
	CdcPluginState *state = ctx->output_plugin_private;
	CdcRow	   *oldrow = oldtuple ? make_row(ri, rel, oldtuple, NULL) : NULL;
	CdcRow	   *newrow = newtuple ? make_row(ri, rel, newtuple, oldrow) : NULL;
	ChangeRecord rec = {.ri = ri, .lsn = lsn};

	switch (action)
	{
		case REORDER_BUFFER_CHANGE_INSERT:
			rec.op = CDC_OP_CREATE;
			rec.after = rec.key = newrow;
			write_change_record(ctx, ts, &rec);
			break;
		case REORDER_BUFFER_CHANGE_UPDATE:
			if (oldrow != NULL && ri->nkeys > 0 &&
				!same_key(ri, oldrow, newrow, &state->opts))
			{
				write_key_change(ctx, ts, &rec, oldrow, newrow);
				break;
			}
			rec.op = CDC_OP_UPDATE;
			rec.before = oldrow;
			rec.after = rec.key = newrow;
			write_change_record(ctx, ts, &rec);
			break;
		case REORDER_BUFFER_CHANGE_DELETE:
			rec.before = oldrow;
			write_delete(ctx, ts, &rec);
			break;
		default:
			break;
	}
}

static void
change_error_callback(void *arg)
{
	ChangeErrorInfo *info = arg;

	errcontext("cdc_kafka encoding a change of table \"%s.%s\" at LSN %X/%X",
			   info->schemaname, info->relname, LSN_FORMAT_ARGS(info->lsn));
}

static void
plugin_change(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, Relation relation,
			  ReorderBufferChange *change)
{
	CdcPluginState *state = ctx->output_plugin_private;
	ReorderBufferChangeType action = change->action;
	HeapTuple	oldtuple = compat_change_tuple(change->data.tp.oldtuple);
	HeapTuple	newtuple = compat_change_tuple(change->data.tp.newtuple);
	CdcRelInfo *ri;
	MemoryContext oldcxt;
	ChangeErrorInfo info;
	ErrorContextCallback errcb;

	if (!is_publishable_relation(relation))
		return;
	ri = relinfo_get(relation);
	if (!ri->published || !pubfilter_publishes(ri->pubfilter, action))
		return;
	/* a delete without old key (REPLICA IDENTITY NOTHING) cannot be sent */
	if (action == REORDER_BUFFER_CHANGE_DELETE && oldtuple == NULL)
		return;

	info.schemaname = ri->schemaname;
	info.relname = ri->relname;
	info.lsn = change->lsn;
	errcb.callback = change_error_callback;
	errcb.arg = &info;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	oldcxt = MemoryContextSwitchTo(state->change_cxt);
	if (pubfilter_row(ri->pubfilter, relation, oldtuple, newtuple, &action))
	{
		txn_published(ctx, txn->output_plugin_private, change->lsn);
		if (!op_skipped(&state->opts, action))
			encode_change(ctx, txn->output_plugin_private, ri, relation, action,
						  oldtuple, newtuple, change->lsn);
	}
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(state->change_cxt);
	error_context_stack = errcb.previous;
}

/* ---- truncate and messages ------------------------------------------------------------ */

static void
plugin_truncate(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, int nrelations,
				Relation relations[], ReorderBufferChange *change)
{
	CdcPluginState *state = ctx->output_plugin_private;
	CdcTxnState *ts = txn->output_plugin_private;
	bool		skipped = (state->opts.skipped_ops & CDC_SKIP_TRUNCATE) != 0;
	MemoryContext oldcxt;

	for (int i = 0; i < nrelations; i++)
	{
		CdcRelInfo *ri;
		ChangeRecord rec = {.op = CDC_OP_TRUNCATE, .null_key = true, .lsn = change->lsn};

		if (!is_publishable_relation(relations[i]))
			continue;
		ri = relinfo_get(relations[i]);
		if (!ri->published || !pubfilter_publishes_truncate(ri->pubfilter))
			continue;
		/* published via its root: the root is in the list (or not truncated) */
		if (ri->publish_relid != ri->relid)
			continue;
		txn_published(ctx, ts, change->lsn);
		if (skipped)
			continue;
		rec.ri = ri;
		oldcxt = MemoryContextSwitchTo(state->change_cxt);
		write_change_record(ctx, ts, &rec);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(state->change_cxt);
	}
}

/* The state a non-transactional message is encoded with. */
static CdcTxnState *
standalone_state(CdcPluginState *state)
{
	CdcTxnState *ts = palloc0(sizeof(CdcTxnState));

	ts->cxt = CurrentMemoryContext;
	ts->xid = InvalidTransactionId;
	ts->commit_time = state->last_commit_time;
	ts->last_commit_lsn = state->last_commit_lsn;
	return ts;
}

/*
 * A message the prefix lists leave out: Debezium filters it after the
 * bookkeeping, so a standalone one still counts as a commit (the worker may
 * confirm past it) and a transactional one still has its transaction sent
 * (BEGIN and END, however many events are left).
 */
static void
message_filtered(LogicalDecodingContext *ctx, CdcPluginState *state,
				 ReorderBufferTXN *txn, bool transactional, XLogRecPtr lsn)
{
	if (transactional)
	{
		txn_published(ctx, txn->output_plugin_private, lsn);
		return;
	}
	state->last_commit_lsn = lsn;
	if (state->opts.output_format == CDC_OUTPUT_BINARY)
	{
		OutputPluginPrepareWrite(ctx, true);
		recout_commit_marker(ctx->out, lsn + 1, state->last_commit_time);
		OutputPluginWrite(ctx, true);
	}
}

static void
plugin_message(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, XLogRecPtr lsn,
			   bool transactional, const char *prefix, Size sz, const char *message)
{
	CdcPluginState *state = ctx->output_plugin_private;
	MemoryContext oldcxt;
	CdcTxnState *ts;
	CdcRecordOut ro;

	/* the streaming worker's snapshot watermarks are for it alone */
	if (state->opts.watermark_prefix != NULL &&
		state->opts.output_format == CDC_OUTPUT_BINARY &&
		strcmp(prefix, state->opts.watermark_prefix) == 0)
	{
		OutputPluginPrepareWrite(ctx, true);
		recout_watermark(ctx->out, lsn, message, sz);
		OutputPluginWrite(ctx, true);
		return;
	}
	oldcxt = MemoryContextSwitchTo(state->change_cxt);
	if (!msgfilter_included(state->msgfilter, prefix))
	{
		message_filtered(ctx, state, txn, transactional, lsn);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(state->change_cxt);
		return;
	}
	ts = transactional ? txn->output_plugin_private : standalone_state(state);

	if (transactional)
		txn_published(ctx, ts, lsn);
	else
	{
		/* Debezium counts a standalone message as a commit before sending it */
		state->last_commit_lsn = lsn;
		ts->last_commit_lsn = lsn;
	}
	OutputPluginPrepareWrite(ctx, true);
	recout_begin(&ro, ctx->out, state->opts.output_format, state->message_topic, lsn,
				 InvalidOid);
	recout_use_format(&ro, &state->opts);
	if (recout_wants_key(&ro))
	{
		recout_key_begin(&ro);
		encoder_write_message_key(ctx->out, prefix, state->message_key_route, &state->opts);
		recout_key_end(&ro);
	}
	recout_value_begin(&ro);
	encoder_write_message_value(ctx->out, prefix, message, sz, ts, lsn, &state->opts);
	recout_value_end(&ro);
	recout_end(&ro);
	OutputPluginWrite(ctx, true);

	if (!transactional)
	{
		/* the worker may confirm past a standalone message once Kafka has it */
		if (state->opts.output_format == CDC_OUTPUT_BINARY)
		{
			OutputPluginPrepareWrite(ctx, true);
			recout_commit_marker(ctx->out, lsn + 1, state->last_commit_time);
			OutputPluginWrite(ctx, true);
		}
	}
	else
		ts->nrecords++;
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(state->change_cxt);
}
