/*-------------------------------------------------------------------------
 *
 * colregex.h
 *		Debezium's lists of regular expressions naming tables and columns.
 *
 * src/plugin/colregex.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_COLREGEX_H
#define CDC_PLUGIN_COLREGEX_H

#include "nodes/pg_list.h"

extern List *colregex_split(const char *list);
extern char *colregex_check(const char *pattern);
extern List *colregex_compile(const char *option, const char *list);
extern bool colregex_match(const List *patterns, const char *subject);

#endif							/* CDC_PLUGIN_COLREGEX_H */
