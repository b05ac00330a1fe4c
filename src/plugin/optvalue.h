/*-------------------------------------------------------------------------
 *
 * optvalue.h
 *		Reading option values as Debezium reads its properties: the words,
 *		flags and trimming the option parsers share, and their one error.
 *
 * Used by options.c and the modules it hands options to (unwrap.c,
 * route.c, outbox.c, colmask.c, colhash.c), so it calls none of them.
 *
 * src/plugin/optvalue.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_OPTVALUE_H
#define CDC_PLUGIN_OPTVALUE_H

#include "utils/guc.h"

extern const struct config_enum_entry optvalue_name_adjustment_modes[];

extern void optvalue_bad(const char *name, const char *value, const char *hint);
extern bool optvalue_flag(const char *name, const char *value);
extern int	optvalue_word(const char *name, const char *value,
						  const struct config_enum_entry *words);
extern char *optvalue_java_trim(const char *s, size_t len);

#endif							/* CDC_PLUGIN_OPTVALUE_H */
