/*-------------------------------------------------------------------------
 *
 * recout.h
 *		Record framing: one Kafka record in the output format asked for.
 *
 * Rows of text for SQL callers, framed binary records for the streaming
 * worker (stream.c reads the frames).
 *
 * src/plugin/recout.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_RECOUT_H
#define CDC_PLUGIN_RECOUT_H

#include "lib/stringinfo.h"
#include "plugin/options.h"

typedef struct CdcRecordOut
{
	StringInfo	buf;
	CdcOutputFormat format;
	int			len_pos;		/* binary: where the open length field is */
	int			nheaders_pos;	/* binary: where the header count is */
	int			nheaders;
	const char *topic;
	const CdcOptions *avro;		/* format avro: the options; NULL: JSON */
	int			json_start;		/* where the key or value being written starts */
	int			frame_start;	/* binary: where the frame starts */
	int			body_start;		/* and where the key's length is */
	bool		has_key;
	char	   *refusal;		/* binary, Avro: the registry refused a schema */
} CdcRecordOut;

extern void recout_begin(CdcRecordOut *ro, StringInfo buf, CdcOutputFormat format,
						 const char *topic, uint64 lsn, Oid relid);
extern void recout_begin_routed(CdcRecordOut *ro, StringInfo buf, CdcOutputFormat format,
								const char *topic, uint64 lsn, Oid relid,
								int32 partition, int64 timestamp);
extern void recout_use_format(CdcRecordOut *ro, const CdcOptions *opts);
extern bool recout_wants_key(const CdcRecordOut *ro);
extern void recout_key_begin(CdcRecordOut *ro);
extern void recout_key_end(CdcRecordOut *ro);
extern void recout_key_null(CdcRecordOut *ro);
extern void recout_value_begin(CdcRecordOut *ro);
extern void recout_value_end(CdcRecordOut *ro);
extern void recout_value_null(CdcRecordOut *ro);
extern void recout_header_begin(CdcRecordOut *ro, const char *name);
extern void recout_header_end(CdcRecordOut *ro);
extern void recout_end(CdcRecordOut *ro);
extern void recout_commit_marker(StringInfo buf, uint64 end_lsn, int64 commit_time);
extern void recout_watermark(StringInfo buf, uint64 lsn, const char *content, Size len);

/* Binary frame kinds (CDC_OUTPUT_BINARY). */
#define CDC_FRAME_RECORD	'R'
#define CDC_FRAME_COMMIT	'C'
#define CDC_FRAME_WATERMARK 'W'
#define CDC_FRAME_REFUSED	'X'

#endif							/* CDC_PLUGIN_RECOUT_H */
