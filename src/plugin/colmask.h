/*-------------------------------------------------------------------------
 *
 * colmask.h
 *		column.mask.with.<n>.chars: masked column values.
 *
 * src/plugin/colmask.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_COLMASK_H
#define CDC_PLUGIN_COLMASK_H

#include "nodes/pg_list.h"
#include "plugin/typemap.h"

extern List *colmask_parse(List *masks, const char *option, const char *value);
extern void colmask_apply(const List *masks, CdcColumn *col, const char *schemaname,
						  const char *relname);

#endif							/* CDC_PLUGIN_COLMASK_H */
