/*-------------------------------------------------------------------------
 *
 * cdc_kafka.h
 *		Declarations shared by the subsystems of cdc_kafka.
 *
 * The output plugin (plugin.c) turns each decoded change into Kafka records
 * in the Debezium PostgreSQL connector's format.  Plugin options are parsed
 * by options.c; the per-relation cache of column converters and rendered
 * schemas lives in relinfo.c, the publication filter (tables, column lists,
 * row filters) in pubfilter.c, the type mapping in typemap.c, the envelope
 * in encoder.c, and the framing of records for the different outputs in
 * recout.c.
 *
 * src/cdc_kafka.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_H
#define CDC_KAFKA_H

#include "access/attmap.h"
#include "access/attnum.h"
#include "access/htup.h"
#include "access/tupdesc.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/bitmapset.h"
#include "nodes/pg_list.h"
#include "replication/reorderbuffer.h"
#include "utils/relcache.h"

/* The Debezium release whose output we reproduce. */
#define CDC_DEBEZIUM_VERSION	"3.6.1.Final"

/* The plugin name as used in pg_create_logical_replication_slot. */
#define CDC_PLUGIN_NAME			"cdc_kafka"
/* The schema of the extension's objects (cdc_kafka.control): never captured. */
#define CDC_EXTENSION_SCHEMA	"cdc_kafka"

/* ---- plugin options (options.c) ---------------------------------------- */

typedef enum CdcDecimalMode
{
	CDC_DECIMAL_PRECISE,
	CDC_DECIMAL_DOUBLE,
	CDC_DECIMAL_STRING
} CdcDecimalMode;

typedef enum CdcBinaryMode
{
	CDC_BINARY_BYTES,
	CDC_BINARY_BASE64,
	CDC_BINARY_BASE64_URL_SAFE,
	CDC_BINARY_HEX
} CdcBinaryMode;

typedef enum CdcTimeMode
{
	CDC_TIME_ADAPTIVE,
	CDC_TIME_ADAPTIVE_MICROSECONDS,
	CDC_TIME_CONNECT
} CdcTimeMode;

typedef enum CdcIntervalMode
{
	CDC_INTERVAL_NUMERIC,
	CDC_INTERVAL_STRING
} CdcIntervalMode;

typedef enum CdcHstoreMode
{
	CDC_HSTORE_JSON,
	CDC_HSTORE_MAP
} CdcHstoreMode;

typedef enum CdcOutputFormat
{
	CDC_OUTPUT_VALUE,			/* one row = the record's value (default) */
	CDC_OUTPUT_RECORD,			/* one row = {"topic","key","value","headers"} */
	CDC_OUTPUT_BINARY			/* framed records for the streaming worker */
} CdcOutputFormat;

/* Bits of CdcOptions.skipped_ops. */
#define CDC_SKIP_CREATE		0x01
#define CDC_SKIP_UPDATE		0x02
#define CDC_SKIP_DELETE		0x04
#define CDC_SKIP_TRUNCATE	0x08

typedef struct CdcOptions
{
	List	   *publication_names;	/* NIL: every publishable table */
	char	   *topic_prefix;	/* ASCII: the characters of Kafka topic names */
	char	   *dbname;			/* UTF-8 */
	bool		schemas;
	CdcDecimalMode decimal_mode;
	CdcBinaryMode binary_mode;
	CdcTimeMode time_mode;
	CdcIntervalMode interval_mode;
	CdcHstoreMode hstore_mode;
	bool		tombstones_on_delete;
	int			skipped_ops;
	bool		transaction_metadata;
	char	   *placeholder;	/* unavailable.value.placeholder, decoded */
	int			placeholder_len;
	int			money_fraction_digits;
	bool		deterministic;
	bool		extended_headers;	/* __debezium.context.* on change records */
	char	   *watermark_prefix;	/* messages that are the worker's watermarks */
	char		run_id[37];		/* this decoding session's runId header */
	CdcOutputFormat output_format;
} CdcOptions;

extern void cdcopt_set_defaults(CdcOptions *opts);
extern void cdcopt_parse(CdcOptions *opts, List *options);
extern int	cdcopt_parse_skipped(const char *value);

/* ---- type mapping (typemap.c) ------------------------------------------ */

/* How a column's values are written. */
typedef enum CdcValueKind
{
	CDC_VK_BOOL,
	CDC_VK_INT16,
	CDC_VK_INT32,
	CDC_VK_INT64,
	CDC_VK_OID,
	CDC_VK_FLOAT32,
	CDC_VK_FLOAT64,
	CDC_VK_NUMERIC,
	CDC_VK_MONEY,
	CDC_VK_TEXT,				/* varlena text: text, varchar, bpchar, ... */
	CDC_VK_OUTPUT_TEXT,			/* anything written as its output function's text */
	CDC_VK_UUID,
	CDC_VK_BYTEA,
	CDC_VK_DATE,
	CDC_VK_TIME,
	CDC_VK_TIMETZ,
	CDC_VK_TIMESTAMP,
	CDC_VK_TIMESTAMPTZ,
	CDC_VK_INTERVAL,
	CDC_VK_BIT,					/* bit(1): boolean */
	CDC_VK_BITS,				/* bit(n), varbit: io.debezium.data.Bits */
	CDC_VK_HSTORE,
	CDC_VK_POINT,
	CDC_VK_ARRAY
} CdcValueKind;

typedef struct CdcColumn CdcColumn;

struct CdcColumn
{
	char	   *name;
	char	   *name_json;		/* "name": as it precedes the value */
	int			name_json_len;
	AttrNumber	attnum;			/* 1-based position in publish_relid's tuple */
	Oid			typid;			/* declared type (may be a domain) */
	Oid			basetypid;		/* type after looking through domains */
	int32		typmod;
	CdcValueKind kind;
	bool		optional;		/* nullable column */
	bool		typbyval;
	int16		typlen;
	char		typalign;
	int			precision;		/* numeric precision, bit length, time digits */
	int			scale;			/* numeric scale; -1 for unconstrained */
	FmgrInfo	outfunc;		/* for kinds written through their text form */
	bool		canonical_output;	/* text form read with ISO dates, UTC */
	char	   *schema_json;	/* {"type":...} field schema, without "field" */
	char	   *default_json;	/* rendered default value, or NULL */
	char	   *fallback_json;	/* value for a NOT NULL column with no value */
	CdcColumn  *element;		/* CDC_VK_ARRAY: the element's column */
};

extern void typemap_column_init(CdcColumn *col, const char *name, AttrNumber attnum,
								Oid typid, int32 typmod, bool notnull,
								const CdcOptions *opts);
extern char *typemap_default_expression(const char *adbin);
extern void typemap_column_set_default(CdcColumn *col, const char *default_expr,
									   const CdcOptions *opts);
extern void typemap_column_set_fallback(CdcColumn *col, const CdcOptions *opts);
extern void typemap_write_value(StringInfo buf, const CdcColumn *col,
								Datum value, const CdcOptions *opts);
extern void typemap_write_binary(StringInfo buf, const char *data, size_t len,
								 const CdcOptions *opts);
extern void typemap_write_placeholder(StringInfo buf, const CdcColumn *col,
									  const CdcOptions *opts);
extern void typemap_write_field_schema(StringInfo buf, const CdcColumn *col,
									   bool with_default);

/* ---- publication filter (pubfilter.c) ---------------------------------- */

typedef struct CdcPubFilter CdcPubFilter;

extern CdcPubFilter *pubfilter_build(Relation rel, List *publication_names,
									 MemoryContext cxt);
extern bool pubfilter_publishes(const CdcPubFilter *pf,
								ReorderBufferChangeType action);
extern bool pubfilter_publishes_truncate(const CdcPubFilter *pf);
extern const Bitmapset *pubfilter_columns(const CdcPubFilter *pf);
extern Oid	pubfilter_publish_as(const CdcPubFilter *pf, Relation rel);
extern const AttrMap *pubfilter_attrmap(const CdcPubFilter *pf);
extern bool pubfilter_row(CdcPubFilter *pf, Relation rel,
						  HeapTuple oldtuple, HeapTuple newtuple,
						  ReorderBufferChangeType *action);
extern void pubfilter_invalidate_publications(void);

/* ---- relation cache (relinfo.c) ---------------------------------------- */

typedef struct CdcRelInfo
{
	Oid			relid;
	bool		valid;
	bool		published;		/* any action published at all */
	Oid			publish_relid;	/* relid, or the partition ancestor whose
								 * topic, columns and keys its changes take */
	const AttrMap *attrmap;		/* publish_relid's attnos to relid's; NULL: same */
	char	   *schemaname;
	char	   *relname;
	char	   *topic;			/* sanitised <prefix>.<schema>.<table> */
	char	   *data_collection;	/* <schema>.<table>, for transaction metadata */
	int			ncolumns;		/* value columns (published, in order) */
	CdcColumn  *columns;
	int			nkeys;			/* key columns, as indexes into columns */
	int		   *keys;
	char	   *key_prefix;		/* {"schema":...,"payload": or "" */
	char	   *value_prefix;	/* {"schema":...,"payload": or "" */
	char	   *source_suffix;	/* ,"schema":"s","table":"t" */
	int			key_prefix_len;
	int			value_prefix_len;
	int			source_suffix_len;
	CdcPubFilter *pubfilter;	/* NULL: everything published */
	MemoryContext cxt;			/* owns everything above */
} CdcRelInfo;

extern void relinfo_cache_init(MemoryContext parent, const CdcOptions *opts);
extern void relinfo_cache_destroy(void);
extern CdcRelInfo *relinfo_get(Relation rel);
extern CdcRelInfo *relinfo_build_standalone(Relation rel, const Bitmapset *only,
											const CdcOptions *opts, MemoryContext cxt);

/* ---- record framing (recout.c) ----------------------------------------- */

typedef struct CdcRecordOut
{
	StringInfo	buf;
	CdcOutputFormat format;
	int			len_pos;		/* binary: where the open length field is */
	int			nheaders_pos;	/* binary: where the header count is */
	int			nheaders;
} CdcRecordOut;

extern void recout_begin(CdcRecordOut *ro, StringInfo buf, CdcOutputFormat format,
						 const char *topic, uint64 lsn, Oid relid);
extern bool recout_wants_key(const CdcRecordOut *ro);
extern void recout_key_begin(CdcRecordOut *ro);
extern void recout_key_end(CdcRecordOut *ro);
extern void recout_key_null(CdcRecordOut *ro);
extern void recout_value_begin(CdcRecordOut *ro);
extern void recout_value_end(CdcRecordOut *ro);
extern void recout_value_null(CdcRecordOut *ro);
extern void recout_header_begin(CdcRecordOut *ro, const char *name);
extern void recout_header_end(CdcRecordOut *ro);
extern void recout_end(CdcRecordOut *ro);
extern void recout_commit_marker(StringInfo buf, uint64 end_lsn, int64 commit_time);
extern void recout_watermark(StringInfo buf, uint64 lsn, const char *content, Size len);

/* Binary frame kinds (CDC_OUTPUT_BINARY). */
#define CDC_FRAME_RECORD	'R'
#define CDC_FRAME_COMMIT	'C'
#define CDC_FRAME_WATERMARK 'W'

/* ---- envelope (encoder.c) ---------------------------------------------- */

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

extern void encoder_write_key(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
							  const CdcOptions *opts);
extern void encoder_write_change_value(StringInfo buf, const CdcRelInfo *ri, CdcOp op,
									   const CdcRow *before, const CdcRow *after,
									   CdcTxnState *txn, uint64 lsn,
									   const CdcOptions *opts);
extern void encoder_write_read_value(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
									 CdcTxnState *txn, const char *marker, uint64 lsn,
									 const CdcOptions *opts);
extern void encoder_write_message_key(StringInfo buf, const char *prefix,
									  const CdcOptions *opts);
extern void encoder_write_message_value(StringInfo buf, const char *prefix,
										const char *content, Size sz,
										CdcTxnState *txn, uint64 lsn,
										const CdcOptions *opts);
extern void encoder_write_heartbeat_key(StringInfo buf, const CdcOptions *opts);
extern void encoder_write_heartbeat_value(StringInfo buf, const CdcOptions *opts);
extern void encoder_write_context_headers(CdcRecordOut *ro, const CdcOptions *opts);
extern void encoder_write_txn_key(StringInfo buf, const char *id,
								  const CdcOptions *opts);
extern void encoder_write_txn_value(StringInfo buf, bool is_begin, const char *id,
									CdcTxnState *txn, const CdcOptions *opts);
extern void encoder_txn_id(StringInfo buf, TransactionId xid, uint64 lsn,
						   const CdcOptions *opts);
extern void encoder_append_envelope_tail_schema(StringInfo buf);
extern void encoder_sanitize_topic(StringInfo buf, const char *name);
extern void encoder_sanitize_topic_utf8(StringInfo buf, const char *name);
extern char *encoder_name_utf8(const char *name);
extern void encoder_init_encoding(void);
extern const char *encoder_to_utf8(const char *s, size_t len, size_t *outlen);
extern void encoder_append_json_string(StringInfo buf, const char *s, size_t len);
extern void encoder_append_json_utf8(StringInfo buf, const char *s, size_t len);
extern int64 encoder_now(const CdcOptions *opts);

#endif							/* CDC_KAFKA_H */
