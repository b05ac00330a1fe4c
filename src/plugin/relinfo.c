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
 * A partition published via its partition root (pubfilter.c decides) gets
 * the shape of that ancestor: its topic, names, columns, keys and schemas,
 * plus the map from the ancestor's columns to its own.  Its entry is
 * rebuilt when the ancestor is invalidated too (renamed, altered, a
 * partition attached or detached).
 *
 * src/plugin/relinfo.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "common/nameadjust.h"
#include "plugin/colmask.h"
#include "plugin/envelope.h"
#include "plugin/keycols.h"
#include "plugin/options.h"
#include "plugin/pubfilter.h"
#include "plugin/relinfo.h"
#include "plugin/textenc.h"
#include "plugin/typedefault.h"
#include "plugin/typemap.h"
#include "plugin/route.h"
#include "plugin/unwrap.h"

static HTAB *relinfo_cache = NULL;
static MemoryContext relinfo_cxt = NULL;
static const CdcOptions *relinfo_opts = NULL;
static bool callbacks_registered = false;
/* has any entry taken an ancestor's shape (then invalidations look further) */
static bool any_published_as_ancestor = false;

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
		if (!any_published_as_ancestor)
			return;
	}
	/* all entries, or those of partitions published as relid */
	hash_seq_init(&status, relinfo_cache);
	while ((entry = hash_seq_search(&status)) != NULL)
	{
		if (!OidIsValid(relid) || entry->publish_relid == relid)
			entry->valid = false;
	}
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
	any_published_as_ancestor = false;
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
			return typedefault_expression(constr->defval[i].adbin);
	}
	return NULL;
}

/*
 * Debezium's optional flag is pgjdbc's getColumns NULLABLE: a NOT NULL
 * column, or a column whose own type is a NOT NULL domain.  A domain over a
 * NOT NULL domain is nullable there, although PostgreSQL enforces the base's
 * constraint; a domain's DEFAULT is no column default either.
 */
static bool
is_not_null_domain(Oid typid)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	bool		result = false;

	if (HeapTupleIsValid(tup))
	{
		Form_pg_type type = (Form_pg_type) GETSTRUCT(tup);

		result = type->typtype == TYPTYPE_DOMAIN && type->typnotnull;
		ReleaseSysCache(tup);
	}
	return result;
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
							att->atttypid, att->atttypmod,
							att->attnotnull || is_not_null_domain(att->atttypid), opts);
		if (att->atthasdef)
			typedefault_column_set_default(col, default_expression(rel, att->attnum), opts);
		typedefault_column_set_fallback(col, opts);
		colmask_apply(opts->column_masks, col, ri->schemaname, ri->relname);
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
 * Debezium takes the key out of band, from pgjdbc's DatabaseMetaData, each
 * time pgoutput describes the relation: getPrimaryKeys() (the key columns of
 * the primary key, INCLUDE columns left out) or, without a primary key, the
 * first index of getIndexInfo(unique), which lists a clustered index first
 * and the others by name, skipping an index any of whose columns (INCLUDE
 * columns counted) PostgresConnection takes for an expression.  Neither
 * looks at the replica identity, at partial, deferrable or invalid indexes,
 * or at whether the columns are nullable.  Columns the publication leaves
 * out are then dropped from the key without trying another index.
 */

/* Can Java's "." match every character in [from, to)?  Not a line end. */
static bool
java_dot_matches(const char *from, const char *to)
{
	for (const unsigned char *p = (const unsigned char *) from;
		 p < (const unsigned char *) to; p++)
	{
		/* \n, \r, U+0085, U+2028, U+2029 (the string is NUL-terminated) */
		if (*p == '\n' || *p == '\r' || (p[0] == 0xC2 && p[1] == 0x85) ||
			(p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)))
			return false;
	}
	return true;
}

/*
 * PostgresConnection's two patterns, matched against the whole string: a
 * function call, optionally after "(", and a parenthesised operator
 * expression, whose operator set has the space and lacks "-".
 */
static bool
looks_like_function(const char *s, size_t len)
{
	size_t		i = (len > 0 && s[0] == '(') ? 1 : 0;
	size_t		j = i;

	/* [A-Za-z0-9_.], ASCII whatever the server's LC_CTYPE */
	while (j < len && (strchr("_.", s[j]) != NULL || (s[j] >= '0' && s[j] <= '9') ||
					   ((s[j] | 0x20) >= 'a' && (s[j] | 0x20) <= 'z')))
		j++;
	return j > i && j + 1 < len && s[j] == '(' && s[len - 1] == ')' &&
		java_dot_matches(s + j + 1, s + len - 1);
}

static bool
looks_like_operator_expression(const char *s, size_t len)
{
	if (len < 5 || s[0] != '(' || s[len - 1] != ')' ||
		!java_dot_matches(s + 1, s + len - 1))
		return false;
	/* "(" X op Y ")", X and Y not empty */
	for (size_t i = 2; i + 3 <= len; i++)
	{
		if (s[i] != '\0' && strchr("+ */<>=~!@#%^&|`?", s[i]) != NULL)
			return true;
	}
	return false;
}

/*
 * Does Debezium take an index column for an expression?  It sees the column
 * as pg_get_indexdef() prints it (a plain column quoted as needed) with the
 * double quotes at either end trimmed, so a column named "f(x)" is one too.
 */
static bool
debezium_sees_expression(const char *printed)
{
	size_t		len = strlen(printed);

	while (len > 0 && printed[0] == '"')
	{
		printed++;
		len--;
	}
	while (len > 0 && printed[len - 1] == '"')
		len--;
	return looks_like_function(printed, len) ||
		looks_like_operator_expression(printed, len);
}

/*
 * Can Debezium key a table by this unique index?  An expression column it
 * does not recognise as one (a cast: "((n)::text)") makes Debezium 3.6.1
 * fail on the table; we pass over every expression index instead.
 */
static bool
index_has_plain_columns(Relation rel, Form_pg_index index)
{
	TupleDesc	desc = RelationGetDescr(rel);

	for (int i = 0; i < index->indnatts; i++)
	{
		AttrNumber	attnum = index->indkey.values[i];

		if (attnum <= 0 || attnum > desc->natts)
			return false;
		if (debezium_sees_expression(
				quote_identifier(NameStr(TupleDescAttr(desc, attnum - 1)->attname))))
			return false;
	}
	return true;
}

/* Does index (clustered, name) come before the best so far in getIndexInfo? */
static bool
index_precedes(bool clustered, const char *name, bool best_clustered,
			   const char *best_name)
{
	if (best_name == NULL || clustered != best_clustered)
		return best_name == NULL || clustered;
	/* pg_class.relname sorts in the "C" collation */
	return strcmp(name, best_name) < 0;
}

static Oid
key_index(Relation rel, bool *is_primary)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	Oid			best = InvalidOid;
	bool		best_clustered = false;
	char	   *best_name = NULL;

	*is_primary = false;
	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
		Form_pg_index index;
		char	   *name;

		if (!HeapTupleIsValid(tup))
			continue;
		index = (Form_pg_index) GETSTRUCT(tup);
		/* rd_pkindex leaves out a deferrable primary key; pgjdbc does not */
		if (index->indisprimary)
		{
			ReleaseSysCache(tup);
			list_free(indexes);
			*is_primary = true;
			return indexoid;
		}
		if (index->indisunique && index_has_plain_columns(rel, index) &&
			(name = get_rel_name(indexoid)) != NULL &&
			index_precedes(index->indisclustered, name, best_clustered, best_name))
		{
			best = indexoid;
			best_clustered = index->indisclustered;
			best_name = name;
		}
		ReleaseSysCache(tup);
	}
	list_free(indexes);
	return best;
}

static void
build_keys(CdcRelInfo *ri, Relation rel)
{
	bool		is_primary;
	Oid			indexoid = key_index(rel, &is_primary);
	HeapTuple	tup;
	Form_pg_index index;
	int			ncols;

	ri->nkeys = 0;
	if (!OidIsValid(indexoid))
		return;
	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
	if (!HeapTupleIsValid(tup))
		return;
	index = (Form_pg_index) GETSTRUCT(tup);
	ncols = is_primary ? index->indnkeyatts : index->indnatts;
	ri->keys = palloc(sizeof(int) * Max(ncols, 1));
	for (int i = 0; i < ncols; i++)
	{
		int			idx = column_index(ri, index->indkey.values[i]);
		bool		seen = false;

		for (int k = 0; k < ri->nkeys; k++)
			seen |= ri->keys[k] == idx;
		if (idx >= 0 && !seen)
			ri->keys[ri->nkeys++] = idx;
	}
	ReleaseSysCache(tup);
}

/* The table's key identifies rows whatever the record key is (snapshots). */
static void
keep_row_keys(CdcRelInfo *ri)
{
	ri->nrowkeys = ri->nkeys;
	ri->rowkeys = ri->keys;
}

/* message.key.columns, when it names any of the columns, replaces the key. */
static void
choose_message_keys(CdcRelInfo *ri, const CdcOptions *opts)
{
	int		   *keys;
	int			nkeys;

	if (opts->message_key_columns == NIL)
		return;
	keys = palloc(sizeof(int) * Max(ri->ncolumns, 1));
	if (keycols_choose(opts->message_key_columns, ri->schemaname, ri->relname,
					   ri->columns, ri->ncolumns, keys, &nkeys))
	{
		ri->keys = keys;
		ri->nkeys = nkeys;
	}
}

/* ---- rendered schemas ------------------------------------------------------- */

/*
 * The name of one of the table's schemas, <topic><suffix>, under
 * schema.name.adjustment.mode (the topic is ASCII already).
 */
static void
append_schema_name(StringInfo buf, const CdcRelInfo *ri, const char *suffix,
				   const CdcOptions *opts)
{
	bool		routed = ri->topic != ri->table_topic;
	char	   *name = psprintf("%s%s", ri->topic, suffix);
	char	   *adjusted = palloc(NAMEADJUST_MAX_LEN(strlen(name)));

	/* the route transform names its schemas by its own adjustment mode */
	nameadjust_apply(name, routed ? ri->route_schema_name_mode : opts->schema_name_mode,
					 false, adjusted);
	textenc_append_json(buf, adjusted, strlen(adjusted));
}

static void
append_row_schema(StringInfo buf, const CdcRelInfo *ri, const char *field,
				  const CdcOptions *opts)
{
	appendStringInfoString(buf, "{\"type\":\"struct\",\"fields\":[");
	for (int i = 0; i < ri->ncolumns; i++)
	{
		CdcColumn	col = ri->columns[i];

		if (i > 0)
			appendStringInfoChar(buf, ',');
		if (col.value_schema_json != NULL)
			col.schema_json = unconstify(char *, col.value_schema_json);
		typemap_write_field_schema(buf, &col, true);
	}
	appendStringInfo(buf, "],\"optional\":true,\"name\":");
	append_schema_name(buf, ri, ".Value", opts);
	appendStringInfo(buf, ",\"field\":\"%s\"}", field);
}

static char *
key_prefix(const CdcRelInfo *ri, const char *extra, int *len, const CdcOptions *opts)
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
		appendStringInfo(&buf, "%s],\"optional\":false,\"name\":", extra);
		append_schema_name(&buf, ri, ".Key", opts);
		appendStringInfoString(&buf, "},\"payload\":");
	}
	*len = buf.len;
	return buf.data;
}

/*
 * The record key's schema, and the key headers' (__debezium.oldkey), which
 * the route transform leaves as they were.
 */
static void
render_key_prefix(CdcRelInfo *ri, const CdcOptions *opts)
{
	ri->key_prefix = key_prefix(ri, ri->route_key_schema ? ri->route_key_schema : "",
								&ri->key_prefix_len, opts);
	ri->header_key_prefix = ri->key_prefix;
	ri->header_key_prefix_len = ri->key_prefix_len;
	if (ri->topic != ri->table_topic)
	{
		char	   *topic = ri->topic;

		ri->topic = ri->table_topic;
		ri->header_key_prefix = key_prefix(ri, "", &ri->header_key_prefix_len, opts);
		ri->topic = topic;
	}
}

static void
render_value_prefix(CdcRelInfo *ri, const CdcOptions *opts)
{
	StringInfoData buf;

	initStringInfo(&buf);
	if (opts->schemas)
	{
		appendStringInfoString(&buf, "{\"schema\":{\"type\":\"struct\",\"fields\":[");
		append_row_schema(&buf, ri, "before", opts);
		appendStringInfoChar(&buf, ',');
		append_row_schema(&buf, ri, "after", opts);
		appendStringInfoChar(&buf, ',');
		appendStringInfoString(&buf, CDC_ENVELOPE_TAIL_SCHEMA);
		appendStringInfoString(&buf, "],\"optional\":false,\"name\":");
		append_schema_name(&buf, ri, ".Envelope", opts);
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
	textenc_sanitize_topic(&buf, psprintf("%s%s%s%s%s", opts->topic_prefix,
										  opts->topic_delimiter, ri->schemaname,
										  opts->topic_delimiter, ri->relname));
	ri->topic = buf.data;
	ri->table_topic = ri->topic;
	ri->flat_topic = ri->topic;

	initStringInfo(&buf);
	appendStringInfoString(&buf, ",\"schema\":");
	textenc_append_json(&buf, ri->schemaname, strlen(ri->schemaname));
	appendStringInfoString(&buf, ",\"table\":");
	textenc_append_json(&buf, ri->relname, strlen(ri->relname));
	ri->source_suffix = buf.data;
	ri->source_suffix_len = buf.len;
}

/* Columns, keys and rendered schemas of rel (all but the publication filter). */
static void
build_shape(CdcRelInfo *ri, Relation rel, const Bitmapset *only, const CdcOptions *opts)
{
	render_names(ri, rel, opts);
	route_apply(ri, opts);
	build_columns(ri, rel, only, opts);
	build_keys(ri, rel);
	keep_row_keys(ri);
	choose_message_keys(ri, opts);
	render_key_prefix(ri, opts);
	render_value_prefix(ri, opts);
	if (opts->unwrap != NULL)
		unwrap_render_schemas(ri, opts);
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
	ri->outbox_cols = NULL;

	ri->pubfilter = pubfilter_build(rel, relinfo_opts->publication_names, ri->cxt);
	ri->published = pubfilter_publishes(ri->pubfilter, REORDER_BUFFER_CHANGE_INSERT) ||
		pubfilter_publishes(ri->pubfilter, REORDER_BUFFER_CHANGE_UPDATE) ||
		pubfilter_publishes(ri->pubfilter, REORDER_BUFFER_CHANGE_DELETE) ||
		pubfilter_publishes_truncate(ri->pubfilter);
	ri->publish_relid = pubfilter_publish_as(ri->pubfilter, rel);
	ri->attrmap = pubfilter_attrmap(ri->pubfilter);
	if (!ri->published)
		render_names(ri, rel, relinfo_opts);
	else if (ri->publish_relid == ri->relid)
		build_shape(ri, rel, pubfilter_columns(ri->pubfilter), relinfo_opts);
	else
	{
		Relation	ancestor;

		/* before opening it: its invalidations must reach this entry */
		any_published_as_ancestor = true;
		ancestor = RelationIdGetRelation(ri->publish_relid);
		if (!RelationIsValid(ancestor))
			elog(ERROR, "could not open relation with OID %u", ri->publish_relid);
		build_shape(ri, ancestor, pubfilter_columns(ri->pubfilter), relinfo_opts);
		RelationClose(ancestor);
	}
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
	ri->publish_relid = ri->relid;
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
