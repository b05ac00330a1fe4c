/*-------------------------------------------------------------------------
 *
 * snapshot.h
 *		Snapshots: the rows that exist, as op "r" records (see snapshot.c).
 *
 * src/worker/snapshot.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_SNAPSHOT_H
#define CDC_KAFKA_SNAPSHOT_H

#include "access/htup.h"
#include "access/tupdesc.h"
#include "access/xlogdefs.h"
#include "nodes/bitmapset.h"

#include "plugin/encoder.h"
#include "plugin/options.h"
#include "plugin/plugin.h"
#include "plugin/relinfo.h"
#include "worker/status.h"
#include "worker/stream.h"

/* The prefix of the logical messages that delimit incremental chunks. */
#define CDC_WATERMARK_PREFIX "cdc_kafka.watermark"

/*
 * The tables publication $1 publishes (not the extension's own), as c (their
 * pg_class row) and pt (pg_publication_tables), in name order: what the
 * snapshots read.  Every name qualified: it runs in the worker and for
 * callers of the SQL functions.
 */
#define CDC_PUBLISHED_TABLES_SQL \
	"FROM pg_catalog.pg_publication_tables pt " \
	"JOIN pg_catalog.pg_namespace n ON n.nspname OPERATOR(pg_catalog.=) pt.schemaname " \
	"JOIN pg_catalog.pg_class c ON c.relnamespace OPERATOR(pg_catalog.=) n.oid " \
	"AND c.relname OPERATOR(pg_catalog.=) pt.tablename " \
	"WHERE pt.pubname OPERATOR(pg_catalog.=) $1::pg_catalog.name " \
	"AND pt.schemaname OPERATOR(pg_catalog.<>) '" CDC_EXTENSION_SCHEMA "'::pg_catalog.name " \
	"ORDER BY pt.schemaname, pt.tablename"

/* Initial snapshot of a new slot (snapshot.c; outside a transaction). */
extern CdcStream *snapshot_initial(CdcWorkerStatus *ws, CdcStreamConfig *cfg,
								   const char *publication, bool (*interrupted) (void));
extern bool snapshot_initial_pending(const char *slot);
extern void snapshot_forget_initial(const char *slot);
extern void snapshot_resume_initial(const char *slot);

/* Incremental snapshots (incremental.c), driven by the streaming session. */
extern void incremental_request_all(const char *publication, const char *kind);
extern void incremental_session_start(CdcStream *s, const CdcStreamConfig *cfg);
extern void incremental_session_end(void);
extern bool incremental_step(CdcStream *s);
extern void incremental_watermark(CdcStream *s, XLogRecPtr lsn, const char *content,
							   size_t len);
extern void incremental_saw_change(Oid relid, const char *key, size_t keylen);
extern uint64 incremental_key_hash(const char *key, size_t len);

/* ---- reading tables: shared by snapshot.c and incremental.c ---------------- */

/* A captured table and how the publication shapes it. */
typedef struct SnapTable
{
	Oid			relid;
	Bitmapset  *columns;		/* the published columns */
	char	   *rowfilter;		/* the publication's row filter, or NULL */
} SnapTable;

/* What reading one table needs. */
typedef struct TableReader
{
	Oid			relid;
	Oid			owner;			/* the table's owner: who reads it for the worker */
	CdcRelInfo *ri;
	char	   *from;			/* quoted schema.table */
	char	   *select_list;	/* the columns of ri, in order */
	char	   *order_by;		/* the key columns, or NULL without a key */
	char	   *key_row;		/* "(k1, k2)" for comparisons */
	char	   *where;			/* the row filters, or NULL */
	int			nkeys;
	Datum	   *values;			/* a row read, in the columns' order */
	bool	   *nulls;
	Oid		   *key_types;
	char	  **key_names;
	double		estimated_rows;
} TableReader;

extern void snapshot_options_from_config(CdcOptions *opts, const CdcStreamConfig *cfg);
extern List *captured_tables(const char *publication);
extern TableReader *reader_open(Oid relid, const Bitmapset *columns, const char *rowfilter,
								const char *user_filter, const CdcOptions *opts,
								MemoryContext cxt);
extern char *reader_sql(const TableReader *r, bool after_key, int limit);
extern void row_from_tuple(const TableReader *r, HeapTuple tup, TupleDesc desc, CdcRow *row);
extern char **key_text(const TableReader *r, HeapTuple tup, TupleDesc desc);
extern void write_read_frame(StringInfo frame, const TableReader *r, const CdcRow *row,
							 CdcTxnState *src, const char *marker, XLogRecPtr lsn,
							 const CdcOptions *opts);

#endif							/* CDC_KAFKA_SNAPSHOT_H */
