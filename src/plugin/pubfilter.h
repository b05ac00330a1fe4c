/*-------------------------------------------------------------------------
 *
 * pubfilter.h
 *		The publication filter: tables, actions, column lists, row filters.
 *
 * What a publication says about one relation, evaluated as pgoutput does.
 *
 * src/plugin/pubfilter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_PUBFILTER_H
#define CDC_PLUGIN_PUBFILTER_H

#include "access/attmap.h"
#include "access/htup.h"
#include "nodes/bitmapset.h"
#include "nodes/pg_list.h"
#include "replication/reorderbuffer.h"
#include "utils/relcache.h"

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

#endif							/* CDC_PLUGIN_PUBFILTER_H */
