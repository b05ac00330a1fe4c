/*-------------------------------------------------------------------------
 *
 * typedefault.h
 *		Column defaults and fallback values in the schema.
 *
 * Debezium writes a column's constant default into its field schema and a
 * NOT NULL column's type fallback into before-images without a value.
 *
 * src/plugin/typedefault.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_TYPEDEFAULT_H
#define CDC_PLUGIN_TYPEDEFAULT_H

#include "plugin/options.h"
#include "plugin/typemap.h"

extern char *typedefault_expression(const char *adbin);
extern void typedefault_column_set_default(CdcColumn *col, const char *default_expr,
									   const CdcOptions *opts);
extern void typedefault_column_set_fallback(CdcColumn *col, const CdcOptions *opts);

#endif							/* CDC_PLUGIN_TYPEDEFAULT_H */
