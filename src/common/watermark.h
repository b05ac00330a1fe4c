/*-------------------------------------------------------------------------
 *
 * watermark.h
 *		The LSN watermark: which WAL position may be confirmed to the slot.
 *
 * The streaming worker hands the records of each decoded transaction to
 * Kafka and gets delivery reports back in any order.  The slot may only be
 * confirmed up to the end LSN of the newest transaction that, together with
 * every transaction decoded before it, has had all of its records
 * acknowledged.  This module keeps that bookkeeping in a fixed ring of
 * in-flight transactions whose memory the caller provides; when the ring is
 * full the worker stops reading WAL, which bounds memory.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/watermark.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_WATERMARK_H
#define CDC_KAFKA_WATERMARK_H

#include <stddef.h>
#include <stdint.h>

typedef struct WatermarkTxn
{
	uint64_t	end_lsn;		/* 0 until the transaction is closed */
	int64_t		pending;		/* records sent and not yet acknowledged */
} WatermarkTxn;

typedef struct Watermark
{
	WatermarkTxn *ring;			/* capacity entries, caller's memory */
	uint32_t	capacity;
	uint64_t	head;			/* sequence number of the oldest open entry */
	uint64_t	tail;			/* sequence number the next begin gets */
	uint64_t	confirmed;		/* newest LSN returned by watermark_advance */
} Watermark;

/* Set up over ring[capacity]; confirmed starts at start_lsn. */
extern void watermark_init(Watermark *wm, WatermarkTxn *ring, uint32_t capacity,
						   uint64_t start_lsn);

/* True when no further transaction can begin until older ones complete. */
extern int	watermark_full(const Watermark *wm);

/* True when nothing is in flight (every begun transaction confirmed). */
extern int	watermark_idle(const Watermark *wm);

/* Open a transaction; returns its sequence number.  Must not be full. */
extern uint64_t watermark_begin(Watermark *wm);

/* One more record of transaction seq handed to Kafka. */
extern void watermark_sent(Watermark *wm, uint64_t seq);

/* One record of transaction seq acknowledged (in any order). */
extern void watermark_acked(Watermark *wm, uint64_t seq);

/* Transaction seq has no more records; end_lsn is its commit's end LSN. */
extern void watermark_close(Watermark *wm, uint64_t seq, uint64_t end_lsn);

/*
 * Drop every leading transaction that is closed and fully acknowledged and
 * return the newest confirmable LSN (unchanged if none completed).
 */
extern uint64_t watermark_advance(Watermark *wm);

/*
 * Forget everything in flight (after the producer was rebuilt) and restart at
 * lsn.  Sequence numbers keep counting up, so sent/acked/close calls for a
 * forgotten transaction (late delivery reports) are ignored, as are calls for
 * any seq that is not in flight.
 */
extern void watermark_reset(Watermark *wm, uint64_t lsn);

/* Number of transactions begun and not yet dropped by watermark_advance. */
extern uint32_t watermark_open_count(const Watermark *wm);

/* Records sent and not yet acknowledged, over all open transactions. */
extern int64_t watermark_pending_records(const Watermark *wm);

#endif							/* CDC_KAFKA_WATERMARK_H */
