/*-------------------------------------------------------------------------
 *
 * pubfilter.c
 *		Which changes of a relation the chosen publications publish: the
 *		tables, the actions, PostgreSQL 15 column lists and row filters.
 *
 * With the publication_names option the plugin publishes exactly what
 * pgoutput would publish for the same publications, so that a stream from
 * cdc_kafka matches Debezium's (which reads pgoutput): a table is in if a
 * publication is FOR ALL TABLES, names it, names its schema, or names an
 * ancestor of this partition; the published actions are the union over
 * those publications; a column list applies unless some publication
 * publishes all columns; row filters of the publications are OR-ed per
 * action, and an UPDATE whose old and new rows fall on different sides of
 * the filter becomes an INSERT or a DELETE.
 *
 * A partition of a table published WITH (publish_via_partition_root) is
 * published as the topmost ancestor any of the publications names, as
 * pgoutput's get_rel_sync_entry decides: its changes take that ancestor's
 * column list and row filter (evaluated on the row converted to the
 * ancestor's layout, which may order columns differently or lack the
 * partition's dropped ones), and the caller gives them the ancestor's
 * topic and shape.  Without it, partitioned tables publish nothing of
 * their own: their partitions are published as themselves.
 *
 * Everything here reads the catalogs through the historic snapshot of the
 * change being decoded, so a publication altered mid-stream takes effect at
 * the right place in the stream (relinfo.c drops cached filters on
 * publication invalidations).
 *
 * src/plugin/pubfilter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupconvert.h"
#include "catalog/partition.h"
#include "catalog/pg_publication.h"
#include "catalog/pg_publication_rel.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "plugin/compat.h"
#include "plugin/plugin.h"
#include "plugin/pubfilter.h"

/* Row filters exist for these three actions only. */
#define FILTER_INSERT	0
#define FILTER_UPDATE	1
#define FILTER_DELETE	2
#define NUM_FILTERS		3

struct CdcPubFilter
{
	bool		pubinsert;
	bool		pubupdate;
	bool		pubdelete;
	bool		pubtruncate;
	Oid			publish_as_relid;	/* the relation, or the ancestor it goes out as */
	AttrMap    *attrmap;		/* ancestor's attnos to the relation's; NULL: same */
	Bitmapset  *columns;		/* NULL: all columns */
	ExprState  *filters[NUM_FILTERS];	/* NULL: no row filter */
	EState	   *estate;
	TupleTableSlot *old_slot;	/* rows as the filter sees them (ancestor's layout) */
	TupleTableSlot *new_slot;
	TupleTableSlot *rel_old_slot;	/* with an attrmap: rows in the relation's layout */
	TupleTableSlot *rel_new_slot;
	TupleTableSlot *merged_slot;	/* new row with unchanged TOAST from old */
};

/* The publications named by the plugin option, loaded once per change of them. */
static List *loaded_publications = NIL;
static MemoryContext publications_cxt = NULL;

void
pubfilter_invalidate_publications(void)
{
	if (publications_cxt != NULL)
		MemoryContextReset(publications_cxt);
	loaded_publications = NIL;
}

static List *
load_publications(List *names)
{
	MemoryContext oldcxt;
	ListCell   *lc;

	if (loaded_publications != NIL)
		return loaded_publications;
	if (publications_cxt == NULL)
		publications_cxt = AllocSetContextCreate(TopMemoryContext,
												 "cdc_kafka publications",
												 ALLOCSET_SMALL_SIZES);
	oldcxt = MemoryContextSwitchTo(publications_cxt);
	foreach(lc, names)
		loaded_publications = lappend(loaded_publications,
									  GetPublicationByName(lfirst(lc), false));
	MemoryContextSwitchTo(oldcxt);
	return loaded_publications;
}

/*
 * The relation as which pub publishes relid's changes (relid itself, or with
 * publish_via_partition_root the topmost ancestor pub includes), with how
 * many levels up the partition tree that is in *level; InvalidOid if pub
 * does not publish relid at all.  ancestors: relid's, nearest first.
 */
static Oid
published_as(Publication *pub, Oid relid, List *relpubs, List *schemapubs,
			 List *ancestors, int *level)
{
	Oid			ancestor = InvalidOid;
	int			ancestor_level = 0;

	*level = 0;
	if (pub->alltables)
	{
		if (!pub->pubviaroot || ancestors == NIL)
			return relid;
		*level = list_length(ancestors);
		return llast_oid(ancestors);
	}
	if (ancestors != NIL)
		ancestor = GetTopMostAncestorInPublication(pub->oid, ancestors, &ancestor_level);
	if (OidIsValid(ancestor) && pub->pubviaroot)
	{
		*level = ancestor_level;
		return ancestor;
	}
	if (OidIsValid(ancestor) || list_member_oid(relpubs, pub->oid) ||
		list_member_oid(schemapubs, pub->oid))
		return relid;
	return InvalidOid;
}

/*
 * Merge the actions of the publications among pubs that publish rel, and
 * choose the relation its changes go out as: the topmost one across the
 * publications.  Returns the publications that publish it as that one,
 * whose column lists and row filters apply.
 */
static List *
publishing_publications(CdcPubFilter *pf, Relation rel, List *pubs)
{
	Oid			relid = RelationGetRelid(rel);
	List	   *relpubs = GetRelationPublications(relid);
	List	   *schemapubs = GetSchemaPublications(RelationGetNamespace(rel));
	List	   *ancestors = NIL;
	List	   *result = NIL;
	int			top_level = 0;
	ListCell   *lc;

	if (rel->rd_rel->relispartition)
		ancestors = get_partition_ancestors(relid);
	foreach(lc, pubs)
	{
		Publication *pub = lfirst(lc);
		int			level;
		Oid			as = published_as(pub, relid, relpubs, schemapubs, ancestors, &level);

		if (!OidIsValid(as))
			continue;
		/* partitioned tables publish through their partitions */
		if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE && !pub->pubviaroot)
			continue;
		pf->pubinsert |= pub->pubactions.pubinsert;
		pf->pubupdate |= pub->pubactions.pubupdate;
		pf->pubdelete |= pub->pubactions.pubdelete;
		pf->pubtruncate |= pub->pubactions.pubtruncate;
		if (level < top_level)
			continue;
		if (level > top_level)
		{
			top_level = level;
			pf->publish_as_relid = as;
			result = NIL;
		}
		result = lappend(result, pub);
	}
	return result;
}

/* The pg_publication_rel row of rel in pub, or NULL (FOR ALL TABLES, schema). */
static HeapTuple
publication_rel_tuple(Publication *pub, Relation rel)
{
	HeapTuple	tup;

	if (pub->alltables)
		return NULL;
	tup = SearchSysCache2(PUBLICATIONRELMAP,
						  ObjectIdGetDatum(RelationGetRelid(rel)),
						  ObjectIdGetDatum(pub->oid));
	return HeapTupleIsValid(tup) ? tup : NULL;
}

static void
build_column_list(CdcPubFilter *pf, Relation rel, List *pubs, MemoryContext cxt)
{
	ListCell   *lc;
	bool		first = true;

	foreach(lc, pubs)
	{
		HeapTuple	tup = publication_rel_tuple(lfirst(lc), rel);
		Bitmapset  *cols = NULL;
		bool		isnull = true;
		Datum		d = 0;

		if (tup != NULL)
		{
			d = SysCacheGetAttr(PUBLICATIONRELMAP, tup,
								Anum_pg_publication_rel_prattrs, &isnull);
			if (!isnull)
				cols = pub_collist_to_bitmapset(NULL, d, cxt);
			ReleaseSysCache(tup);
		}
		if (first)
			pf->columns = cols;
		else if (!bms_equal(pf->columns, cols))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot use different column lists for table \"%s.%s\" in different publications",
							get_namespace_name(RelationGetNamespace(rel)),
							RelationGetRelationName(rel))));
		first = false;
	}
}

static EState *
filter_estate(Relation rel)
{
	EState	   *estate = CreateExecutorState();
	RangeTblEntry *rte = makeNode(RangeTblEntry);

	rte->rtekind = RTE_RELATION;
	rte->relid = RelationGetRelid(rel);
	rte->relkind = rel->rd_rel->relkind;
	rte->rellockmode = AccessShareLock;
	compat_init_range_table(estate, rte);
	return estate;
}

/*
 * Collect each action's row filters.  A publication of the table without a
 * filter (or FOR ALL TABLES / TABLES IN SCHEMA) means no filter for the
 * actions it publishes.
 */
static void
build_row_filters(CdcPubFilter *pf, Relation rel, List *pubs, MemoryContext cxt)
{
	List	   *quals[NUM_FILTERS] = {NIL, NIL, NIL};
	bool		unfiltered[NUM_FILTERS] = {false, false, false};
	Oid			schemaid = RelationGetNamespace(rel);
	ListCell   *lc;

	foreach(lc, pubs)
	{
		Publication *pub = lfirst(lc);
		bool		acts[NUM_FILTERS] = {pub->pubactions.pubinsert,
			pub->pubactions.pubupdate, pub->pubactions.pubdelete};
		HeapTuple	tup = NULL;
		bool		isnull = true;
		Datum		qual = 0;

		if (!SearchSysCacheExists2(PUBLICATIONNAMESPACEMAP,
								   ObjectIdGetDatum(schemaid),
								   ObjectIdGetDatum(pub->oid)))
			tup = publication_rel_tuple(pub, rel);
		if (tup != NULL)
			qual = SysCacheGetAttr(PUBLICATIONRELMAP, tup,
								   Anum_pg_publication_rel_prqual, &isnull);
		for (int i = 0; i < NUM_FILTERS; i++)
		{
			if (!acts[i])
				continue;
			if (isnull)
				unfiltered[i] = true;
			else
				quals[i] = lappend(quals[i], TextDatumGetCString(qual));
		}
		if (tup != NULL)
			ReleaseSysCache(tup);
	}

	for (int i = 0; i < NUM_FILTERS; i++)
	{
		List	   *exprs = NIL;
		ListCell   *qc;
		MemoryContext oldcxt;

		if (unfiltered[i] || quals[i] == NIL)
			continue;
		oldcxt = MemoryContextSwitchTo(cxt);
		if (pf->estate == NULL)
			pf->estate = filter_estate(rel);
		foreach(qc, quals[i])
			exprs = lappend(exprs, stringToNode(lfirst(qc)));
		pf->filters[i] = ExecPrepareExpr(make_orclause(exprs), pf->estate);
		MemoryContextSwitchTo(oldcxt);
	}
}

/*
 * The filter's slots, in the layout of target (rel or the ancestor it is
 * published as).  A partition laid out differently stores its tuples in
 * slots of its own and converts them.
 */
static void
build_slots(CdcPubFilter *pf, Relation rel, Relation target, MemoryContext cxt)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(cxt);
	TupleDesc	desc = CreateTupleDescCopy(RelationGetDescr(target));

	if (pf->attrmap != NULL)
	{
		TupleDesc	reldesc = CreateTupleDescCopy(RelationGetDescr(rel));

		pf->rel_old_slot = MakeSingleTupleTableSlot(reldesc, &TTSOpsHeapTuple);
		pf->rel_new_slot = MakeSingleTupleTableSlot(reldesc, &TTSOpsHeapTuple);
		pf->old_slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
		pf->new_slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	}
	else
	{
		pf->old_slot = MakeSingleTupleTableSlot(desc, &TTSOpsHeapTuple);
		pf->new_slot = MakeSingleTupleTableSlot(desc, &TTSOpsHeapTuple);
	}
	pf->merged_slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	MemoryContextSwitchTo(oldcxt);
}

/* A filter that publishes nothing yet, rel's changes going out as rel's. */
static CdcPubFilter *
new_filter(Relation rel, MemoryContext cxt)
{
	CdcPubFilter *pf = MemoryContextAllocZero(cxt, sizeof(CdcPubFilter));

	pf->publish_as_relid = RelationGetRelid(rel);
	return pf;
}

/*
 * Column list, row filters and slots, from the publications pubs that
 * publish rel as pf->publish_as_relid.
 */
static void
build_dml_filter(CdcPubFilter *pf, Relation rel, List *pubs, MemoryContext cxt)
{
	Relation	target = rel;

	if (pf->publish_as_relid != RelationGetRelid(rel))
	{
		target = RelationIdGetRelation(pf->publish_as_relid);
		if (!RelationIsValid(target))
			elog(ERROR, "could not open relation with OID %u", pf->publish_as_relid);
		pf->attrmap = compat_attrmap_by_name_if_req(RelationGetDescr(rel),
													 RelationGetDescr(target));
	}
	build_column_list(pf, target, pubs, cxt);
	build_row_filters(pf, target, pubs, cxt);
	if (pf->estate != NULL)
		build_slots(pf, rel, target, cxt);
	if (target != rel)
		RelationClose(target);
}

/*
 * Build the filter of rel for the publications named; NULL when no names
 * were given: then every change of every publishable table is published,
 * as by a FOR ALL TABLES publication, which leaves partitioned tables to
 * their partitions.  Everything is allocated in cxt, the relation's
 * cache-entry context.
 */
CdcPubFilter *
pubfilter_build(Relation rel, List *publication_names, MemoryContext cxt)
{
	CdcPubFilter *pf;
	List	   *pubs;
	MemoryContext oldcxt;

	if (publication_names == NIL)
		return rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE ?
			new_filter(rel, cxt) : NULL;
	pf = new_filter(rel, cxt);
	/* the extension's own tables (its state, its snapshot queue) are not data */
	if (strcmp(get_namespace_name(RelationGetNamespace(rel)), CDC_EXTENSION_SCHEMA) == 0)
		return pf;
	oldcxt = MemoryContextSwitchTo(cxt);
	pubs = publishing_publications(pf, rel, load_publications(publication_names));
	if (pf->pubinsert || pf->pubupdate || pf->pubdelete)
		build_dml_filter(pf, rel, pubs, cxt);
	MemoryContextSwitchTo(oldcxt);
	return pf;
}

/* The relation rel's changes are published as: rel, or an ancestor. */
Oid
pubfilter_publish_as(const CdcPubFilter *pf, Relation rel)
{
	return pf == NULL ? RelationGetRelid(rel) : pf->publish_as_relid;
}

/*
 * For a partition published as an ancestor laid out differently, the map
 * from the ancestor's attribute numbers to the partition's; else NULL.
 */
const AttrMap *
pubfilter_attrmap(const CdcPubFilter *pf)
{
	return pf == NULL ? NULL : pf->attrmap;
}

bool
pubfilter_publishes(const CdcPubFilter *pf, ReorderBufferChangeType action)
{
	if (pf == NULL)
		return true;
	switch (action)
	{
		case REORDER_BUFFER_CHANGE_INSERT:
			return pf->pubinsert;
		case REORDER_BUFFER_CHANGE_UPDATE:
			return pf->pubupdate;
		case REORDER_BUFFER_CHANGE_DELETE:
			return pf->pubdelete;
		default:
			return false;
	}
}

bool
pubfilter_publishes_truncate(const CdcPubFilter *pf)
{
	return pf == NULL || pf->pubtruncate;
}

/* The publication's column list, or NULL when every column is published. */
const Bitmapset *
pubfilter_columns(const CdcPubFilter *pf)
{
	return pf == NULL ? NULL : pf->columns;
}

static bool
eval_filter(CdcPubFilter *pf, ExprState *filter, TupleTableSlot *slot)
{
	ExprContext *ecxt;
	Datum		ret;
	bool		isnull;

	ResetPerTupleExprContext(pf->estate);
	ecxt = GetPerTupleExprContext(pf->estate);
	ecxt->ecxt_scantuple = slot;
	ret = ExecEvalExprSwitchContext(filter, ecxt, &isnull);
	return !isnull && DatumGetBool(ret);
}

/*
 * The new row as the filter must see it: unchanged TOASTed values that
 * decoding only has in the old row (replica identity columns) copied in.
 */
static TupleTableSlot *
merged_new_row(CdcPubFilter *pf)
{
	TupleDesc	desc = pf->new_slot->tts_tupleDescriptor;
	TupleTableSlot *merged = NULL;

	slot_getallattrs(pf->new_slot);
	slot_getallattrs(pf->old_slot);
	for (int i = 0; i < desc->natts; i++)
	{
		Datum		nv = pf->new_slot->tts_values[i];

		if (pf->new_slot->tts_isnull[i] || pf->old_slot->tts_isnull[i] ||
			TupleDescAttr(desc, i)->attlen != -1 ||
			!VARATT_IS_EXTERNAL_ONDISK(nv) ||
			VARATT_IS_EXTERNAL_ONDISK(pf->old_slot->tts_values[i]))
			continue;
		if (merged == NULL)
		{
			merged = pf->merged_slot;
			ExecClearTuple(merged);
			memcpy(merged->tts_values, pf->new_slot->tts_values, desc->natts * sizeof(Datum));
			memcpy(merged->tts_isnull, pf->new_slot->tts_isnull, desc->natts * sizeof(bool));
		}
		merged->tts_values[i] = pf->old_slot->tts_values[i];
	}
	if (merged == NULL)
		return pf->new_slot;
	ExecStoreVirtualTuple(merged);
	return merged;
}

/* Put tuple into slot, converted to the ancestor's layout if need be. */
static void
store_row(CdcPubFilter *pf, HeapTuple tuple, TupleTableSlot *relslot,
		  TupleTableSlot *slot)
{
	if (pf->attrmap == NULL)
	{
		ExecStoreHeapTuple(tuple, slot, false);
		return;
	}
	ExecStoreHeapTuple(tuple, relslot, false);
	execute_attr_map_slot(pf->attrmap, relslot, slot);
}

/*
 * Apply the row filter of *action to the change.  Returns false if the
 * change is not published; an UPDATE may come back as INSERT or DELETE.
 */
bool
pubfilter_row(CdcPubFilter *pf, Relation rel, HeapTuple oldtuple,
			  HeapTuple newtuple, ReorderBufferChangeType *action)
{
	int			which;
	bool		old_ok;
	bool		new_ok;

	if (pf == NULL || pf->estate == NULL)
		return true;
	which = (*action == REORDER_BUFFER_CHANGE_INSERT) ? FILTER_INSERT :
		(*action == REORDER_BUFFER_CHANGE_UPDATE) ? FILTER_UPDATE : FILTER_DELETE;
	if (pf->filters[which] == NULL)
		return true;

	if (newtuple != NULL)
		store_row(pf, newtuple, pf->rel_new_slot, pf->new_slot);
	if (oldtuple != NULL)
		store_row(pf, oldtuple, pf->rel_old_slot, pf->old_slot);
	if (oldtuple == NULL || newtuple == NULL)
		return eval_filter(pf, pf->filters[which],
						   newtuple != NULL ? pf->new_slot : pf->old_slot);

	old_ok = eval_filter(pf, pf->filters[which], pf->old_slot);
	new_ok = eval_filter(pf, pf->filters[which], merged_new_row(pf));
	if (!old_ok && new_ok)
		*action = REORDER_BUFFER_CHANGE_INSERT;
	else if (old_ok && !new_ok)
		*action = REORDER_BUFFER_CHANGE_DELETE;
	return old_ok || new_ok;
}
