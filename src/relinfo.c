/*-------------------------------------------------------------------------
 *
 * relinfo.c
 *		Per-relation cache: published columns with their converters, the key
 *		columns, the topic, and the key and envelope schemas already
 *		rendered as JSON.
 *
 * The JSON schema of a table's records is large (several kB with the
 * source block) and identical for every change of that table, so it is
 * built once and the hot path appends cached bytes plus values.  An entry
 * is rebuilt when the relcache invalidates the relation (ALTER TABLE while
 * changes are pending: decoding replays the DDL's invalidations at its
 * place in the stream, so every change is encoded with the schema of its
 * own moment) and when a publication changes.  Entries are built while the
 * historic snapshot of the change being decoded is active.
 *
 * src/relinfo.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_index.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "cdc_kafka.h"

static HTAB *relinfo_cache = NULL;
static MemoryContext relinfo_cxt = NULL;
static const CdcOptions *relinfo_opts = NULL;
static bool callbacks_registered = false;

/* ---- invalidation ------------------------------------------------------- */

static void
invalidate_relation(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	CdcRelInfo *entry;

	if (relinfo_cache == NULL)
		return;
	if (OidIsValid(relid))
	{
		entry = hash_search(relinfo_cache, &relid, HASH_FIND, NULL);
		if (entry != NULL)
			entry->valid = false;
		return;
	}
	hash_seq_init(&status, relinfo_cache);
	while ((entry = hash_seq_search(&status)) != NULL)
		entry->valid = false;
}

/* Publications, their tables and schemas, and schema renames touch every entry. */
static void
invalidate_all(Datum arg, int cacheid, uint32 hashvalue)
{
	if (cacheid == PUBLICATIONOID)
		pubfilter_invalidate_publications();
	invalidate_relation(arg, InvalidOid);
}

static void
register_callbacks(void)
{
	if (callbacks_registered)
		return;
	/* callbacks cannot be unregistered: they check relinfo_cache instead */
	CacheRegisterRelcacheCallback(invalidate_relation, (Datum) 0);
	CacheRegisterSyscacheCallback(PUBLICATIONOID, invalidate_all, (Datum) 0);
	CacheRegisterSyscacheCallback(PUBLICATIONRELMAP, invalidate_all, (Datum) 0);
	CacheRegisterSyscacheCallback(PUBLICATIONNAMESPACEMAP, invalidate_all, (Datum) 0);
	CacheRegisterSyscacheCallback(NAMESPACEOID, invalidate_all, (Datum) 0);
	callbacks_registered = true;
}

void
relinfo_cache_init(MemoryContext parent, const CdcOptions *opts)
{
	HASHCTL		ctl;

	relinfo_cxt = AllocSetContextCreate(parent, "cdc_kafka relation cache",
										ALLOCSET_DEFAULT_SIZES);
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(CdcRelInfo);
	ctl.hcxt = relinfo_cxt;
	relinfo_cache = hash_create("cdc_kafka relation cache", 128, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	relinfo_opts = opts;
	pubfilter_invalidate_publications();
	register_callbacks();
}

/* The cache's memory belongs to the decoding context and goes with it. */
void
relinfo_cache_destroy(void)
{
	relinfo_cache = NULL;
	relinfo_cxt = NULL;
	relinfo_opts = NULL;
	pubfilter_invalidate_publications();
}

/* ---- building an entry --------------------------------------------------- */

/*
 * The default expression of attnum as pg_get_expr() prints it (under fixed
 * settings, not the session's), or NULL.
 */
static char *
default_expression(Relation rel, AttrNumber attnum)
{
	TupleConstr *constr = RelationGetDescr(rel)->constr;

	if (constr == NULL)
		return NULL;
	for (int i = 0; i < constr->num_defval; i++)
	{
		if (constr->defval[i].adnum == attnum)
			return typemap_default_expression(constr->defval[i].adbin);
	}
	return NULL;
}

static void
build_columns(CdcRelInfo *ri, Relation rel, const Bitmapset *only, const CdcOptions *opts)
{
	TupleDesc	desc = RelationGetDescr(rel);

	ri->columns = palloc0(sizeof(CdcColumn) * Max(desc->natts, 1));
	ri->ncolumns = 0;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		CdcColumn  *col;

		/* pgoutput never sends dropped or generated columns */
		if (att->attisdropped || att->attgenerated)
			continue;
		if (only != NULL && !bms_is_member(att->attnum, only))
			continue;
		col = &ri->columns[ri->ncolumns++];
		typemap_column_init(col, NameStr(att->attname), att->attnum,
							att->atttypid, att->atttypmod, att->attnotnull, opts);
		if (att->atthasdef)
			typemap_column_set_default(col, default_expression(rel, att->attnum), opts);
		typemap_column_set_fallback(col, opts);
	}
}

static int
column_index(const CdcRelInfo *ri, AttrNumber attnum)
{
	for (int i = 0; i < ri->ncolumns; i++)
	{
		if (ri->columns[i].attnum == attnum)
			return i;
	}
	return -1;
}

/*
 * Debezium keys a table by its primary key or, lacking one, by the first
 * unique index in name order; expression columns and columns left out by a
 * column list do not take part.
 */
static Oid
key_index(Relation rel)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	Oid			best = InvalidOid;
	char	   *bestname = NULL;

	if (OidIsValid(rel->rd_pkindex))
		return rel->rd_pkindex;
	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
		bool		unique;
		char	   *name;

		if (!HeapTupleIsValid(tup))
			continue;
		unique = ((Form_pg_index) GETSTRUCT(tup))->indisunique;
		ReleaseSysCache(tup);
		name = get_rel_name(indexoid);
		if (unique && name != NULL && (bestname == NULL || strcmp(name, bestname) < 0))
		{
			best = indexoid;
			bestname = name;
		}
	}
	return best;
}

static void
build_keys(CdcRelInfo *ri, Relation rel)
{
	Oid			indexoid = key_index(rel);
	HeapTuple	tup;
	Form_pg_index index;

	ri->nkeys = 0;
	if (!OidIsValid(indexoid))
		return;
	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
	if (!HeapTupleIsValid(tup))
		return;
	index = (Form_pg_index) GETSTRUCT(tup);
	ri->keys = palloc(sizeof(int) * Max(index->indnkeyatts, 1));
	for (int i = 0; i < index->indnkeyatts; i++)
	{
		int			idx = column_index(ri, index->indkey.values[i]);

		if (idx >= 0)
			ri->keys[ri->nkeys++] = idx;
	}
	ReleaseSysCache(tup);
}

/* ---- rendered schemas ------------------------------------------------------- */

static void
append_row_schema(StringInfo buf, const CdcRelInfo *ri, const char *field)
{
	appendStringInfoString(buf, "{\"type\":\"struct\",\"fields\":[");
	for (int i = 0; i < ri->ncolumns; i++)
	{
		if (i > 0)
			appendStringInfoChar(buf, ',');
		typemap_write_field_schema(buf, &ri->columns[i], true);
	}
	appendStringInfo(buf, "],\"optional\":true,\"name\":");
	encoder_append_json_string(buf, psprintf("%s.Value", ri->topic),
							   strlen(ri->topic) + 6);
	appendStringInfo(buf, ",\"field\":\"%s\"}", field);
}

static void
render_key_prefix(CdcRelInfo *ri, const CdcOptions *opts)
{
	StringInfoData buf;

	initStringInfo(&buf);
	if (opts->schemas && ri->nkeys > 0)
	{
		appendStringInfoString(&buf, "{\"schema\":{\"type\":\"struct\",\"fields\":[");
		for (int i = 0; i < ri->nkeys; i++)
		{
			if (i > 0)
				appendStringInfoChar(&buf, ',');
			typemap_write_field_schema(&buf, &ri->columns[ri->keys[i]], true);
		}
		appendStringInfoString(&buf, "],\"optional\":false,\"name\":");
		encoder_append_json_string(&buf, psprintf("%s.Key", ri->topic),
								   strlen(ri->topic) + 4);
		appendStringInfoString(&buf, "},\"payload\":");
	}
	ri->key_prefix = buf.data;
	ri->key_prefix_len = buf.len;
}

static void
render_value_prefix(CdcRelInfo *ri, const CdcOptions *opts)
{
	StringInfoData buf;

	initStringInfo(&buf);
	if (opts->schemas)
	{
		appendStringInfoString(&buf, "{\"schema\":{\"type\":\"struct\",\"fields\":[");
		append_row_schema(&buf, ri, "before");
		appendStringInfoChar(&buf, ',');
		append_row_schema(&buf, ri, "after");
		appendStringInfoChar(&buf, ',');
		encoder_append_envelope_tail_schema(&buf);
		appendStringInfoString(&buf, "],\"optional\":false,\"name\":");
		encoder_append_json_string(&buf, psprintf("%s.Envelope", ri->topic),
								   strlen(ri->topic) + 9);
		appendStringInfoString(&buf, ",\"version\":2},\"payload\":");
	}
	ri->value_prefix = buf.data;
	ri->value_prefix_len = buf.len;
}

static void
render_names(CdcRelInfo *ri, Relation rel, const CdcOptions *opts)
{
	StringInfoData buf;

	ri->schemaname = get_namespace_name(RelationGetNamespace(rel));
	ri->relname = pstrdup(RelationGetRelationName(rel));
	ri->data_collection = psprintf("%s.%s", ri->schemaname, ri->relname);

	initStringInfo(&buf);
	encoder_sanitize_topic(&buf, psprintf("%s.%s.%s", opts->topic_prefix,
										  ri->schemaname, ri->relname));
	ri->topic = buf.data;

	initStringInfo(&buf);
	appendStringInfoString(&buf, ",\"schema\":");
	encoder_append_json_string(&buf, ri->schemaname, strlen(ri->schemaname));
	appendStringInfoString(&buf, ",\"table\":");
	encoder_append_json_string(&buf, ri->relname, strlen(ri->relname));
	ri->source_suffix = buf.data;
	ri->source_suffix_len = buf.len;
}

/* Columns, keys and rendered schemas of rel (all but the publication filter). */
static void
build_shape(CdcRelInfo *ri, Relation rel, const Bitmapset *only, const CdcOptions *opts)
{
	render_names(ri, rel, opts);
	build_columns(ri, rel, only, opts);
	build_keys(ri, rel);
	render_key_prefix(ri, opts);
	render_value_prefix(ri, opts);
}

static void
build_entry(CdcRelInfo *ri, Relation rel)
{
	MemoryContext oldcxt;

	if (ri->cxt != NULL)
		MemoryContextDelete(ri->cxt);
	ri->cxt = AllocSetContextCreate(relinfo_cxt, "cdc_kafka relation",
									ALLOCSET_SMALL_SIZES);
	oldcxt = MemoryContextSwitchTo(ri->cxt);

	ri->pubfilter = pubfilter_build(rel, relinfo_opts->publication_names, ri->cxt);
	ri->published = pubfilter_publishes(ri->pubfilter, REORDER_BUFFER_CHANGE_INSERT) ||
		pubfilter_publishes(ri->pubfilter, REORDER_BUFFER_CHANGE_UPDATE) ||
		pubfilter_publishes(ri->pubfilter, REORDER_BUFFER_CHANGE_DELETE) ||
		pubfilter_publishes_truncate(ri->pubfilter);
	if (ri->published)
		build_shape(ri, rel, pubfilter_columns(ri->pubfilter), relinfo_opts);
	else
		render_names(ri, rel, relinfo_opts);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * A relation entry outside the cache, for reading a table (snapshots) with
 * the current catalog: entries built while decoding use the historic
 * catalog of each change and must not be mixed with it.  only: the
 * publication's column list, or NULL for all columns.
 */
CdcRelInfo *
relinfo_build_standalone(Relation rel, const Bitmapset *only, const CdcOptions *opts,
						 MemoryContext cxt)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(cxt);
	CdcRelInfo *ri = palloc0(sizeof(CdcRelInfo));

	ri->relid = RelationGetRelid(rel);
	ri->valid = true;
	ri->published = true;
	ri->cxt = cxt;
	build_shape(ri, rel, only, opts);
	MemoryContextSwitchTo(oldcxt);
	return ri;
}

/*
 * The cache entry of rel, built or rebuilt as needed.  The pointer is good
 * until the next catalog access may invalidate it: use it within one change.
 */
CdcRelInfo *
relinfo_get(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	CdcRelInfo *ri;
	bool		found;

	Assert(relinfo_cache != NULL);
	ri = hash_search(relinfo_cache, &relid, HASH_ENTER, &found);
	if (!found)
	{
		memset(((char *) ri) + sizeof(Oid), 0, sizeof(CdcRelInfo) - sizeof(Oid));
		ri->relid = relid;
	}
	/* building may take invalidations that clear valid again: loop */
	while (!ri->valid)
	{
		ri->valid = true;
		build_entry(ri, rel);
	}
	return ri;
}
