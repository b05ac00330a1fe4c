/*-------------------------------------------------------------------------
 *
 * offsets.h
 *		The offsets topic of exactly_once streams (see offsets.c).
 *
 * src/worker/offsets.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_OFFSETS_H
#define CDC_KAFKA_OFFSETS_H

#include "lib/stringinfo.h"

#include "common/position.h"
#include "worker/producer.h"

extern void offsets_ensure_topic(const CdcProducerConfig *cfg, const char *topic);
extern bool offsets_read(const CdcProducerConfig *cfg, const char *topic, const char *key,
						 PositionRecord *rec);

#endif							/* CDC_KAFKA_OFFSETS_H */
