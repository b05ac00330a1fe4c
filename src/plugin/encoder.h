/*-------------------------------------------------------------------------
 *
 * encoder.h
 *		The Debezium envelope: keys, values, source blocks, transaction events.
 *
 * What every record of a transaction shares (CdcTxnState), and the
 * writers of change, read, message, heartbeat and transaction records.
 *
 * src/plugin/encoder.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_ENCODER_H
#define CDC_PLUGIN_ENCODER_H

#include "lib/stringinfo.h"
#include "plugin/options.h"
#include "plugin/recout.h"
#include "plugin/relinfo.h"

/* What every record of one transaction shares. */
typedef struct CdcTxnState
{
	TransactionId xid;
	int64		commit_time;	/* PostgreSQL TimestampTz of the commit */
	uint64		last_commit_lsn;	/* sequence[0]: previous commit's end */
	uint64		begin_lsn;		/* for the BEGIN transaction id */
	uint64		end_lsn;
	char	   *origin;			/* replication origin name, or NULL */
	uint64		origin_lsn;
	int64		event_count;	/* data events so far (transaction metadata) */
	List	   *collections;	/* CdcCollectionCount, in first-seen order */
	char	   *src_head;		/* the source block's fixed parts (encoder.c) */
	char	   *src_head2;
	char	   *src_mid;
	char	   *src_txid;
	char	   *src_tail;
	int			src_head_len;
	int			src_head2_len;
	int			src_mid_len;
	int			src_txid_len;
	int			src_tail_len;
	MemoryContext cxt;			/* lives for the transaction; holds the above */
	bool		began;			/* BEGIN written or decided (first change) */
	int			nrecords;		/* records written (for the commit marker) */
} CdcTxnState;

/* Events of one data collection in a transaction (transaction metadata). */
typedef struct CdcCollectionCount
{
	char	   *name;			/* <schema>.<table> or LOGICAL_DECODING_MESSAGE */
	int64		count;
} CdcCollectionCount;

/* One row image to encode: values in CdcRelInfo.columns order. */
typedef struct CdcRow
{
	Datum	   *values;
	bool	   *nulls;
	bool	   *unchanged;		/* unchanged TOASTed value: write placeholder */
} CdcRow;

typedef enum CdcOp
{
	CDC_OP_CREATE = 'c',
	CDC_OP_UPDATE = 'u',
	CDC_OP_DELETE = 'd',
	CDC_OP_TRUNCATE = 't',
	CDC_OP_READ = 'r'
} CdcOp;

/*
 * A struct key of a record that is no table's (transaction metadata, a
 * message, a heartbeat) as the route transform rewrites it (route.c).
 */
typedef struct CdcKeyRoute
{
	char	   *name;			/* the new schema name, adjusted */
	char	   *field;			/* ,"<key.field.name>":"<id>", or NULL */
	char	   *field_schema;	/* that field's schema after a comma, or NULL */
} CdcKeyRoute;

extern void encoder_write_key(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
							  const CdcOptions *opts);
extern void encoder_write_header_key(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
									 const CdcOptions *opts);
extern void encoder_write_change_value(StringInfo buf, const CdcRelInfo *ri, CdcOp op,
									   const CdcRow *before, const CdcRow *after,
									   CdcTxnState *txn, uint64 lsn,
									   const CdcOptions *opts);
extern int64 encoder_event_ts_ms(const CdcOptions *opts);
extern void encoder_write_column(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
								 int i, const CdcOptions *opts);
extern void encoder_write_row(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
							  const CdcOptions *opts);
extern void encoder_write_envelope_meta(StringInfo buf, const CdcRelInfo *ri, CdcOp op,
										CdcTxnState *txn, uint64 lsn,
										const CdcOptions *opts);
extern void encoder_write_read_meta(StringInfo buf, const CdcRelInfo *ri, CdcTxnState *txn,
									const char *marker, uint64 lsn, const CdcOptions *opts);
extern void encoder_write_read_value(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
									 CdcTxnState *txn, const char *marker, uint64 lsn,
									 const CdcOptions *opts);
extern void encoder_write_message_key(StringInfo buf, const char *prefix,
									  const CdcKeyRoute *route, const CdcOptions *opts);
extern void encoder_write_message_value(StringInfo buf, const char *prefix,
										const char *content, Size sz,
										CdcTxnState *txn, uint64 lsn,
										const CdcOptions *opts);
extern void encoder_write_heartbeat_key(StringInfo buf, const CdcKeyRoute *route,
										const CdcOptions *opts);
extern void encoder_write_heartbeat_value(StringInfo buf, const CdcOptions *opts);
extern void encoder_write_context_headers(CdcRecordOut *ro, const CdcOptions *opts);
extern void encoder_write_txn_key(StringInfo buf, const char *id, const CdcKeyRoute *route,
								  const CdcOptions *opts);
extern void encoder_write_txn_value(StringInfo buf, bool is_begin, const char *id,
									CdcTxnState *txn, const CdcOptions *opts);
extern void encoder_txn_id(StringInfo buf, TransactionId xid, uint64 lsn,
						   const CdcOptions *opts);

#endif							/* CDC_PLUGIN_ENCODER_H */
