/*-------------------------------------------------------------------------
 *
 * colhash.h
 *		column.mask.hash.[v2.]<algorithm>.with.salt.<salt>: hashed values.
 *
 * src/plugin/colhash.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_COLHASH_H
#define CDC_PLUGIN_COLHASH_H

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"

#define COLHASH_PREFIX "column_mask_hash_"

/* entries of cdc_kafka.column_mask_hash */
#define COLHASH_MAX_SETTING_ENTRIES 16

typedef struct ColHash ColHash;

extern ColHash *colhash_parse(const char *option);
extern bool colhash_is_v2(const ColHash *hash);
extern void colhash_append(StringInfo buf, const ColHash *hash, const char *text, int len,
						   int maxlen);
extern char *colhash_setting_options(const char *value, List **names, List **lists);

#endif							/* CDC_PLUGIN_COLHASH_H */
