/*-------------------------------------------------------------------------
 *
 * position.h
 *		Where an exactly_once stream is, and the offsets record that holds it.
 *
 * With cdc_kafka.delivery = exactly_once the worker commits, inside every
 * Kafka transaction, one record to the offsets topic saying how far the
 * records of that transaction reach: the end LSN of a PostgreSQL
 * transaction (a "unit": the records decoded at one commit record, or one
 * standalone message), and, when a unit larger than the transaction bounds
 * was split, the index of its last record included.  A restarted stream
 * decodes again from the slot and leaves out every record such a position
 * covers.  The same record carries the progress of the snapshots whose
 * rows the transaction holds, so they resume exactly where Kafka has them.
 *
 * The value is JSON, written and read only here:
 *	{"transactional_id":"...","lsn":"16/B374D848","index":-1,"seq":42,
 *	 "ts_ms":1700000000000,"snapshot":"<hex>","incremental":"<hex>"}
 * "snapshot" and "incremental" are present only while there is such
 * progress; they are hex so any text survives.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/position.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_POSITION_H
#define CDC_KAFKA_POSITION_H

#include <stddef.h>
#include <stdint.h>

/* index of a position whose unit is complete */
#define POSITION_COMPLETE	(-1)

typedef struct StreamPosition
{
	uint64_t	lsn;			/* end LSN of the unit; 0: nothing yet */
	int32_t		index;			/* its last record included, or POSITION_COMPLETE */
} StreamPosition;

typedef struct PositionRecord
{
	const char *transactional_id;
	StreamPosition pos;
	int64_t		seq;			/* grows by one per commit of the stream */
	int64_t		ts_ms;
	const char *snapshot;		/* initial snapshot progress text, or NULL */
	size_t		snapshot_len;
	const char *incremental;	/* incremental snapshot progress text, or NULL */
	size_t		incremental_len;
} PositionRecord;

/*
 * Was record index of the unit that ends at unit_end committed at or
 * before pos?  Units are decoded in the order of their end LSNs.
 */
extern int	position_covers(const StreamPosition *pos, uint64_t unit_end, int32_t index);

/* Bytes position_format needs for rec (with its terminating NUL). */
extern size_t position_format_size(const PositionRecord *rec);

/* Write rec's JSON into buf (position_format_size bytes); returns its length. */
extern size_t position_format(const PositionRecord *rec, char *buf);

/*
 * Read a value position_format wrote.  The snapshot and incremental texts
 * are decoded into out (at least len bytes) and rec points into it.
 * Returns 0 on success, -1 if the text is not such a value.
 */
extern int	position_parse(const char *json, size_t len, PositionRecord *rec, char *out);

#endif							/* CDC_KAFKA_POSITION_H */
