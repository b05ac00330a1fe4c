/*-------------------------------------------------------------------------
 *
 * unwrap.h
 *		The "unwrap" transform: Debezium's ExtractNewRecordState.
 *
 * Configured by the plugin options transforms and unwrap_* (the
 * cdc_kafka.* settings of the same names in the worker); applied to change
 * records as they are written (and to the worker's snapshot reads, by
 * tablereader.c), never to messages, transaction metadata or heartbeats,
 * which Debezium's transform passes through unchanged.
 *
 * src/plugin/unwrap.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_UNWRAP_H
#define CDC_PLUGIN_UNWRAP_H

#include "nodes/pg_list.h"
#include "utils/guc.h"
#include "plugin/encoder.h"
#include "plugin/options.h"
#include "plugin/recout.h"
#include "plugin/relinfo.h"

/* delete.tombstone.handling.mode */
typedef enum UnwrapDeleteMode
{
	UNWRAP_DELETE_DROP,
	UNWRAP_DELETE_TOMBSTONE,
	UNWRAP_DELETE_REWRITE,
	UNWRAP_DELETE_REWRITE_WITH_TOMBSTONE,
	UNWRAP_DELETE_TO_TOMBSTONE
} UnwrapDeleteMode;

/* What becomes of one change record. */
typedef enum UnwrapOutcome
{
	UNWRAP_SKIP,				/* dropped */
	UNWRAP_FLAT,				/* the row image, flattened */
	UNWRAP_NULL_PAYLOAD,		/* a value with the row schema and a null payload */
	UNWRAP_TOMBSTONE			/* a null value */
} UnwrapOutcome;

typedef struct CdcUnwrap
{
	bool		enabled;		/* "unwrap" is in transforms */
	UnwrapDeleteMode delete_mode;
	char	   *add_fields;
	char	   *add_fields_prefix;
	char	   *add_headers;
	char	   *add_headers_prefix;
	char	   *route_by_field;	/* "": no routing */
	char	   *drop_fields_header_name;
	bool		drop_fields_from_key;
	bool		drop_fields_keep_schema_compatible;
	bool		replace_null_with_default;
	List	   *fields;			/* UnwrapRef of add.fields (unwrap_finish) */
	List	   *headers;		/* UnwrapRef of add.headers */
	char	   *schema_extra;	/* field schemas appended to the row's */
} CdcUnwrap;

extern const struct config_enum_entry unwrap_delete_modes[];

extern const char *unwrap_check_transforms(const char *value);
extern const char *unwrap_check_fields(const char *value);
extern bool unwrap_parse_option(CdcOptions *opts, const char *name, const char *value);
extern void unwrap_parse_transforms(CdcOptions *opts, const char *value);
extern void unwrap_finish(CdcOptions *opts);
extern void unwrap_render_schemas(CdcRelInfo *ri, const CdcOptions *opts);
extern UnwrapOutcome unwrap_outcome(const CdcUnwrap *u, CdcOp op, bool tombstone);
extern const char *unwrap_topic(const CdcUnwrap *u, const CdcRelInfo *ri, const CdcRow *row,
								const CdcOptions *opts);
extern void unwrap_write_value(CdcRecordOut *ro, UnwrapOutcome outcome, const CdcRelInfo *ri,
							   CdcOp op, const CdcRow *row, const char *meta,
							   const CdcOptions *opts);
extern void unwrap_write_headers(CdcRecordOut *ro, const CdcUnwrap *u, const char *meta,
								 bool tombstone, const CdcOptions *opts);

#endif							/* CDC_PLUGIN_UNWRAP_H */
