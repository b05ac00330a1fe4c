/*-------------------------------------------------------------------------
 *
 * stream.c
 *		A streaming session: the worker's slot decoded in-process by the
 *		cdc_kafka plugin, its records handed to Kafka, and the slot confirmed
 *		behind Kafka's acknowledgements.
 *
 * The session keeps one logical decoding context for its whole life (as a
 * walsender does) and reads WAL in passes bounded by the flushed position,
 * sleeping on its latch between passes.  The plugin runs in its binary
 * output format; each frame it writes reaches stream_write(), which hands
 * the record to librdkafka without parsing any JSON.
 *
 * The LSN watermark (watermark.c) tracks every transaction with records in
 * flight.  The slot is confirmed only up to the end LSN of the newest
 * transaction that, with all before it, Kafka fully acknowledged; when
 * nothing at all is in flight, up to the position read, so idle captured
 * tables never pin WAL.  The confirmed position is written to disk at least
 * every cdc_kafka.slot_save_interval.
 *
 * Memory stays flat: records in flight are bounded by
 * cdc_kafka.max_inflight_bytes (decoding waits in stream_write, serving
 * delivery reports, until acknowledgements bring it below), and the
 * watermark ring by its size.
 *
 * A record Kafka refuses for good blocks the session: nothing past it is
 * confirmed, and the worker waits for the operator (cdc_kafka.skip_record()).
 *
 * With cdc_kafka.delivery = exactly_once the producer is transactional
 * (see "exactly_once" below): the slot is then confirmed behind committed
 * Kafka transactions, and a session leaves out what its predecessors
 * committed.
 *
 * Snapshot rows reach Kafka through the session too (stream_produce_frame).
 * The incremental snapshots need to see what is decoded: they hand the
 * session CdcSnapshotHooks (stream_set_snapshot_hooks), through which it
 * tells them of every change and every watermark message; the stream
 * itself knows nothing of snapshots.
 *
 * src/worker/stream.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlogutils.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "replication/decode.h"
#include "replication/logical.h"
#include "replication/slot.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "common/watermark.h"
#include "plugin/compat.h"
#include "plugin/encoder.h"
#include "plugin/options.h"
#include "plugin/plugin.h"
#include "plugin/recout.h"
#include "plugin/route.h"
#include "worker/offsets.h"
#include "worker/producer.h"
#include "worker/settings.h"
#include "worker/status.h"
#include "worker/stream.h"

/* Transactions in flight at most; beyond this, decoding waits. */
#define WATERMARK_CAPACITY	65536

/*
 * What each record in librdkafka's hands carries back to its delivery
 * report.  Tickets live in the session's ticket context: the report frees
 * its ticket, and the tickets of records never reported (the producer
 * destroyed with records queued) go with the context when the session ends.
 */
typedef struct CdcTicket
{
	uint64		seq;			/* watermark transaction */
	XLogRecPtr	lsn;
	int			lsn_index;		/* position among the records at this LSN */
	Oid			relid;
	int32		bytes;
	int64		job;			/* the incremental snapshot of a snapshot row, or 0 */
} CdcTicket;

/* Records and bytes acknowledged per table since the last flush to shmem. */
typedef struct TableCount
{
	Oid			relid;
	int64		records;
	int64		bytes;
} TableCount;

static void stream_prepare_write(LogicalDecodingContext *ctx, XLogRecPtr lsn,
								 TransactionId xid, bool last_write);
static void stream_write(LogicalDecodingContext *ctx, XLogRecPtr lsn,
						 TransactionId xid, bool last_write);
static CdcStream *open_stream;
static bool eos_full(CdcStream *s);

/* ---- frames ------------------------------------------------------------------------ */

static uint32
get_u32(const unsigned char *p)
{
	return ((uint32) p[0] << 24) | ((uint32) p[1] << 16) | ((uint32) p[2] << 8) | p[3];
}

static uint64
get_u64(const unsigned char *p)
{
	return ((uint64) get_u32(p) << 32) | get_u32(p + 4);
}

/* A length-prefixed field: NULL for length -1. */
static const char *
get_bytes(const unsigned char **p, size_t *len)
{
	uint32		n = get_u32(*p);
	const char *data;

	*p += 4;
	if (n == 0xFFFFFFFF)
	{
		*len = 0;
		return NULL;
	}
	data = (const char *) *p;
	*len = n;
	*p += n;
	return data;
}

/*
 * Decode an 'R' frame into rec; strings that librdkafka wants NUL-terminated
 * are copied into scratch (reset by the caller per frame).
 */
static void
parse_record(const unsigned char *p, CdcOutRecord *rec, XLogRecPtr *lsn, Oid *relid,
			 StringInfo scratch)
{
	uint16		topiclen;
	int			nheaders;

	*lsn = get_u64(p + 1);
	*relid = get_u32(p + 9);
	rec->partition = (int32) get_u32(p + 13);	/* -1 is RD_KAFKA_PARTITION_UA */
	rec->timestamp = (int64) get_u64(p + 17);
	if (rec->timestamp < 0)
		rec->timestamp = 0;		/* librdkafka: the producer's clock */
	topiclen = (p[25] << 8) | p[26];
	p += 27;
	resetStringInfo(scratch);
	enlargeStringInfo(scratch, topiclen + 1 + CDC_MAX_HEADERS * 256);
	rec->topic = scratch->data;
	appendBinaryStringInfo(scratch, (const char *) p, topiclen);
	appendStringInfoChar(scratch, '\0');
	p += topiclen;
	rec->key = get_bytes(&p, &rec->keylen);
	rec->value = get_bytes(&p, &rec->valuelen);
	nheaders = *p++;
	rec->nheaders = Min(nheaders, CDC_MAX_HEADERS);
	for (int i = 0; i < nheaders; i++)
	{
		int			namelen = *p++;

		if (i < CDC_MAX_HEADERS)
		{
			rec->header_names[i] = scratch->data + scratch->len;
			appendBinaryStringInfo(scratch, (const char *) p, namelen);
			appendStringInfoChar(scratch, '\0');
		}
		p += namelen;
		if (i < CDC_MAX_HEADERS)
			rec->header_values[i] = get_bytes(&p, &rec->header_lens[i]);
		else
			(void) get_bytes(&p, &rec->keylen);
	}
}

/* ---- flow control and failures ------------------------------------------------------ */

static void
check_producer(CdcStream *s)
{
	const char *reason;

	if (producer_fenced(s->producer))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("Kafka producer fenced: another producer with transactional id \"%s\" took over this stream",
						s->txn_id),
				 errdetail("%s", s->ktxn_reason[0] ? s->ktxn_reason : "The Kafka transaction coordinator fenced this worker's producer."),
				 errhint("Another server streams the same slot (a copy of this one?). Stop one of them; then cdc_kafka.restart() here.")));
	if (producer_failed(s->producer, &reason))
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("Kafka producer failed: %s", reason),
				 errdetail("The worker restarts with a new producer from the last confirmed position.")));
}

/* Waiting this long for room in flight, a session listens to reloads and commands. */
#define STUCK_MS 2000

/* Wait, serving delivery reports, until one more record of len bytes fits. */
static void
wait_for_room(CdcStream *s, size_t len)
{
	TimestampTz since = 0;

	for (;;)
	{
		/* finished transactions leave the ring only when the watermark advances */
		if (watermark_full(&s->wm))
			stream_confirm(s, false);
		if (s->blocked ||
			((s->inflight_bytes + (int64) len <= s->max_inflight_bytes ||
			  s->inflight_records == 0) && !watermark_full(&s->wm)))
			break;
		/*
		 * Kafka may not answer for long (a wrong bootstrap server, an
		 * outage): new settings or a command must still get through.  What
		 * was not sent is sent again by the next session.
		 */
		if (since == 0)
			since = GetCurrentTimestamp();
		else if (s->should_stop != NULL &&
				 TimestampDifferenceExceeds(since, GetCurrentTimestamp(), STUCK_MS) &&
				 s->should_stop())
		{
			s->abandoned = true;
			break;
		}
		producer_wait(s->producer, 100);
		check_producer(s);
		stream_publish_status(s, false);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The hash of a record key: how a refused snapshot row is named (with its
 * job) in the status, for skip_record() to find it again.
 */
uint64
stream_key_hash(const char *key, size_t len)
{
	return hash_bytes_extended((const unsigned char *) key, len, 0);
}

/*
 * A binary key (Avro's wire format starts with a zero byte) as bytea's hex
 * text, \x0000000001..., cut to fit.
 */
static void
hex_key(char *out, size_t outlen, const char *key, size_t keylen)
{
	static const char digits[] = "0123456789abcdef";
	size_t		n = 0;

	out[n++] = '\\';
	out[n++] = 'x';
	for (size_t i = 0; i < keylen && n + 3 <= outlen; i++)
	{
		out[n++] = digits[(unsigned char) key[i] >> 4];
		out[n++] = digits[(unsigned char) key[i] & 0xF];
	}
	out[n] = '\0';
}

/* Remember the first record Kafka refused; the session stops at it. */
static void
block_on(CdcStream *s, const CdcTicket *t, const char *topic, const char *key,
		 size_t keylen, rd_kafka_resp_err_t err)
{
	if (s->blocked)
		return;
	s->blocked = true;
	s->blocked_reason[0] = '\0';
	s->blocked_lsn = t->lsn;
	s->blocked_index = t->lsn_index;
	s->blocked_relid = t->relid;
	s->blocked_err = err;
	s->blocked_job = t->job;
	s->blocked_key_hash = key ? stream_key_hash(key, keylen) : 0;
	strlcpy(s->blocked_topic, topic, sizeof(s->blocked_topic));
	if (key == NULL)
		strlcpy(s->blocked_key, "null", sizeof(s->blocked_key));
	else if (memchr(key, '\0', keylen) != NULL)
		hex_key(s->blocked_key, sizeof(s->blocked_key), key, keylen);
	else
		snprintf(s->blocked_key, sizeof(s->blocked_key), "%.*s",
				 (int) Min(keylen, sizeof(s->blocked_key) - 1), key);
}

/* Was the session blocked by the schema registry (not by Kafka)? */
bool
stream_blocked_by_registry(const CdcStream *s)
{
	return s->blocked && s->blocked_reason[0] != '\0';
}

/* Why the session is blocked: the registry's refusal, or Kafka's error. */
const char *
stream_blocked_reason(const CdcStream *s)
{
	return stream_blocked_by_registry(s) ? s->blocked_reason : rd_kafka_err2str(s->blocked_err);
}

/* Is this the record cdc_kafka.skip_record() asked to leave out? */
static bool
skip_requested(CdcStream *s, XLogRecPtr lsn, int index, const char *topic)
{
	if (s->skip_lsn == InvalidXLogRecPtr || lsn != s->skip_lsn || index != s->skip_index)
		return false;
	ereport(LOG,
			(errmsg("skipping the record on topic \"%s\" at LSN %X/%X as requested with cdc_kafka.skip_record()",
					topic, LSN_FORMAT_ARGS(lsn))));
	/* the worker forgets the request once the slot is confirmed past it */
	return true;
}

/* ---- exactly_once: Kafka transactions ------------------------------------------------- */

/*
 * Records go into a Kafka transaction opened by the first of them.  Whole
 * units (the records of one PostgreSQL transaction, or one standalone
 * message) are grouped until the transaction holds
 * cdc_kafka.transaction_max_records or _bytes, has been open for
 * transaction_max_time, or the session has read all there is; a unit is
 * split only when it alone passes the record or byte bound.  Each
 * transaction ends with the stream's position (position.h) produced to the
 * offsets topic, and commits only once Kafka has acknowledged every one of
 * its records.  The slot is confirmed only up to committed positions, and
 * a session leaves out every record the position it read back at its start
 * covers (eos_skip): each record reaches read_committed consumers once,
 * whatever ends the worker when.
 */

/* The id of this stream's producer: stable over restarts, one per stream. */
static char *
eos_transactional_id(const char *slot_name)
{
	return psprintf("cdc_kafka-" UINT64_FORMAT "-%u-%s", GetSystemIdentifier(),
					MyDatabaseId, slot_name);
}

static void
eos_begin(CdcStream *s)
{
	if (s->ktxn_open)
		return;
	producer_txn_begin(s->producer);
	s->ktxn_open = true;
	s->ktxn_records = 0;
	s->ktxn_bytes = 0;
	s->unit_ktxn_records = 0;
	s->unit_ktxn_bytes = 0;
	s->ktxn_began = GetCurrentTimestamp();
}

/*
 * A record failed in a way that dooms the whole transaction (it timed out,
 * the producer's transactional state broke): abort, start again from the
 * last commit.  Other failures are a record Kafka refuses (block_on).
 */
static bool
eos_dooms_transaction(CdcStream *s, rd_kafka_resp_err_t err)
{
	if (!s->eos)
		return false;
	switch (err)
	{
		case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
		case RD_KAFKA_RESP_ERR__TIMED_OUT:
		case RD_KAFKA_RESP_ERR__STATE:
		case RD_KAFKA_RESP_ERR__FENCED:
		case RD_KAFKA_RESP_ERR__INCONSISTENT:
		case RD_KAFKA_RESP_ERR_INVALID_TXN_STATE:
		case RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH:
		case RD_KAFKA_RESP_ERR_PRODUCER_FENCED:
		case RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER:
		case RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID:
			break;
		default:
			return false;
	}
	if (!s->ktxn_failed)
	{
		s->ktxn_failed = true;
		snprintf(s->ktxn_reason, sizeof(s->ktxn_reason), "%s: %s",
				 rd_kafka_err2name(err), rd_kafka_err2str(err));
	}
	return true;
}

/* Produce the open transaction's last record: the position it reaches. */
static void
eos_send_position(CdcStream *s)
{
	PositionRecord rec = {0};
	CdcOutRecord out = {0};
	char	   *incremental = NULL;
	char	   *buf;
	rd_kafka_resp_err_t err;

	if (s->hooks.progress != NULL)
		incremental = s->hooks.progress(s->hooks.arg, s->done_complete);
	rec.transactional_id = s->txn_id;
	rec.pos = s->done;
	rec.seq = s->seq + 1;
	rec.ts_ms = (GetCurrentTimestamp() / 1000) + (int64) 946684800000;
	rec.snapshot = s->snapshot_progress;
	rec.snapshot_len = s->snapshot_progress ? strlen(s->snapshot_progress) : 0;
	rec.incremental = incremental;
	rec.incremental_len = incremental ? strlen(incremental) : 0;
	buf = palloc(position_format_size(&rec));
	out.topic = s->offsets_topic;
	out.partition = RD_KAFKA_PARTITION_UA;
	out.key = s->txn_id;
	out.keylen = strlen(s->txn_id);
	out.value = buf;
	out.valuelen = position_format(&rec, buf);
	err = producer_send(s->producer, &out, NULL);
	pfree(buf);
	if (err != RD_KAFKA_RESP_ERR_NO_ERROR && !eos_dooms_transaction(s, err))
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("cdc_kafka could not write its position to offsets topic \"%s\": %s",
						s->offsets_topic, rd_kafka_err2str(err))));
}

/* Abort the open transaction; what it held is sent again by the next session. */
static void
eos_abort(CdcStream *s)
{
	const char *reason;

	if (!s->ktxn_open)
		return;
	s->ktxn_open = false;
	s->done = s->committed;
	s->done_complete = s->committed_complete;
	if (!producer_failed(s->producer, &reason))
		producer_txn_abort(s->producer);
}

/* A transaction could not commit: abort it and start again from the last commit. */
static void
eos_restart(CdcStream *s, const char *reason)
{
	char	   *why = pstrdup(reason);

	eos_abort(s);
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("Kafka transaction aborted: %s", why),
			 errdetail("The worker starts again from the position of its last committed transaction (%X/%X); consumers reading with isolation.level=read_committed never see the aborted records.",
					   LSN_FORMAT_ARGS(s->committed.lsn))));
}

/* Publish what was committed, for cdc_kafka.status. */
static void
eos_publish(CdcStream *s)
{
	CdcWorkerStatus *ws = s->ws;

	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	ws->exactly_once = s->eos;
	strlcpy(ws->transactional_id, s->txn_id ? s->txn_id : "", sizeof(ws->transactional_id));
	ws->kafka_transactions = s->ktxns_committed;
	ws->kafka_committed_at = s->ktxn_committed_at;
	ws->kafka_committed_lsn = s->committed.lsn;
	ws->kafka_committed_index = s->committed.index;
	LWLockRelease(ws->lock);
}

/*
 * Commit the open Kafka transaction (if any) with the stream's position;
 * snapshot_progress, if not NULL, is the initial snapshot's progress to
 * commit with it (and with every later one, until replaced; "" for none).
 */
void
stream_commit(CdcStream *s, const char *snapshot_progress)
{
	char		reason[512];

	if (!s->eos)
		return;
	if (snapshot_progress != NULL)
	{
		if (s->snapshot_progress != NULL)
			pfree(s->snapshot_progress);
		s->snapshot_progress = NULL;
		/* "": the snapshot is over, its progress is no longer committed */
		if (snapshot_progress[0] != '\0')
		{
			s->snapshot_progress = MemoryContextStrdup(s->cxt, snapshot_progress);
			eos_begin(s);
		}
	}
	if (!s->ktxn_open || s->blocked || s->abandoned)
		return;
	eos_send_position(s);
	while (producer_outq_len(s->producer) > 0 && !s->blocked && !s->ktxn_failed)
	{
		producer_wait(s->producer, 100);
		check_producer(s);
		CHECK_FOR_INTERRUPTS();
	}
	/* a record Kafka refused: the worker's blocked state says which (and it dooms the rest) */
	if (s->blocked)
		return;					/* aborted when the session closes */
	if (s->ktxn_failed)
		eos_restart(s, s->ktxn_reason);
	if (!producer_txn_commit(s->producer, reason, sizeof(reason)))
		eos_restart(s, reason);
	s->ktxn_open = false;
	s->committed = s->done;
	s->committed_complete = s->done_complete;
	s->seq++;
	s->ktxns_committed++;
	s->ktxn_committed_at = GetCurrentTimestamp();
	eos_publish(s);
}

/* Is the open Kafka transaction as large or as old as it may be? */
bool
stream_txn_full(CdcStream *s)
{
	return s->eos && s->ktxn_open && eos_full(s);
}

static bool
eos_full(CdcStream *s)
{
	return s->ktxn_records >= settings_txn_max_records ||
		s->ktxn_bytes >= (int64) settings_txn_max_kb * 1024 ||
		TimestampDifferenceExceeds(s->ktxn_began, GetCurrentTimestamp(), settings_txn_max_ms);
}

/* Between decoding passes: commit if the session read all there is, or it is due. */
void
stream_commit_due(CdcStream *s, bool caught_up)
{
	if (s->eos && s->ktxn_open && !s->in_txn && (caught_up || eos_full(s)))
		stream_commit(s, NULL);
}

/*
 * A record of the unit being decoded: count it, and say whether an earlier
 * session committed it already (then it is left out).  Before the record
 * that would take the unit past the bounds, the transaction commits with
 * the records of the unit so far.
 */
static bool
eos_skip(CdcStream *s)
{
	XLogRecPtr	end = s->ctx->reader->EndRecPtr;
	int32		index;

	if (end != s->unit_end)
	{
		s->unit_end = end;
		s->unit_records = 0;
		s->unit_ktxn_records = 0;
		s->unit_ktxn_bytes = 0;
	}
	index = s->unit_records++;
	if (position_covers(&s->resume, end, index))
	{
		s->resume_skipped++;
		return true;
	}
	if (s->ktxn_open &&
		(s->unit_ktxn_records >= settings_txn_max_records ||
		 s->unit_ktxn_bytes >= (int64) settings_txn_max_kb * 1024))
	{
		s->done.lsn = end;
		s->done.index = index - 1;
		stream_commit(s, NULL);
	}
	return false;
}

/* The unit decoded last is complete in the open transaction. */
static void
eos_unit_done(CdcStream *s)
{
	s->done.lsn = s->unit_end;
	s->done.index = POSITION_COMPLETE;
	s->done_complete = s->unit_end;
	s->unit_ktxn_records = 0;
	s->unit_ktxn_bytes = 0;
	if (s->ktxn_open && eos_full(s))
		stream_commit(s, NULL);
}

/*
 * Open: the producer registers its transactional id (fencing any older
 * producer with it), the offsets topic is made if missing, and the last
 * committed position is read back.
 */
static void
eos_open(CdcStream *s, const CdcProducerConfig *pcfg)
{
	PositionRecord rec;

	/* a coordinator that cannot answer holds the worker here: say so */
	status_set_state(s->ws, status_get_state(s->ws),
					 psprintf("registering transactional id \"%s\" with the Kafka transaction coordinator",
							  s->txn_id));
	producer_txn_init(s->producer);
	offsets_ensure_topic(pcfg, s->offsets_topic);
	if (!offsets_read(pcfg, s->offsets_topic, s->txn_id, &rec))
	{
		ereport(LOG, (errmsg("cdc_kafka exactly_once stream \"%s\" has no position in \"%s\" yet",
							 s->txn_id, s->offsets_topic)));
		s->committed_complete = s->confirmed;
		s->done_complete = s->confirmed;
		return;
	}
	if (rec.pos.lsn > GetFlushRecPtr(NULL))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("offsets topic \"%s\" says stream \"%s\" reached LSN %X/%X, beyond this server's WAL (%X/%X)",
						s->offsets_topic, s->txn_id, LSN_FORMAT_ARGS(rec.pos.lsn),
						LSN_FORMAT_ARGS(GetFlushRecPtr(NULL))),
				 errdetail("This server is a copy or an earlier state of the one that wrote that position; its changes would be taken for ones Kafka already has."),
				 errhint("Give this server its own stream (another cdc_kafka.slot_name); or, if that position is known to be wrong, write a tombstone (a null value) for key \"%s\" to the offsets topic.",
						 s->txn_id)));
	s->resume = rec.pos;
	s->committed = rec.pos;
	s->seq = rec.seq;
	s->resumed_snapshot = rec.snapshot ? pnstrdup(rec.snapshot, rec.snapshot_len) : NULL;
	s->resumed_incremental = rec.incremental ? pnstrdup(rec.incremental, rec.incremental_len) : NULL;
	s->committed_complete = s->confirmed;
	if (rec.pos.index == POSITION_COMPLETE && rec.pos.lsn > s->confirmed)
	{
		/* the slot had not been saved that far: it need not read that again */
		LogicalConfirmReceivedLocation(rec.pos.lsn);
		s->confirmed = rec.pos.lsn;
		s->committed_complete = rec.pos.lsn;
	}
	s->done = s->committed;
	s->done_complete = s->committed_complete;
	ereport(LOG,
			(errmsg("cdc_kafka exactly_once stream \"%s\" resumes after %X/%X%s",
					s->txn_id, LSN_FORMAT_ARGS(rec.pos.lsn),
					rec.pos.index == POSITION_COMPLETE ? "" :
					psprintf(" (record %d of the transaction ending there)", rec.pos.index))));
}

/* ---- the plugin's output -------------------------------------------------------------- */

static void
stream_prepare_write(LogicalDecodingContext *ctx, XLogRecPtr lsn, TransactionId xid,
					 bool last_write)
{
	resetStringInfo(ctx->out);
}

static void
handle_commit(CdcStream *s, const unsigned char *p)
{
	if (!s->in_txn)
		return;
	s->commit_times[s->txn_seq % WATERMARK_CAPACITY] = (TimestampTz) get_u64(p + 9);
	watermark_close(&s->wm, s->txn_seq, get_u64(p + 1));
	s->in_txn = false;
	if (s->eos)
		eos_unit_done(s);
}

/* Ticket seq of records that confirm nothing (snapshot reads, heartbeats). */
#define UNTRACKED_SEQ	PG_UINT64_MAX

/*
 * Hand one decoded record to Kafka.  A tracked record belongs to the open
 * watermark transaction (opened here if none is); an untracked one only
 * counts as in flight.
 */
static void
produce_record(CdcStream *s, const CdcOutRecord *rec, XLogRecPtr lsn, Oid relid,
			   size_t len, bool tracked)
{
	CdcTicket  *t;
	rd_kafka_resp_err_t err;

	wait_for_room(s, len);
	if (s->blocked || s->abandoned)
		return;
	if (s->eos)
		eos_begin(s);
	if (tracked && !s->in_txn)
	{
		s->txn_seq = watermark_begin(&s->wm);
		s->in_txn = true;
	}
	if (tracked)
		watermark_sent(&s->wm, s->txn_seq);
	t = MemoryContextAlloc(s->tickets, sizeof(CdcTicket));
	t->seq = tracked ? s->txn_seq : UNTRACKED_SEQ;
	t->lsn = lsn;
	t->lsn_index = s->lsn_index;
	t->relid = relid;
	t->bytes = (int32) len;
	t->job = s->frame_job;
	err = producer_send(s->producer, rec, t);
	if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
	{
		if (!eos_dooms_transaction(s, err))
			block_on(s, t, rec->topic, rec->key, rec->keylen, err);
		pfree(t);
		return;
	}
	s->inflight_bytes += len;
	s->inflight_records++;
	if (s->eos)
	{
		s->ktxn_records++;
		s->ktxn_bytes += len;
		s->unit_ktxn_records++;
		s->unit_ktxn_bytes += len;
	}
}

/*
 * A record whose Avro schema the registry refused ('X' frame): the session
 * blocks on it as on a record Kafka refuses (skip_record() can leave it out).
 */
static void
handle_refused(CdcStream *s, const unsigned char *p)
{
	CdcOutRecord rec;
	CdcTicket	t;

	parse_record(p, &rec, &t.lsn, &t.relid, &s->scratch);
	if (skip_requested(s, t.lsn, s->lsn_index, rec.topic))
		return;
	t.lsn_index = s->lsn_index;
	t.job = s->frame_job;
	block_on(s, &t, rec.topic, rec.key, rec.keylen, RD_KAFKA_RESP_ERR_NO_ERROR);
	snprintf(s->blocked_reason, sizeof(s->blocked_reason), "%.*s",
			 (int) Min(rec.valuelen, sizeof(s->blocked_reason) - 1), rec.value);
}

/* The key of a record frame (NULL for none), pointing into the frame. */
const char *
stream_frame_key(const StringInfo frame, size_t *len)
{
	const unsigned char *p = (const unsigned char *) frame->data;
	uint16		topiclen = (p[25] << 8) | p[26];

	p += 27 + topiclen;
	return get_bytes(&p, len);
}

static void
handle_record(CdcStream *s, const unsigned char *p, size_t len)
{
	CdcOutRecord rec;
	XLogRecPtr	lsn;
	Oid			relid;

	lsn = get_u64(p + 1);
	s->lsn_index = (lsn == s->last_lsn) ? s->lsn_index + 1 : 0;
	s->last_lsn = lsn;
	if (s->eos && eos_skip(s))
		return;
	if (p[0] == CDC_FRAME_REFUSED)
	{
		handle_refused(s, p);
		return;
	}
	parse_record(p, &rec, &lsn, &relid, &s->scratch);
	if (skip_requested(s, lsn, s->lsn_index, rec.topic))
		return;
	/* a change inside an incremental snapshot's window supersedes its read */
	if (s->hooks.saw_change != NULL)
		s->hooks.saw_change(s->hooks.arg, relid, rec.key, rec.keylen);
	produce_record(s, &rec, lsn, relid, len, true);
}

/*
 * Produce a record framed like the plugin's (snapshot reads).  tracked:
 * part of the open watermark transaction (see stream_end_unit); otherwise
 * it confirms nothing and only counts as in flight.
 */
void
stream_produce_frame(CdcStream *s, const StringInfo frame, bool tracked)
{
	CdcOutRecord rec;
	XLogRecPtr	lsn;
	Oid			relid;

	s->lsn_index = 0;
	if (frame->data[0] == CDC_FRAME_REFUSED)
	{
		handle_refused(s, (const unsigned char *) frame->data);
		return;
	}
	parse_record((const unsigned char *) frame->data, &rec, &lsn, &relid, &s->scratch);
	produce_record(s, &rec, lsn, relid, frame->len, tracked);
}

/* Close the open watermark transaction (if any) at end_lsn. */
void
stream_end_unit(CdcStream *s, XLogRecPtr end_lsn, TimestampTz commit_time)
{
	if (!s->in_txn)
		return;
	s->commit_times[s->txn_seq % WATERMARK_CAPACITY] = commit_time;
	watermark_close(&s->wm, s->txn_seq, end_lsn);
	s->in_txn = false;
	if (s->eos)
	{
		s->unit_end = end_lsn;
		eos_unit_done(s);
	}
}

/* Wait until Kafka acknowledged everything in flight (or a record is refused). */
void
stream_drain(CdcStream *s)
{
	while (s->inflight_records > 0 && !s->blocked)
	{
		producer_wait(s->producer, 100);
		check_producer(s);
		stream_publish_status(s, false);
		CHECK_FOR_INTERRUPTS();
	}
}

/* The plugin wrote one frame: a record to produce or the end of a transaction. */
static void
stream_write(LogicalDecodingContext *ctx, XLogRecPtr lsn, TransactionId xid, bool last_write)
{
	CdcStream  *s = ctx->output_writer_private;
	const unsigned char *p = (const unsigned char *) ctx->out->data;

	if (s->blocked || s->abandoned)
		return;					/* the session restarts from before the refused record */
	if (p[0] == CDC_FRAME_COMMIT)
		handle_commit(s, p);
	else if (p[0] == CDC_FRAME_WATERMARK)
	{
		if (s->hooks.watermark != NULL)
			s->hooks.watermark(s->hooks.arg, s, get_u64(p + 1), (const char *) p + 13,
							   get_u32(p + 9));
	}
	else
		handle_record(s, p, ctx->out->len);
}

/* ---- delivery reports ------------------------------------------------------------------- */

static void
count_table(CdcStream *s, Oid relid, int32 bytes)
{
	bool		found;
	TableCount *tc;

	if (!OidIsValid(relid))
		return;
	tc = hash_search(s->table_counts, &relid, HASH_ENTER, &found);
	if (!found)
	{
		tc->records = 0;
		tc->bytes = 0;
	}
	tc->records++;
	tc->bytes += bytes;
}

static void
on_delivery(void *arg, void *opaque, rd_kafka_resp_err_t err, const rd_kafka_message_t *msg)
{
	CdcStream  *s = arg;
	CdcTicket  *t = opaque;

	if (t == NULL)
	{
		/* a heartbeat, or exactly_once's position: its failure dooms the transaction */
		if (s->eos && err != RD_KAFKA_RESP_ERR_NO_ERROR && !s->ktxn_failed &&
			err != RD_KAFKA_RESP_ERR__PURGE_QUEUE && err != RD_KAFKA_RESP_ERR__PURGE_INFLIGHT)
		{
			s->ktxn_failed = true;
			snprintf(s->ktxn_reason, sizeof(s->ktxn_reason), "topic \"%s\" refused a record: %s: %s",
					 rd_kafka_topic_name(msg->rkt), rd_kafka_err2name(err), rd_kafka_err2str(err));
		}
		return;
	}
	s->inflight_bytes -= t->bytes;
	s->inflight_records--;
	if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
	{
		if (t->seq != UNTRACKED_SEQ)
			watermark_acked(&s->wm, t->seq);
		s->records_sent++;
		s->bytes_sent += t->bytes;
		s->last_ack_time = GetCurrentTimestamp();
		count_table(s, t->relid, t->bytes);
	}
	else if (err != RD_KAFKA_RESP_ERR__PURGE_QUEUE && err != RD_KAFKA_RESP_ERR__PURGE_INFLIGHT &&
			 err != RD_KAFKA_RESP_ERR__FATAL && !eos_dooms_transaction(s, err))
		block_on(s, t, rd_kafka_topic_name(msg->rkt), msg->key, msg->key_len, err);
	pfree(t);
}

/* ---- opening and closing ---------------------------------------------------------------- */

/*
 * The open session of this process.  If the process exits without closing
 * it (an ERROR, SIGTERM), the producer is still destroyed first: librdkafka's
 * threads must not outlive the memory they use.
 */
static CdcStream *open_stream = NULL;
static bool exit_hook_registered = false;

/* Was the session's producer fenced by another with its transactional id? */
bool
stream_fenced(void)
{
	return open_stream != NULL && open_stream->producer != NULL &&
		producer_fenced(open_stream->producer);
}


static void
stream_exit_hook(int code, Datum arg)
{
	if (open_stream != NULL && open_stream->producer != NULL)
	{
		producer_destroy(open_stream->producer);
		open_stream->producer = NULL;
	}
	open_stream = NULL;
}

static List *
decoding_options(const CdcStreamConfig *cfg)
{
	List	   *opts = NIL;

	for (int i = 0; i < cfg->noptions; i++)
		opts = lappend(opts, makeDefElem(pstrdup(cfg->option_names[i]),
										 (Node *) makeString(pstrdup(cfg->option_values[i])), -1));
	return opts;
}

/* Acquire the slot; false (and the slot released) if it was invalidated. */
static bool
acquire_slot(const char *slot_name)
{
	compat_slot_acquire(slot_name, true);
	if (XLogRecPtrIsInvalid(MyReplicationSlot->data.restart_lsn) ||
		compat_slot_invalidated(MyReplicationSlot->data))
	{
		ReplicationSlotRelease();
		return false;
	}
	if (strcmp(NameStr(MyReplicationSlot->data.plugin), CDC_PLUGIN_NAME) != 0)
	{
		char	   *plugin = pstrdup(NameStr(MyReplicationSlot->data.plugin));

		ReplicationSlotRelease();
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("replication slot \"%s\" uses output plugin \"%s\", not \"%s\"",
						slot_name, plugin, CDC_PLUGIN_NAME),
				 errhint("Set cdc_kafka.slot_name to another slot, or drop this one.")));
	}
	return true;
}

/* The plugin options of a session's configuration, parsed (for the snapshots). */
void
stream_plugin_options(CdcOptions *opts, const CdcStreamConfig *cfg)
{
	options_set_defaults(opts);
	options_parse(opts, decoding_options(cfg));
}

/*
 * Open a session on the slot: acquire it, start decoding at its restart
 * point, create the producer.  Returns NULL if the slot was invalidated.
 */
CdcStream *
stream_open(CdcWorkerStatus *ws, const CdcStreamConfig *cfg)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "cdc_kafka stream",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext oldcxt = MemoryContextSwitchTo(cxt);
	CdcStream  *s = palloc0(sizeof(CdcStream));
	CdcProducerConfig pcfg = {
		.dbname = cfg->dbname,
		.bootstrap_servers = settings_bootstrap_servers,
		.properties = settings_kafka_properties,
		.secrets_file = settings_kafka_secrets_file,
		.one_per_batch = cfg->careful_until != 0 || cfg->careful_job != 0,
		.transactional_id = settings_delivery == CDC_DELIVERY_EXACTLY_ONCE ?
		eos_transactional_id(cfg->slot_name) : NULL,
	};
	HASHCTL		ctl;

	s->cxt = cxt;
	s->ws = ws;
	s->dboid = MyDatabaseId;
	s->max_inflight_bytes = (int64) settings_max_inflight_kb * 1024;
	s->skip_lsn = cfg->skip_lsn;
	s->skip_index = cfg->skip_index;
	s->careful_until = cfg->careful_until;
	s->careful_job = cfg->careful_job;
	s->eos = pcfg.transactional_id != NULL;
	s->txn_id = (char *) pcfg.transactional_id;
	s->offsets_topic = pstrdup(settings_offsets_topic);
	LWLockAcquire(ws->lock, LW_SHARED);
	s->base_records = ws->records_sent;
	s->base_bytes = ws->bytes_sent;
	s->base_retries = ws->retries;
	s->ktxns_committed = ws->kafka_transactions;
	LWLockRelease(ws->lock);
	initStringInfo(&s->scratch);
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(TableCount);
	ctl.hcxt = cxt;
	s->table_counts = hash_create("cdc_kafka table counts", 64, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	s->commit_times = palloc0(sizeof(TimestampTz) * WATERMARK_CAPACITY);
	s->tickets = SlabContextCreate(cxt, "cdc_kafka tickets", SLAB_DEFAULT_BLOCK_SIZE,
								   sizeof(CdcTicket));

	if (!acquire_slot(cfg->slot_name))
	{
		MemoryContextSwitchTo(oldcxt);
		MemoryContextDelete(cxt);
		return NULL;
	}
	s->confirmed = s->saved = MyReplicationSlot->data.confirmed_flush;
	watermark_init(&s->wm, palloc0(sizeof(WatermarkTxn) * WATERMARK_CAPACITY),
				   WATERMARK_CAPACITY, s->confirmed);
	s->producer = producer_create(&pcfg, on_delivery, s);
	producer_connect(s->producer, 5000);
	open_stream = s;
	if (s->eos)
		eos_open(s, &pcfg);
	eos_publish(s);
	if (!exit_hook_registered)
	{
		before_shmem_exit(stream_exit_hook, 0);
		exit_hook_registered = true;
	}
	s->last_save = GetCurrentTimestamp();
	MemoryContextSwitchTo(oldcxt);
	if (!cfg->defer_decoding)
		stream_start_decoding(s, cfg);
	return s;
}

/*
 * Tell the snapshot side about changes and watermarks from now on (NULL:
 * no longer).
 */
void
stream_set_snapshot_hooks(CdcStream *s, const CdcSnapshotHooks *hooks)
{
	if (hooks != NULL)
		s->hooks = *hooks;
	else
		memset(&s->hooks, 0, sizeof(s->hooks));
}

/*
 * Start decoding the slot at its restart point (stream_open does it unless
 * told to wait, as an initial snapshot does: its records go first).  Must
 * run outside a transaction, so decoding does not hold back vacuum.
 */
void
stream_start_decoding(CdcStream *s, const CdcStreamConfig *cfg)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(s->cxt);

	s->ctx = CreateDecodingContext(InvalidXLogRecPtr, decoding_options(cfg), false,
								   XL_ROUTINE(.page_read = read_local_xlog_page,
											  .segment_open = wal_segment_open,
											  .segment_close = wal_segment_close),
								   stream_prepare_write, stream_write, NULL);
	s->ctx->output_writer_private = s;
	XLogBeginRead(s->ctx->reader, MyReplicationSlot->data.restart_lsn);
	InvalidateSystemCaches();
	MemoryContextSwitchTo(oldcxt);
}

/* Publish the acknowledged per-table counts to shared memory. */
static void
flush_table_counts(CdcStream *s)
{
	HASH_SEQ_STATUS status;
	TableCount *tc;
	TimestampTz now = GetCurrentTimestamp();

	hash_seq_init(&status, s->table_counts);
	while ((tc = hash_seq_search(&status)) != NULL)
	{
		status_table_stats_add(s->dboid, tc->relid, tc->records, tc->bytes, now);
		hash_search(s->table_counts, &tc->relid, HASH_REMOVE, NULL);
	}
}

/*
 * The producer is gone: the records it never reported will not be, and
 * were not confirmed (sent again by the next session).  Free their tickets.
 */
static void
forget_unreported(CdcStream *s)
{
	if (s->inflight_records > 0)
		elog(DEBUG1, "" INT64_FORMAT " records were not acknowledged when the session ended",
			 s->inflight_records);
	MemoryContextReset(s->tickets);
	s->inflight_records = 0;
	s->inflight_bytes = 0;
}

/*
 * End the session: give what is in flight flush_ms to be acknowledged,
 * confirm and save the slot as far as that allows, release it.
 */
void
stream_close(CdcStream *s, int flush_ms)
{
	if (s == NULL)
		return;
	if (flush_ms > 0 && !s->blocked)
	{
		TimestampTz end = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), flush_ms);

		while (s->inflight_records > 0 && GetCurrentTimestamp() < end)
		{
			producer_wait(s->producer, 100);
			CHECK_FOR_INTERRUPTS();
		}
		stream_commit(s, NULL);
		stream_confirm(s, true);
	}
	if (s->eos && s->ktxn_open)
		eos_abort(s);
	producer_destroy(s->producer);
	s->producer = NULL;
	open_stream = NULL;
	forget_unreported(s);
	if (s->ctx != NULL)
	{
		s->last_read = s->ctx->reader->EndRecPtr;
		FreeDecodingContext(s->ctx);
		s->ctx = NULL;
	}
	if (MyReplicationSlot != NULL)
	{
		if (s->confirmed != s->saved)
		{
			ReplicationSlotMarkDirty();
			ReplicationSlotSave();
		}
		ReplicationSlotRelease();
	}
	flush_table_counts(s);
	stream_publish_status(s, true);
	MemoryContextDelete(s->cxt);
}

/* ---- the session's work ---------------------------------------------------------------- */

/*
 * How far the session may read: the flushed WAL, or for a failover slot
 * while the standbys of synchronized_standby_slots lag, a position they have
 * (else a standby promoted after a crash could lack transactions Kafka has).
 * The target stays put until reached, so a standby that keeps up with a
 * busy server still lets the session advance.
 */
#define STANDBY_WAIT_WARN_MS	10000

static XLogRecPtr
readable_end(CdcStream *s)
{
	XLogRecPtr	flushed = compat_flush_rec_ptr();
	XLogRecPtr	read = s->ctx->reader->EndRecPtr;

	if (compat_standbys_have(flushed, DEBUG1))
	{
		s->standby_target = InvalidXLogRecPtr;
		s->standby_wait_since = 0;
		return flushed;
	}
	if (s->standby_target <= read)
		s->standby_target = flushed;
	if (compat_standbys_have(s->standby_target, DEBUG1))
	{
		s->standby_wait_since = 0;
		return s->standby_target;
	}
	/* held back for long: say once why (a standby down, a slot missing) */
	if (s->standby_wait_since == 0)
		s->standby_wait_since = GetCurrentTimestamp();
	else if (s->standby_wait_since > 0 &&
			 TimestampDifferenceExceeds(s->standby_wait_since, GetCurrentTimestamp(),
										STANDBY_WAIT_WARN_MS))
	{
		(void) compat_standbys_have(s->standby_target, WARNING);
		ereport(WARNING,
				(errmsg("cdc_kafka waits for the standbys of synchronized_standby_slots to receive WAL up to %X/%X",
						LSN_FORMAT_ARGS(s->standby_target)),
				 errdetail("Replication slot \"%s\" is a failover slot: its changes reach Kafka only after those standbys have them.",
						   NameStr(MyReplicationSlot->data.name)),
				 errhint("Bring the standbys back, or remove their slots from synchronized_standby_slots.")));
		s->standby_wait_since = -1;	/* logged until it moves again */
	}
	return read;
}

/*
 * Decode WAL up to the flushed position (see readable_end), for at most
 * about max_ms, serving Kafka as it goes.  Returns true when everything
 * readable has been read.
 */
bool
stream_read(CdcStream *s, int max_ms)
{
	XLogRecPtr	end = readable_end(s);
	TimestampTz stop = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), max_ms);
	int			n = 0;
	bool		caught_up = false;

	/*
	 * The WAL reader keeps buffers it allocates while reading: they must
	 * live in the session's context, not in a caller's short-lived one.
	 */
	MemoryContext oldcxt = MemoryContextSwitchTo(s->cxt);

	s->flushed_seen = compat_flush_rec_ptr();
	if (s->ctx->reader->EndRecPtr < end)
		s->last_wal_at = GetCurrentTimestamp();

	while (!s->blocked && !s->abandoned && s->ctx->reader->EndRecPtr < end)
	{
		char	   *errm = NULL;
		XLogRecord *record = XLogReadRecord(s->ctx->reader, &errm);

		if (errm)
			elog(ERROR, "cdc_kafka could not read WAL at %X/%X: %s",
				 LSN_FORMAT_ARGS(s->ctx->reader->EndRecPtr), errm);
		if (record != NULL)
		{
			s->decoding = true;
			LogicalDecodingProcessRecord(s->ctx, s->ctx->reader);
			s->decoding = false;
		}
		CHECK_FOR_INTERRUPTS();
		if (++n % 512 == 0)
		{
			producer_poll(s->producer);
			check_producer(s);
			if (GetCurrentTimestamp() >= stop)
				break;
		}
	}
	caught_up = s->ctx->reader->EndRecPtr >= end;
	MemoryContextSwitchTo(oldcxt);
	return caught_up;
}

/*
 * Handle delivery reports; with timeout_ms > 0, first sleep until Kafka has
 * something to report, the latch is set or timeout_ms pass (the process
 * exits if the postmaster dies).
 */
void
stream_poll(CdcStream *s, int timeout_ms)
{
	if (timeout_ms > 0)
		producer_wait(s->producer, timeout_ms);
	else
		producer_poll(s->producer);
	check_producer(s);
}

/* WAL came this recently: the stream is busy, look for more every millisecond */
#define WAL_ACTIVE_MS 1000

/*
 * Caught up: sleep until more WAL is flushed, Kafka has something to
 * report, the latch is set or timeout_ms pass.  PostgreSQL wakes only
 * walsenders when WAL is flushed, so the flush position is looked at:
 * every millisecond while WAL keeps coming (a commit waits at most that
 * long to be read, not cdc_kafka.poll_interval), else once per timeout_ms
 * (an idle server is not woken a thousand times a second).
 */
void
stream_wait_for_wal(CdcStream *s, int timeout_ms)
{
	TimestampTz now = GetCurrentTimestamp();
	TimestampTz until = TimestampTzPlusMilliseconds(now, timeout_ms);

	if (timeout_ms <= 1 || TimestampDifferenceExceeds(s->last_wal_at, now, WAL_ACTIVE_MS))
	{
		stream_poll(s, timeout_ms);
		return;
	}
	while (now < until && compat_flush_rec_ptr() <= s->flushed_seen)
	{
		producer_wait(s->producer, 1);
		check_producer(s);
		CHECK_FOR_INTERRUPTS();
		now = GetCurrentTimestamp();
	}
}

/*
 * Confirm the slot up to what Kafka acknowledged, or to the read position
 * when nothing is in flight; save it to disk if due (or if force).
 */
void
stream_confirm(CdcStream *s, bool force)
{
	XLogRecPtr	lsn = watermark_advance(&s->wm);
	TimestampTz now = GetCurrentTimestamp();

	/* exactly_once: only what committed Kafka transactions hold */
	if (s->eos)
		lsn = Min(lsn, s->committed_complete);

	/*
	 * Nothing in flight: everything read is done with.  Never while a record
	 * is being decoded: the read position is then the end of a commit whose
	 * records are still being written.
	 */
	if (!s->blocked && !s->abandoned && !s->in_txn && !s->decoding && watermark_idle(&s->wm) &&
		!s->ktxn_open && s->ctx != NULL && s->ctx->reader->EndRecPtr > lsn)
		lsn = s->ctx->reader->EndRecPtr;
	if (lsn > s->confirmed)
	{
		LogicalConfirmReceivedLocation(lsn);
		s->confirmed = lsn;
	}
	if (s->confirmed != s->saved &&
		(force || TimestampDifferenceExceeds(s->last_save, now, settings_slot_save_interval_ms)))
	{
		ReplicationSlotMarkDirty();
		ReplicationSlotSave();
		s->saved = s->confirmed;
		s->last_save = now;
	}
}

/* Produce a heartbeat record (not tracked: it confirms nothing). */
void
stream_heartbeat(CdcStream *s, const CdcOptions *opts)
{
	StringInfoData key;
	StringInfoData value;
	CdcOutRecord rec = {0};
	char	   *topic = psprintf("%s%s%s", opts->topic_heartbeat_prefix,
									 opts->topic_delimiter, opts->topic_prefix);
	CdcKeyRoute *route = route_other(opts, &topic);

	initStringInfo(&key);
	initStringInfo(&value);
	encoder_write_heartbeat_key(&key, route, opts);
	encoder_write_heartbeat_value(&value, opts);
	rec.topic = topic;
	rec.partition = 0;
	rec.key = key.data;
	rec.keylen = key.len;
	rec.value = value.data;
	rec.valuelen = value.len;
	if (s->eos)
	{
		eos_begin(s);
		s->ktxn_records++;
	}
	(void) producer_send(s->producer, &rec, NULL);
	pfree(key.data);
	pfree(value.data);
	pfree(topic);
}

/* Copy the session's figures to shared memory (per-table counts once a second). */
void
stream_publish_status(CdcStream *s, bool all)
{
	CdcWorkerStatus *ws = s->ws;
	TimestampTz now = GetCurrentTimestamp();
	TimestampTz oldest = 0;
	int64		retries = 0;
	const char *reason = NULL;

	/* a broker down, a connection refused: retried for ever, but visible */
	if (s->producer != NULL)
		retries = producer_transient_errors(s->producer, &reason);
	if (retries > s->retries_seen)
	{
		status_set_error(ws, psprintf("Kafka client (retrying): %s", reason));
		s->retries_seen = retries;
	}
	if (!watermark_idle(&s->wm) && s->wm.head < s->wm.tail)
		oldest = s->commit_times[s->wm.head % WATERMARK_CAPACITY];
	LWLockAcquire(ws->lock, LW_EXCLUSIVE);
	ws->confirmed_lsn = s->confirmed;
	ws->read_lsn = s->ctx ? s->ctx->reader->EndRecPtr : s->last_read;
	ws->oldest_pending_commit = oldest;
	ws->last_ack_time = s->last_ack_time;
	ws->records_sent = s->base_records + s->records_sent;
	ws->bytes_sent = s->base_bytes + s->bytes_sent;
	ws->inflight_records = s->inflight_records;
	ws->inflight_bytes = s->inflight_bytes;
	if (s->producer != NULL)
		ws->retries = s->base_retries + retries;
	LWLockRelease(ws->lock);
	if (all || TimestampDifferenceExceeds(s->last_stats_flush, now, 1000))
	{
		flush_table_counts(s);
		s->last_stats_flush = now;
	}
}
