/*-------------------------------------------------------------------------
 *
 * outbox.h
 *		The "outbox" transform: Debezium's outbox EventRouter.
 *
 * Configured by the plugin options transforms and outbox_* (the
 * cdc_kafka.* settings of the same names in the worker); applied to change
 * records by plugin.c and to the worker's snapshot reads by tablereader.c,
 * never to messages, transaction metadata or heartbeats, which Debezium's
 * transform passes through unchanged.
 *
 * src/plugin/outbox.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_OUTBOX_H
#define CDC_PLUGIN_OUTBOX_H

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "plugin/encoder.h"
#include "plugin/options.h"
#include "plugin/relinfo.h"

typedef struct CdcOutbox CdcOutbox;

extern const struct config_enum_entry outbox_invalid_op_behaviors[];
extern const struct config_enum_entry outbox_missing_behaviors[];
extern const struct config_enum_entry outbox_null_behaviors[];

extern const char *outbox_check_placement(const char *value);
extern bool outbox_parse_option(CdcOptions *opts, const char *name, const char *value);
extern void outbox_parse_transforms(CdcOptions *opts, const char *value);
extern void outbox_finish(CdcOptions *opts);
extern bool outbox_accepts(const CdcOptions *opts, const CdcRelInfo *ri, CdcOp op,
						   bool tombstone);
extern void outbox_write(StringInfo buf, CdcOutputFormat format, const CdcRelInfo *ri,
						 Oid relid, const CdcRow *row, uint64 lsn,
						 const char *key_header, const CdcRow *header_row,
						 const CdcOptions *opts);

#endif							/* CDC_PLUGIN_OUTBOX_H */
