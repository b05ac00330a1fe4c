/*-------------------------------------------------------------------------
 *
 * tablereader.c
 *		Reading a captured table in key order, as the snapshots do.
 *
 * Both snapshots read tables the same way: the initial one (snapshot.c)
 * through a cursor in the slot's snapshot, the incremental ones
 * (incremental.c) a chunk at a time between watermarks.  This module
 * knows which tables a publication captures and with which columns and
 * row filter (tablereader_captured), builds the SELECT of a table in key
 * order, from the start or after a key (tablereader_open, tablereader_sql),
 * the table's own unique key, not the record key that message.key.columns
 * may choose (keyset chunks of a key that repeats would skip rows),
 * and turns a row read into an op "r" record framed like the plugin's
 * (tablereader_write_frame, flattened by the unwrap transform when it is
 * on), which the stream produces.
 *
 * src/worker/tablereader.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "plugin/encoder.h"
#include "plugin/outbox.h"
#include "plugin/recout.h"
#include "plugin/relinfo.h"
#include "plugin/unwrap.h"
#include "worker/privilege.h"
#include "worker/tablereader.h"

/* The captured tables of the publication (in a transaction). */
List *
tablereader_captured(const char *publication)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(publication)};
	List	   *result = NIL;
	MemoryContext cxt = CurrentMemoryContext;

	SPI_connect();
	SPI_execute_with_args("SELECT c.oid, pt.attnames::pg_catalog.text[], pt.rowfilter "
						  CDC_PUBLISHED_TABLES_SQL,
						  1, types, values, NULL, true, 0);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		MemoryContext old = MemoryContextSwitchTo(cxt);
		CdcCapturedTable  *t = palloc0(sizeof(CdcCapturedTable));
		bool		isnull;
		Datum		names = SPI_getbinval(tup, desc, 2, &isnull);
		char	   *filter = SPI_getvalue(tup, desc, 3);

		t->relid = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
		if (!isnull)
		{
			Datum	   *elems;
			bool	   *enulls;
			int			n;

			deconstruct_array(DatumGetArrayTypeP(names), TEXTOID, -1, false, TYPALIGN_INT,
							  &elems, &enulls, &n);
			for (int k = 0; k < n; k++)
				t->columns = bms_add_member(t->columns,
											get_attnum(t->relid, TextDatumGetCString(elems[k])));
		}
		t->rowfilter = filter ? pstrdup(filter) : NULL;
		result = lappend(result, t);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return result;
}

/*
 * Whether equal record keys mean the same row: the record key holds every
 * column of the table's own key (message.key.columns may name others).
 */
static bool
record_key_is_unique(const CdcRelInfo *ri)
{
	if (ri->nrowkeys == 0)
		return false;
	for (int j = 0; j < ri->nrowkeys; j++)
	{
		bool		found = false;

		for (int k = 0; k < ri->nkeys; k++)
			found |= ri->keys[k] == ri->rowkeys[j];
		if (!found)
			return false;
	}
	return true;
}

/* Set up reading one table (in a transaction); NULL if it is gone. */
CdcTableReader *
tablereader_open(Oid relid, const Bitmapset *columns, const char *rowfilter,
				 const char *user_filter, const CdcOptions *opts, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Relation	rel = try_table_open(relid, AccessShareLock);
	CdcTableReader *r;
	StringInfoData b;

	if (rel == NULL)
	{
		MemoryContextSwitchTo(old);
		return NULL;
	}
	r = palloc0(sizeof(CdcTableReader));
	r->relid = relid;
	r->owner = rel->rd_rel->relowner;
	r->ri = relinfo_build_standalone(rel, columns, opts, cxt);
	r->estimated_rows = rel->rd_rel->reltuples > 0 ? rel->rd_rel->reltuples : 0;
	r->from = psprintf("%s.%s", quote_identifier(get_namespace_name(RelationGetNamespace(rel))),
					   quote_identifier(RelationGetRelationName(rel)));
	table_close(rel, AccessShareLock);

	initStringInfo(&b);
	for (int i = 0; i < r->ri->ncolumns; i++)
		appendStringInfo(&b, "%s%s", i > 0 ? ", " : "", quote_identifier(r->ri->columns[i].name));
	r->select_list = b.data;

	r->values = palloc(sizeof(Datum) * Max(r->ri->ncolumns, 1));
	r->nulls = palloc(sizeof(bool) * Max(r->ri->ncolumns, 1));
	/* rows in the order of the table's own key: a record key may repeat */
	r->nkeys = r->ri->nrowkeys;
	r->record_key_is_unique = record_key_is_unique(r->ri);
	r->key_types = palloc(sizeof(Oid) * Max(r->nkeys, 1));
	r->key_names = palloc(sizeof(char *) * Max(r->nkeys, 1));
	initStringInfo(&b);
	for (int k = 0; k < r->nkeys; k++)
	{
		CdcColumn  *col = &r->ri->columns[r->ri->rowkeys[k]];

		r->key_types[k] = col->typid;
		r->key_names[k] = col->name;
		appendStringInfo(&b, "%s%s", k > 0 ? ", " : "", quote_identifier(col->name));
	}
	r->order_by = r->nkeys > 0 ? b.data : NULL;
	r->key_row = r->nkeys > 0 ? psprintf("(%s)", b.data) : NULL;

	if (rowfilter != NULL && user_filter != NULL)
		r->where = psprintf("(%s) AND (%s)", rowfilter, user_filter);
	else if (rowfilter != NULL || user_filter != NULL)
		r->where = psprintf("(%s)", rowfilter ? rowfilter : user_filter);
	MemoryContextSwitchTo(old);
	return r;
}

/* The row of an SPI result tuple, in the reader's column order. */
void
tablereader_row(const CdcTableReader *r, HeapTuple tup, TupleDesc desc, CdcRow *row)
{
	/* the query selects exactly the reader's columns, in its order */
	Assert(desc->natts == r->ri->ncolumns);
	row->values = r->values;
	row->nulls = r->nulls;
	row->unchanged = NULL;
	heap_deform_tuple(tup, desc, row->values, row->nulls);
}

/* The text of the table's key columns of a result tuple (where to resume). */
char **
tablereader_key_text(const CdcTableReader *r, HeapTuple tup, TupleDesc desc)
{
	char	  **keys = palloc(sizeof(char *) * Max(r->nkeys, 1));

	for (int k = 0; k < r->nkeys; k++)
		keys[k] = SPI_getvalue(tup, desc, r->ri->rowkeys[k] + 1);
	return keys;
}

/*
 * One op "r" record as a binary frame, ready for stream_produce_frame.
 * With the unwrap transform it is flattened as the plugin flattens a
 * change (Debezium's transform treats reads as creates); with the outbox
 * transform it is the row's event, as an inserted row's.
 */
void
tablereader_write_frame(StringInfo frame, const CdcTableReader *r, const CdcRow *row,
						CdcTxnState *src, const char *marker, XLogRecPtr lsn,
						const CdcOptions *opts)
{
	CdcRecordOut ro;
	const char *topic = r->ri->topic;
	StringInfoData meta;

	if (opts->outbox != NULL)
	{
		resetStringInfo(frame);
		outbox_write(frame, CDC_OUTPUT_BINARY, r->ri, r->relid, row, lsn, NULL, NULL, opts);
		return;
	}
	if (opts->unwrap != NULL)
	{
		initStringInfo(&meta);
		encoder_write_read_meta(&meta, r->ri, src, marker, lsn, opts);
		topic = unwrap_topic(opts->unwrap, r->ri, row, opts);
	}
	resetStringInfo(frame);
	recout_begin(&ro, frame, CDC_OUTPUT_BINARY, topic, lsn, r->relid);
	recout_use_format(&ro, opts);
	if (r->ri->nkeys > 0)
	{
		recout_key_begin(&ro);
		encoder_write_key(frame, r->ri, row, opts);
		recout_key_end(&ro);
	}
	else
		recout_key_null(&ro);
	if (opts->unwrap != NULL)
		unwrap_write_value(&ro, UNWRAP_FLAT, r->ri, CDC_OP_READ, row, meta.data, opts);
	else
	{
		recout_value_begin(&ro);
		encoder_write_read_value(frame, r->ri, row, src, marker, lsn, opts);
		recout_value_end(&ro);
	}
	if (opts->extended_headers)
		encoder_write_context_headers(&ro, opts);
	if (opts->unwrap != NULL)
	{
		unwrap_write_headers(&ro, opts->unwrap, meta.data, false, opts);
		pfree(meta.data);
	}
	recout_end(&ro);
}

/*
 * "after the key $1, $2, ...": in the order of the key types' default
 * btree operators (ORDER BY's), named with their schema, since the
 * statement must not depend on the search_path.  A row comparison takes
 * one operator name: keys whose ordering operators differ in name or
 * schema are compared column by column.
 */
static void
append_after_key(StringInfo sql, const CdcTableReader *r)
{
	char	  **gt = palloc(sizeof(char *) * r->nkeys);
	char	  **eq = palloc(sizeof(char *) * r->nkeys);
	char	  **arg = palloc(sizeof(char *) * r->nkeys);
	bool		same = true;

	for (int k = 0; k < r->nkeys; k++)
	{
		TypeCacheEntry *tc = lookup_type_cache(r->key_types[k], TYPECACHE_GT_OPR | TYPECACHE_EQ_OPR);

		if (!OidIsValid(tc->gt_opr) || !OidIsValid(tc->eq_opr))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("could not identify an ordering operator for type %s",
							format_type_be(r->key_types[k]))));
		gt[k] = privilege_qualified_operator(tc->gt_opr);
		eq[k] = privilege_qualified_operator(tc->eq_opr);
		arg[k] = psprintf("$%d::%s", k + 1, format_type_be_qualified(r->key_types[k]));
		same &= strcmp(gt[k], gt[0]) == 0;
	}
	if (same)
	{
		appendStringInfo(sql, "%s %s (", r->key_row, gt[0]);
		for (int k = 0; k < r->nkeys; k++)
			appendStringInfo(sql, "%s%s", k > 0 ? ", " : "", arg[k]);
		appendStringInfoChar(sql, ')');
		return;
	}
	appendStringInfoChar(sql, '(');
	for (int k = 0; k < r->nkeys; k++)
	{
		appendStringInfo(sql, "%s(", k > 0 ? " OR " : "");
		for (int j = 0; j < k; j++)
			appendStringInfo(sql, "%s %s %s AND ", quote_identifier(r->key_names[j]), eq[j], arg[j]);
		appendStringInfo(sql, "%s %s %s)", quote_identifier(r->key_names[k]), gt[k], arg[k]);
	}
	appendStringInfoChar(sql, ')');
}

/* The SELECT of a reader: all rows, or those after a key, in key order. */
char *
tablereader_sql(const CdcTableReader *r, bool after_key, int limit)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s FROM %s", r->select_list, r->from);
	if (r->where != NULL || after_key)
		appendStringInfoString(&sql, " WHERE ");
	if (r->where != NULL)
		appendStringInfoString(&sql, r->where);
	if (r->where != NULL && after_key)
		appendStringInfoString(&sql, " AND ");
	if (after_key)
		append_after_key(&sql, r);
	if (r->order_by != NULL)
		appendStringInfo(&sql, " ORDER BY %s", r->order_by);
	if (limit > 0)
		appendStringInfo(&sql, " LIMIT %d", limit);
	return sql.data;
}
