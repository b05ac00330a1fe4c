/*-------------------------------------------------------------------------
 *
 * incremental.h
 *		Incremental snapshots while the stream runs (see incremental.c).
 *
 * src/worker/incremental.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_INCREMENTAL_H
#define CDC_KAFKA_INCREMENTAL_H

#include "worker/stream.h"

/* The prefix of the logical messages that delimit incremental chunks. */
#define CDC_WATERMARK_PREFIX "cdc_kafka.watermark"

extern void incremental_request_all(const char *publication, const char *kind);
extern void incremental_session_start(CdcStream *s, const CdcStreamConfig *cfg);
extern void incremental_session_end(void);
extern bool incremental_step(CdcStream *s);
extern void incremental_adopt_progress(const char *text);

#endif							/* CDC_KAFKA_INCREMENTAL_H */
