/*-------------------------------------------------------------------------
 *
 * tablereader.h
 *		Reading a captured table as the snapshots do (see tablereader.c).
 *
 * src/worker/tablereader.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_WORKER_TABLEREADER_H
#define CDC_WORKER_TABLEREADER_H

#include "access/htup.h"
#include "access/tupdesc.h"
#include "access/xlogdefs.h"
#include "lib/stringinfo.h"
#include "nodes/bitmapset.h"
#include "nodes/pg_list.h"

#include "plugin/encoder.h"
#include "plugin/options.h"
#include "plugin/plugin.h"
#include "plugin/relinfo.h"

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

/* A captured table and how the publication shapes it. */
typedef struct CdcCapturedTable
{
	Oid			relid;
	Bitmapset  *columns;		/* the published columns */
	char	   *rowfilter;		/* the publication's row filter, or NULL */
} CdcCapturedTable;

/* What reading one table needs. */
typedef struct CdcTableReader
{
	Oid			relid;
	Oid			owner;			/* the table's owner: who reads it for the worker */
	CdcRelInfo *ri;
	char	   *from;			/* quoted schema.table */
	char	   *select_list;	/* the columns of ri, in order */
	char	   *order_by;		/* the table's key columns (ri->rowkeys, not
								 * the record key), or NULL without a key */
	char	   *key_row;		/* "(k1, k2)" for comparisons */
	char	   *where;			/* the row filters, or NULL */
	int			nkeys;			/* of the table's key, as key_types, key_names */
	bool		record_key_is_unique;	/* equal record keys: the same row */
	Datum	   *values;			/* a row read, in the columns' order */
	bool	   *nulls;
	Oid		   *key_types;
	char	  **key_names;
	double		estimated_rows;
} CdcTableReader;

extern List *tablereader_captured(const char *publication);
extern CdcTableReader *tablereader_open(Oid relid, const Bitmapset *columns,
										const char *rowfilter, const char *user_filter,
										const CdcOptions *opts, MemoryContext cxt);
extern char *tablereader_sql(const CdcTableReader *r, bool after_key, int limit);
extern void tablereader_row(const CdcTableReader *r, HeapTuple tup, TupleDesc desc,
							CdcRow *row);
extern char **tablereader_key_text(const CdcTableReader *r, HeapTuple tup, TupleDesc desc);
extern void tablereader_write_frame(StringInfo frame, const CdcTableReader *r,
									const CdcRow *row, CdcTxnState *src, const char *marker,
									XLogRecPtr lsn, const CdcOptions *opts);

#endif							/* CDC_WORKER_TABLEREADER_H */
