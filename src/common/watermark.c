/*-------------------------------------------------------------------------
 *
 * watermark.c
 *		The LSN watermark: the newest WAL position whose transactions, and
 *		every transaction decoded before them, have all been delivered to
 *		Kafka, so that the slot can be confirmed up to it.
 *
 * Transactions get consecutive sequence numbers when they begin; entry
 * seq % capacity of the caller's ring holds one until watermark_advance
 * drops it.  Sequence numbers keep growing across watermark_reset, so a
 * delivery report that arrives late for a transaction that was forgotten
 * (its seq is below head) is recognised and ignored instead of being
 * counted against whatever now occupies its ring slot.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/watermark.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "common/watermark.h"

/* The ring entry of seq, or NULL if seq is not in flight. */
static WatermarkTxn *
watermark_entry(Watermark *wm, uint64_t seq)
{
	if (seq < wm->head || seq >= wm->tail)
		return NULL;
	return &wm->ring[seq % wm->capacity];
}

void
watermark_init(Watermark *wm, WatermarkTxn *ring, uint32_t capacity,
			   uint64_t start_lsn)
{
	wm->ring = ring;
	wm->capacity = capacity;
	wm->head = 0;
	wm->tail = 0;
	wm->confirmed = start_lsn;
	memset(ring, 0, sizeof(WatermarkTxn) * capacity);
}

int
watermark_full(const Watermark *wm)
{
	return wm->tail - wm->head >= wm->capacity;
}

int
watermark_idle(const Watermark *wm)
{
	return wm->tail == wm->head;
}

uint64_t
watermark_begin(Watermark *wm)
{
	uint64_t	seq = wm->tail++;
	WatermarkTxn *txn = &wm->ring[seq % wm->capacity];

	txn->end_lsn = 0;
	txn->pending = 0;
	return seq;
}

void
watermark_sent(Watermark *wm, uint64_t seq)
{
	WatermarkTxn *txn = watermark_entry(wm, seq);

	if (txn != NULL)
		txn->pending++;
}

void
watermark_acked(Watermark *wm, uint64_t seq)
{
	WatermarkTxn *txn = watermark_entry(wm, seq);

	if (txn != NULL)
		txn->pending--;
}

void
watermark_close(Watermark *wm, uint64_t seq, uint64_t end_lsn)
{
	WatermarkTxn *txn = watermark_entry(wm, seq);

	if (txn != NULL)
		txn->end_lsn = end_lsn;
}

/*
 * Only a prefix of the ring can be dropped: a transaction whose records are
 * all acknowledged must still wait for every older one, since confirming
 * its LSN would also confirm theirs.
 */
uint64_t
watermark_advance(Watermark *wm)
{
	while (wm->head < wm->tail)
	{
		WatermarkTxn *txn = &wm->ring[wm->head % wm->capacity];

		if (txn->end_lsn == 0 || txn->pending != 0)
			break;
		if (txn->end_lsn > wm->confirmed)
			wm->confirmed = txn->end_lsn;
		wm->head++;
	}
	return wm->confirmed;
}

void
watermark_reset(Watermark *wm, uint64_t lsn)
{
	wm->head = wm->tail;
	wm->confirmed = lsn;
}

uint32_t
watermark_open_count(const Watermark *wm)
{
	return (uint32_t) (wm->tail - wm->head);
}

int64_t
watermark_pending_records(const Watermark *wm)
{
	int64_t		total = 0;
	uint64_t	seq;

	for (seq = wm->head; seq < wm->tail; seq++)
		total += wm->ring[seq % wm->capacity].pending;
	return total;
}
