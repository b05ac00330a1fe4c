/*-------------------------------------------------------------------------
 *
 * route.h
 *		The "route" transform: Debezium's ByLogicalTableRouter.
 *
 * Configured by the plugin options transforms and route_* (the
 * cdc_kafka.* settings of the same names in the worker); applied once per
 * relation when its topic and schemas are rendered (relinfo.c), and once
 * per session to the topics of transaction metadata and messages
 * (plugin.c) and of heartbeats (the worker's stream.c).
 *
 * src/plugin/route.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_ROUTE_H
#define CDC_PLUGIN_ROUTE_H

#include "plugin/encoder.h"
#include "plugin/options.h"
#include "plugin/relinfo.h"

#define ROUTE_DEFAULT_KEY_FIELD "__dbz__physicalTableIdentifier"

typedef struct CdcRoute
{
	bool		enabled;		/* "route" is in transforms */
	bool		before_unwrap;	/* named before "unwrap" in transforms */
	char	   *topic_regex;
	char	   *topic_replacement;
	char	   *key_field_name;
	char	   *key_field_regex;	/* "": the old topic is the identifier */
	char	   *key_field_replacement;
	bool		key_enforce_uniqueness;
	int			schema_name_mode;	/* NameAdjustMode of the new schema names */
} CdcRoute;

extern bool route_parse_option(CdcOptions *opts, const char *name, const char *value);
extern void route_parse_transforms(CdcOptions *opts, const char *value);
extern void route_finish(CdcOptions *opts);
extern void route_apply(CdcRelInfo *ri, const CdcOptions *opts);
extern CdcKeyRoute *route_other(const CdcOptions *opts, char **topic);

#endif							/* CDC_PLUGIN_ROUTE_H */
