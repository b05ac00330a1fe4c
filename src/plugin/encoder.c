/*-------------------------------------------------------------------------
 *
 * encoder.c
 *		The Debezium envelope: record keys and values of change events,
 *		logical decoding messages and transaction metadata, written as
 *		Kafka's JsonConverter writes them (schemas.enable on or off).
 *
 * Field order, schema names and null handling follow Debezium 3.6 under
 * JsonConverter: every schema field is written even when null, a null
 * value of a field with a default is written as the default, and the
 * "source" block carries "snapshot":"false" that way.  The per-table parts
 * of the schemas are pre-rendered by relinfo.c; the fixed parts are here.
 *
 * src/plugin/encoder.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "mb/pg_wchar.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "common/hstoretext.h"
#include "common/jsonout.h"
#include "common/temporal.h"
#include "plugin/bufappend.h"
#include "plugin/colmask.h"
#include "plugin/encoder.h"
#include "plugin/envelope.h"
#include "plugin/options.h"
#include "plugin/plugin.h"
#include "plugin/recout.h"
#include "plugin/relinfo.h"
#include "plugin/textenc.h"
#include "plugin/typemap.h"

#define TXN_VALUE_SCHEMA \
	"{\"type\":\"struct\",\"fields\":[" \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"status\"}," \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"id\"}," \
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"event_count\"}," \
	"{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[" \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"data_collection\"}," \
	"{\"type\":\"int64\",\"optional\":false,\"field\":\"event_count\"}]," \
	"\"optional\":true,\"name\":\"event.collection\",\"version\":1}," \
	"\"optional\":true,\"field\":\"data_collections\"}," \
	"{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"}]," \
	"\"optional\":false,\"name\":\"io.debezium.connector.common.TransactionMetadataValue\"," \
	"\"version\":1}"

/* ---- small writers ------------------------------------------------------------ */

static void
append_int64(StringInfo buf, int64 v)
{
	char		tmp[JSONOUT_NUMBER_MAX];

	bufappend_bytes(buf, tmp, jsonout_int64(v, tmp));
}

/* PostgreSQL timestamps count microseconds from 2000-01-01. */
static int64
unix_micros(TimestampTz ts)
{
	return ts + TEMPORAL_PG_EPOCH_USECS;
}

/* Milliseconds as java.time.Instant.toEpochMilli gives them: floor. */
static int64
floor_millis(int64 us)
{
	return (us >= 0) ? us / 1000 : -((-us + 999) / 1000);
}

/* Wall-clock now in Unix microseconds, or 0 for deterministic output. */
static int64
now_micros(const CdcOptions *opts)
{
	return opts->deterministic ? 0 : unix_micros(GetCurrentTimestamp());
}

/* The envelope's ts_ms of an event written now (0 when deterministic). */
int64
encoder_event_ts_ms(const CdcOptions *opts)
{
	return floor_millis(now_micros(opts));
}

/*
 * "ts_ms":...,"ts_us":...,"ts_ns":... of one instant.  For the usual
 * positive microsecond counts of 4+ digits the three are the same digits
 * cut or extended, so they are formatted once.
 */
static void
append_ts_fields(StringInfo buf, int64 us)
{
	char		digits[JSONOUT_NUMBER_MAX];
	size_t		n;

	if (us < 1000)
	{
		BUFAPPEND_LITERAL(buf, "\"ts_ms\":");
		append_int64(buf, floor_millis(us));
		BUFAPPEND_LITERAL(buf, ",\"ts_us\":");
		append_int64(buf, us);
		BUFAPPEND_LITERAL(buf, ",\"ts_ns\":");
		append_int64(buf, us * 1000);
		return;
	}
	n = jsonout_int64(us, digits);
	BUFAPPEND_LITERAL(buf, "\"ts_ms\":");
	bufappend_bytes(buf, digits, n - 3);
	BUFAPPEND_LITERAL(buf, ",\"ts_us\":");
	bufappend_bytes(buf, digits, n);
	BUFAPPEND_LITERAL(buf, ",\"ts_ns\":");
	bufappend_bytes(buf, digits, n);
	BUFAPPEND_LITERAL(buf, "000");
}

/* "<xid>:<lsn>", Debezium's transaction id for PostgreSQL. */
void
encoder_txn_id(StringInfo buf, TransactionId xid, uint64 lsn, const CdcOptions *opts)
{
	if (opts->deterministic)
		BUFAPPEND_LITERAL(buf, "0:0");
	else
		appendStringInfo(buf, "%u:" UINT64_FORMAT, xid, lsn);
}

/* ---- source and transaction blocks ---------------------------------------- */

static void
append_lsn_string(StringInfo buf, uint64 lsn, const CdcOptions *opts)
{
	if (lsn == 0)
		BUFAPPEND_LITERAL(buf, "null");
	else
	{
		BUFAPPEND_LITERAL(buf, "\\\"");
		append_int64(buf, opts->deterministic ? 0 : (int64) lsn);
		BUFAPPEND_LITERAL(buf, "\\\"");
	}
}

/*
 * The parts of the "source" block that are the same for every record of a
 * transaction (or of a snapshot), rendered once (they are most of the block):
 *	head	"source":{"version":...,"ts_ms":...,"snapshot":
 *	head2	,"db":...,"sequence":"[<last commit>,
 *	mid		]","ts_us":...,"ts_ns":...
 *	txid	,"txId":...,"lsn":
 *	tail	,"xmin":null,"origin":...,"origin_lsn":...}
 * Per record only the snapshot marker, the LSN (twice) and the table go in
 * between.
 */
static void
render_source_parts(CdcTxnState *txn, bool has_xid, const CdcOptions *opts)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(txn->cxt);
	int64		commit_us = opts->deterministic ? 0 : unix_micros(txn->commit_time);
	StringInfoData b;

	initStringInfo(&b);
	BUFAPPEND_LITERAL(&b, "\"source\":{\"version\":\"" CDC_DEBEZIUM_VERSION
				   "\",\"connector\":\"postgresql\",\"name\":");
	textenc_append_json(&b, opts->topic_prefix, strlen(opts->topic_prefix));
	BUFAPPEND_LITERAL(&b, ",\"ts_ms\":");
	append_int64(&b, floor_millis(commit_us));
	BUFAPPEND_LITERAL(&b, ",\"snapshot\":");
	txn->src_head = b.data;
	txn->src_head_len = b.len;

	initStringInfo(&b);
	BUFAPPEND_LITERAL(&b, ",\"db\":");
	textenc_append_json_utf8(&b, opts->dbname, strlen(opts->dbname));
	BUFAPPEND_LITERAL(&b, ",\"sequence\":\"[");
	append_lsn_string(&b, txn->last_commit_lsn, opts);
	bufappend_char(&b, ',');
	txn->src_head2 = b.data;
	txn->src_head2_len = b.len;

	initStringInfo(&b);
	BUFAPPEND_LITERAL(&b, "]\",\"ts_us\":");
	append_int64(&b, commit_us);
	BUFAPPEND_LITERAL(&b, ",\"ts_ns\":");
	append_int64(&b, commit_us * 1000);
	txn->src_mid = b.data;
	txn->src_mid_len = b.len;

	initStringInfo(&b);
	BUFAPPEND_LITERAL(&b, ",\"txId\":");
	if (has_xid)
		append_int64(&b, opts->deterministic ? 0 : (int64) txn->xid);
	else
		BUFAPPEND_LITERAL(&b, "null");
	BUFAPPEND_LITERAL(&b, ",\"lsn\":");
	txn->src_txid = b.data;
	txn->src_txid_len = b.len;

	initStringInfo(&b);
	BUFAPPEND_LITERAL(&b, ",\"xmin\":null,\"origin\":");
	if (txn->origin != NULL)
		textenc_append_json(&b, txn->origin, strlen(txn->origin));
	else
		BUFAPPEND_LITERAL(&b, "null");
	BUFAPPEND_LITERAL(&b, ",\"origin_lsn\":");
	if (txn->origin != NULL && txn->origin_lsn != 0)
		append_int64(&b, opts->deterministic ? 0 : (int64) txn->origin_lsn);
	else
		BUFAPPEND_LITERAL(&b, "null");
	bufappend_char(&b, '}');
	txn->src_tail = b.data;
	txn->src_tail_len = b.len;
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The "source" block of a record at lsn (0: no position, as Debezium's
 * incremental snapshot reads have none).  marker is the "snapshot" field's
 * JSON; table_suffix is ,"schema":...,"table":... of the table (or of ""
 * for messages).
 */
static void
append_source(StringInfo buf, CdcTxnState *txn, uint64 lsn, bool has_xid,
			  const char *marker, const char *table_suffix, int suffix_len,
			  const CdcOptions *opts)
{
	if (txn->src_head == NULL)
		render_source_parts(txn, has_xid, opts);
	bufappend_bytes(buf, txn->src_head, txn->src_head_len);
	appendStringInfoString(buf, marker);
	bufappend_bytes(buf, txn->src_head2, txn->src_head2_len);
	append_lsn_string(buf, lsn, opts);
	bufappend_bytes(buf, txn->src_mid, txn->src_mid_len);
	bufappend_bytes(buf, table_suffix, suffix_len);
	bufappend_bytes(buf, txn->src_txid, txn->src_txid_len);
	if (lsn == 0)
		BUFAPPEND_LITERAL(buf, "null");
	else
		append_int64(buf, opts->deterministic ? 0 : (int64) lsn);
	bufappend_bytes(buf, txn->src_tail, txn->src_tail_len);
}

/* Count one data event of collection; returns its order within that collection. */
static int64
count_event(CdcTxnState *txn, const char *collection)
{
	ListCell   *lc;
	CdcCollectionCount *cc;
	MemoryContext oldcxt;

	txn->event_count++;
	foreach(lc, txn->collections)
	{
		cc = lfirst(lc);
		if (strcmp(cc->name, collection) == 0)
			return ++cc->count;
	}
	/* the counts outlive the change being encoded */
	oldcxt = MemoryContextSwitchTo(txn->cxt);
	cc = palloc(sizeof(CdcCollectionCount));
	cc->name = pstrdup(collection);
	cc->count = 1;
	txn->collections = lappend(txn->collections, cc);
	MemoryContextSwitchTo(oldcxt);
	return 1;
}

/* The per-event "transaction" block, or null without transaction metadata. */
static void
append_transaction_block(StringInfo buf, CdcTxnState *txn, const char *collection,
						 uint64 lsn, const CdcOptions *opts)
{
	int64		order;

	BUFAPPEND_LITERAL(buf, "\"transaction\":");
	if (!opts->transaction_metadata || txn == NULL)
	{
		BUFAPPEND_LITERAL(buf, "null");
		return;
	}
	order = count_event(txn, collection);
	BUFAPPEND_LITERAL(buf, "{\"id\":\"");
	encoder_txn_id(buf, txn->xid, lsn, opts);
	BUFAPPEND_LITERAL(buf, "\",\"total_order\":");
	append_int64(buf, txn->event_count);
	BUFAPPEND_LITERAL(buf, ",\"data_collection_order\":");
	append_int64(buf, order);
	bufappend_char(buf, '}');
}

/* ---- change events ------------------------------------------------------------ */

/*
 * The value of one column of a row image: null becomes the schema default
 * (JsonConverter's replace.null.with.default), and a NOT NULL column without
 * a value (not in the old key tuple) its default or fallback.
 */
static void
append_column_value(StringInfo buf, const CdcColumn *col, const CdcRow *row, int i,
					const CdcOptions *opts)
{
	if (row->unchanged != NULL && row->unchanged[i])
		typemap_write_placeholder(buf, col, opts);
	else if (!row->nulls[i])
		typemap_write_value(buf, col, row->values[i], opts);
	else if (col->default_json != NULL)
		appendStringInfoString(buf, col->default_json);
	else if (col->fallback_json != NULL)
		appendStringInfoString(buf, col->fallback_json);
	else
		BUFAPPEND_LITERAL(buf, "null");
}

/* A value as a column mapper (colmask.c) reshapes it: values, not keys. */
static void
append_mapped_value(StringInfo buf, const CdcColumn *col, const CdcRow *row, int i,
					const CdcOptions *opts)
{
	StringInfoData value;

	/* JsonConverter writes the schema's default for a null, after the mapper */
	if (row->nulls[i] && !(row->unchanged != NULL && row->unchanged[i]))
	{
		append_column_value(buf, col, row, i, opts);
		return;
	}
	initStringInfo(&value);
	append_column_value(&value, col, row, i, opts);
	colmask_append_value(buf, col, value.data, value.len, opts);
	pfree(value.data);
}

/*
 * The column being written, named in the context of an error (a value
 * that does not convert to UTF-8, ...).
 */
typedef struct ColumnErrorInfo
{
	const CdcRelInfo *ri;
	int			column;
	ErrorContextCallback cb;
} ColumnErrorInfo;

static void
column_error_callback(void *arg)
{
	ColumnErrorInfo *info = arg;

	if (info->column >= 0)
		errcontext("column \"%s\" of table \"%s.%s\"",
				   info->ri->columns[info->column].name,
				   info->ri->schemaname, info->ri->relname);
}

static void
column_error_push(ColumnErrorInfo *info, const CdcRelInfo *ri)
{
	info->ri = ri;
	info->column = -1;
	info->cb.callback = column_error_callback;
	info->cb.arg = info;
	info->cb.previous = error_context_stack;
	error_context_stack = &info->cb;
}

/* Column i of a row image, as the row's value (not its key) carries it. */
static void
append_row_value(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row, int i,
				 const CdcOptions *opts)
{
	if (ri->columns[i].mask_json != NULL)	/* masks: values, not keys */
		appendStringInfoString(buf, ri->columns[i].mask_json);
	else if (ri->columns[i].mapper != NULL)
		append_mapped_value(buf, &ri->columns[i], row, i, opts);
	else
		append_column_value(buf, &ri->columns[i], row, i, opts);
}

/*
 * One column of a row image as the row's value carries it: what the
 * outbox transform picks out of the "after" row.
 */
void
encoder_write_column(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row, int i,
					 const CdcOptions *opts)
{
	ColumnErrorInfo err;

	column_error_push(&err, ri);
	err.column = i;
	append_row_value(buf, ri, row, i, opts);
	error_context_stack = err.cb.previous;
}

static void
append_row(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row, const CdcOptions *opts)
{
	ColumnErrorInfo err;

	if (row == NULL)
	{
		BUFAPPEND_LITERAL(buf, "null");
		return;
	}
	column_error_push(&err, ri);
	bufappend_char(buf, '{');
	for (int i = 0; i < ri->ncolumns; i++)
	{
		if (i > 0)
			bufappend_char(buf, ',');
		err.column = i;
		bufappend_bytes(buf, ri->columns[i].name_json, ri->columns[i].name_json_len);
		append_row_value(buf, ri, row, i, opts);
	}
	bufappend_char(buf, '}');
	error_context_stack = err.cb.previous;
}

static void write_key(StringInfo buf, const CdcRelInfo *ri, const char *prefix, int prefix_len,
					  const char *extra, const CdcRow *row, const CdcOptions *opts);

/*
 * The record key of a change: the key columns of row (caller checks nkeys),
 * then the route transform's field.
 */
void
encoder_write_key(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
				  const CdcOptions *opts)
{
	write_key(buf, ri, ri->key_prefix, ri->key_prefix_len, ri->route_key_field, row, opts);
}

/* A key header's value (__debezium.oldkey): the key as the route transform found it. */
void
encoder_write_header_key(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
						 const CdcOptions *opts)
{
	write_key(buf, ri, ri->header_key_prefix, ri->header_key_prefix_len, NULL, row, opts);
}

static void
write_key(StringInfo buf, const CdcRelInfo *ri, const char *prefix, int prefix_len,
		  const char *extra, const CdcRow *row, const CdcOptions *opts)
{
	ColumnErrorInfo err;

	column_error_push(&err, ri);
	bufappend_bytes(buf, prefix, prefix_len);
	bufappend_char(buf, '{');
	for (int k = 0; k < ri->nkeys; k++)
	{
		int			i = ri->keys[k];

		if (k > 0)
			bufappend_char(buf, ',');
		err.column = i;
		bufappend_bytes(buf, ri->columns[i].name_json, ri->columns[i].name_json_len);
		append_column_value(buf, &ri->columns[i], row, i, opts);
	}
	if (extra != NULL)
		appendStringInfoString(buf, extra);
	bufappend_char(buf, '}');
	if (opts->schemas)
		bufappend_char(buf, '}');
	error_context_stack = err.cb.previous;
}

/* A row image as a JSON object, null for none (the unwrap transform's payload). */
void
encoder_write_row(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
				  const CdcOptions *opts)
{
	append_row(buf, ri, row, opts);
}

/*
 * The envelope's fields after "before" and "after" of a change event:
 * "source":...,"transaction":...,"op":...,"ts_ms":...,"ts_us":...,"ts_ns":...
 * Counts the event for transaction metadata: call once per event.
 */
void
encoder_write_envelope_meta(StringInfo buf, const CdcRelInfo *ri, CdcOp op,
							CdcTxnState *txn, uint64 lsn, const CdcOptions *opts)
{
	char		optext[] = ",\"op\":\"x\",";

	append_source(buf, txn, lsn, true, "\"false\"", ri->source_suffix,
				  ri->source_suffix_len, opts);
	bufappend_char(buf, ',');
	append_transaction_block(buf, txn, ri->data_collection, lsn, opts);
	optext[7] = (char) op;
	bufappend_bytes(buf, optext, sizeof(optext) - 1);
	append_ts_fields(buf, now_micros(opts));
}

/* The record value of a change event (op c, u, d or t). */
void
encoder_write_change_value(StringInfo buf, const CdcRelInfo *ri, CdcOp op,
						   const CdcRow *before, const CdcRow *after,
						   CdcTxnState *txn, uint64 lsn, const CdcOptions *opts)
{
	bufappend_bytes(buf, ri->value_prefix, ri->value_prefix_len);
	BUFAPPEND_LITERAL(buf, "{\"before\":");
	append_row(buf, ri, before, opts);
	BUFAPPEND_LITERAL(buf, ",\"after\":");
	append_row(buf, ri, after, opts);
	bufappend_char(buf, ',');
	encoder_write_envelope_meta(buf, ri, op, txn, lsn, opts);
	bufappend_char(buf, '}');
	if (opts->schemas)
		bufappend_char(buf, '}');
}

/*
 * The envelope's fields after "before" and "after" of a snapshot read, as
 * encoder_write_envelope_meta's of a change (arguments as for
 * encoder_write_read_value below); the unwrap transform takes its added
 * fields from them.
 */
void
encoder_write_read_meta(StringInfo buf, const CdcRelInfo *ri, CdcTxnState *txn,
						const char *marker, uint64 lsn, const CdcOptions *opts)
{
	char		quoted[40];

	snprintf(quoted, sizeof(quoted), "\"%s\"", marker);
	append_source(buf, txn, lsn, TransactionIdIsValid(txn->xid), quoted,
				  ri->source_suffix, ri->source_suffix_len, opts);
	BUFAPPEND_LITERAL(buf, ",\"transaction\":null,\"op\":\"r\",");
	append_ts_fields(buf, now_micros(opts));
}

/*
 * The record value of a snapshot read (op "r").  marker is the source's
 * "snapshot" value (first, true, last, incremental, ...); lsn the slot's
 * consistent point of an initial snapshot, the chunk's low watermark for an
 * incremental one (whose reads carry no transaction id: txn->xid is then
 * invalid).
 */
void
encoder_write_read_value(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
						 CdcTxnState *txn, const char *marker, uint64 lsn,
						 const CdcOptions *opts)
{
	bufappend_bytes(buf, ri->value_prefix, ri->value_prefix_len);
	BUFAPPEND_LITERAL(buf, "{\"before\":null,\"after\":");
	append_row(buf, ri, row, opts);
	bufappend_char(buf, ',');
	encoder_write_read_meta(buf, ri, txn, marker, lsn, opts);
	bufappend_char(buf, '}');
	if (opts->schemas)
		bufappend_char(buf, '}');
}

/* ---- logical decoding messages ----------------------------------------------- */

/*
 * A key struct of one string field (version 1 schemas), renamed and with the
 * route transform's field added when route says so.
 */
static void
write_struct_key(StringInfo buf, const char *field, bool optional, const char *value,
				 const char *name, const CdcKeyRoute *route, const CdcOptions *opts)
{
	if (opts->schemas)
	{
		appendStringInfo(buf, "{\"schema\":{\"type\":\"struct\",\"fields\":["
						 "{\"type\":\"string\",\"optional\":%s,\"field\":\"%s\"}",
						 optional ? "true" : "false", field);
		if (route != NULL && route->field_schema != NULL)
			appendStringInfoString(buf, route->field_schema);
		BUFAPPEND_LITERAL(buf, "],\"optional\":false,\"name\":");
		if (route != NULL)
			name = route->name;
		textenc_append_json(buf, name, strlen(name));
		BUFAPPEND_LITERAL(buf, ",\"version\":1},\"payload\":");
	}
	appendStringInfo(buf, "{\"%s\":", field);
	textenc_append_json(buf, value, strlen(value));
	if (route != NULL && route->field != NULL)
		appendStringInfoString(buf, route->field);
	bufappend_char(buf, '}');
	if (opts->schemas)
		bufappend_char(buf, '}');
}

void
encoder_write_message_key(StringInfo buf, const char *prefix, const CdcKeyRoute *route,
						  const CdcOptions *opts)
{
	write_struct_key(buf, "prefix", true, prefix, "io.debezium.connector.postgresql.MessageKey",
					 route, opts);
}

static void
append_message_schema(StringInfo buf, const CdcOptions *opts)
{
	appendStringInfoString(buf, "{\"schema\":{\"type\":\"struct\",\"fields\":["
						   "{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},"
						   "{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"},"
						   CDC_SOURCE_SCHEMA "," CDC_TRANSACTION_BLOCK_SCHEMA ","
						   "{\"type\":\"struct\",\"fields\":["
						   "{\"type\":\"string\",\"optional\":true,\"field\":\"prefix\"},");
	appendStringInfo(buf, "{\"type\":\"%s\",\"optional\":true,\"field\":\"content\"}],",
					 opts->binary_mode == CDC_BINARY_BYTES ? "bytes" : "string");
	appendStringInfoString(buf, "\"optional\":false,\"name\":\"io.debezium.connector.postgresql.Message\","
						   "\"version\":1,\"field\":\"message\"}],\"optional\":false,"
						   "\"name\":\"io.debezium.connector.postgresql.MessageValue\","
						   "\"version\":1},\"payload\":");
}

/*
 * The value of an op "m" record.  txn is NULL for a non-transactional
 * message, which carries no txId and no transaction block; its source
 * timestamp is that of the last transaction seen, as Debezium's is.
 */
void
encoder_write_message_value(StringInfo buf, const char *prefix, const char *content,
							Size sz, CdcTxnState *txn, uint64 lsn,
							const CdcOptions *opts)
{
	static const char no_table[] = ",\"schema\":\"\",\"table\":\"\"";
	int64		now = now_micros(opts);

	if (opts->schemas)
		append_message_schema(buf, opts);
	BUFAPPEND_LITERAL(buf, "{\"op\":\"m\",\"ts_ms\":");
	append_int64(buf, floor_millis(now));
	bufappend_char(buf, ',');
	append_source(buf, txn, lsn, txn->xid != InvalidTransactionId, "\"false\"",
				  no_table, sizeof(no_table) - 1, opts);
	bufappend_char(buf, ',');
	append_transaction_block(buf, txn->xid != InvalidTransactionId ? txn : NULL,
							 "LOGICAL_DECODING_MESSAGE", lsn, opts);
	BUFAPPEND_LITERAL(buf, ",\"message\":{\"prefix\":");
	textenc_append_json(buf, prefix, strlen(prefix));
	BUFAPPEND_LITERAL(buf, ",\"content\":");
	typemap_write_binary(buf, content, sz, opts);
	BUFAPPEND_LITERAL(buf, "}}");
	if (opts->schemas)
		bufappend_char(buf, '}');
}

/* ---- context headers -------------------------------------------------------------- */

static void
context_header(CdcRecordOut *ro, const char *name, const char *value, const CdcOptions *opts)
{
	StringInfo	buf = ro->buf;

	recout_header_begin(ro, name);
	if (opts->schemas)
		BUFAPPEND_LITERAL(buf, "{\"schema\":{\"type\":\"string\",\"optional\":false},\"payload\":");
	textenc_append_json(buf, value, strlen(value));
	if (opts->schemas)
		bufappend_char(buf, '}');
	recout_header_end(ro);
}

/*
 * Debezium 3.3+ adds these headers to every change record (and its
 * tombstone) unless extended.headers.enabled is false.
 */
void
encoder_write_context_headers(CdcRecordOut *ro, const CdcOptions *opts)
{
	context_header(ro, "__debezium.context.connectorLogicalName", opts->topic_prefix, opts);
	context_header(ro, "__debezium.context.taskId", "0", opts);
	context_header(ro, "__debezium.context.connectorName", "postgresql", opts);
	context_header(ro, "__debezium.context.runId",
				   opts->deterministic ? "00000000-0000-0000-0000-000000000000" : opts->run_id,
				   opts);
}

/* ---- transaction metadata ------------------------------------------------------ */

void
encoder_write_txn_key(StringInfo buf, const char *id, const CdcKeyRoute *route,
					  const CdcOptions *opts)
{
	write_struct_key(buf, "id", false, id, "io.debezium.connector.common.TransactionMetadataKey",
					 route, opts);
}

/* END's per-table counts, in the iteration order of Debezium's HashMap. */
static void
append_data_collections(StringInfo buf, const CdcTxnState *txn)
{
	int			n = list_length(txn->collections);
	HstorePair *pairs = palloc(sizeof(HstorePair) * Max(n, 1));
	int			i = 0;
	ListCell   *lc;

	foreach(lc, txn->collections)
	{
		CdcCollectionCount *cc = lfirst(lc);
		size_t		len;

		/* Java hashes the UTF-16 of the name: order by its UTF-8 form */
		pairs[i].key = textenc_to_utf8(cc->name, strlen(cc->name), &len);
		pairs[i].keylen = len;
		pairs[i].value = (const char *) cc;
		pairs[i].valuelen = 0;
		i++;
	}
	hstoretext_java_order(pairs, n);
	bufappend_char(buf, '[');
	for (i = 0; i < n; i++)
	{
		const CdcCollectionCount *cc = (const CdcCollectionCount *) pairs[i].value;

		if (i > 0)
			bufappend_char(buf, ',');
		BUFAPPEND_LITERAL(buf, "{\"data_collection\":");
		textenc_append_json_utf8(buf, pairs[i].key, pairs[i].keylen);
		BUFAPPEND_LITERAL(buf, ",\"event_count\":");
		append_int64(buf, cc->count);
		bufappend_char(buf, '}');
	}
	bufappend_char(buf, ']');
	pfree(pairs);
}

/* The value of a BEGIN or END record on <prefix>.transaction. */
void
encoder_write_txn_value(StringInfo buf, bool is_begin, const char *id,
						CdcTxnState *txn, const CdcOptions *opts)
{
	int64		commit_us = opts->deterministic ? 0 : unix_micros(txn->commit_time);

	if (opts->schemas)
		appendStringInfoString(buf, "{\"schema\":" TXN_VALUE_SCHEMA ",\"payload\":");
	appendStringInfo(buf, "{\"status\":\"%s\",\"id\":", is_begin ? "BEGIN" : "END");
	textenc_append_json(buf, id, strlen(id));
	if (is_begin)
		BUFAPPEND_LITERAL(buf, ",\"event_count\":null,\"data_collections\":null");
	else
	{
		BUFAPPEND_LITERAL(buf, ",\"event_count\":");
		append_int64(buf, txn->event_count);
		BUFAPPEND_LITERAL(buf, ",\"data_collections\":");
		append_data_collections(buf, txn);
	}
	BUFAPPEND_LITERAL(buf, ",\"ts_ms\":");
	append_int64(buf, floor_millis(commit_us));
	bufappend_char(buf, '}');
	if (opts->schemas)
		bufappend_char(buf, '}');
}

/* ---- heartbeats ------------------------------------------------------------------ */

/* Key of a heartbeat record: io.debezium.connector.common.ServerNameKey. */
void
encoder_write_heartbeat_key(StringInfo buf, const CdcKeyRoute *route, const CdcOptions *opts)
{
	write_struct_key(buf, "serverName", false, opts->topic_prefix,
					 "io.debezium.connector.common.ServerNameKey", route, opts);
}

/* Value of a heartbeat record: io.debezium.connector.common.Heartbeat. */
void
encoder_write_heartbeat_value(StringInfo buf, const CdcOptions *opts)
{
	if (opts->schemas)
		appendStringInfoString(buf, "{\"schema\":{\"type\":\"struct\",\"fields\":["
							   "{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"}],"
							   "\"optional\":false,\"name\":\"io.debezium.connector.common.Heartbeat\","
							   "\"version\":1},\"payload\":");
	BUFAPPEND_LITERAL(buf, "{\"ts_ms\":");
	append_int64(buf, floor_millis(now_micros(opts)));
	bufappend_char(buf, '}');
	if (opts->schemas)
		bufappend_char(buf, '}');
}
