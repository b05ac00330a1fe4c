/*-------------------------------------------------------------------------
 *
 * colmask.h
 *		Debezium's column mappers (masks, truncation, hashes, source types).
 *
 * src/plugin/colmask.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_COLMASK_H
#define CDC_PLUGIN_COLMASK_H

#include "nodes/pg_list.h"
#include "plugin/typemap.h"

/* entries of cdc_kafka.column_mask_with_chars (and column_truncate_to_chars) */
#define COLMASK_MAX_SETTING_ENTRIES 16

extern char *colmask_setting_options(const char *value, bool truncate, List **names,
									 List **lists);
extern char *colmask_list_error(const char *list);
extern List *colmask_parse(List *masks, const char *option, const char *value);
extern void colmask_apply(const List *masks, CdcColumn *col, const char *schemaname,
						  const char *relname);
extern void colmask_append_value(StringInfo buf, const CdcColumn *col, const char *json,
								 int len, const CdcOptions *opts);

#endif							/* CDC_PLUGIN_COLMASK_H */
