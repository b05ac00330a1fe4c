/*-------------------------------------------------------------------------
 *
 * keycols.h
 *		message.key.columns: the record key columns chosen per table.
 *
 * src/plugin/keycols.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_KEYCOLS_H
#define CDC_PLUGIN_KEYCOLS_H

#include "nodes/pg_list.h"
#include "plugin/typemap.h"

extern char *keycols_check(const char *value);
extern List *keycols_parse(const char *option, const char *value);
extern bool keycols_choose(const List *rules, const char *schemaname, const char *relname,
						   const CdcColumn *columns, int ncolumns, int *keys, int *nkeys);

#endif							/* CDC_PLUGIN_KEYCOLS_H */
