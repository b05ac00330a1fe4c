/*-------------------------------------------------------------------------
 *
 * stream.h
 *		A streaming session of the worker (see stream.c).
 *
 * src/worker/stream.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_STREAM_H
#define CDC_KAFKA_STREAM_H

#include <librdkafka/rdkafka.h>

#include "access/xlogdefs.h"
#include "lib/stringinfo.h"
#include "replication/logical.h"
#include "utils/hsearch.h"

#include "common/position.h"
#include "common/watermark.h"
#include "plugin/options.h"
#include "worker/producer.h"
#include "worker/status.h"

#define CDC_MAX_STREAM_OPTIONS 128	/* ~40 settings + 3 x 16 column rules */

typedef struct CdcStream CdcStream;

/*
 * What the stream tells the snapshot side, if it is given these
 * (incremental.c hands them in for its session): each change decoded, by
 * table and record key, and each watermark message decoded.
 */
typedef struct CdcSnapshotHooks
{
	void	   *arg;
	void		(*saw_change) (void *arg, Oid relid, const char *key, size_t keylen);
	void		(*watermark) (void *arg, CdcStream *s, XLogRecPtr lsn,
							  const char *content, size_t len);
	/* exactly_once: the progress to commit with the records up to upto, or NULL */
	char	   *(*progress) (void *arg, XLogRecPtr upto);
} CdcSnapshotHooks;

/* What a session needs to know to start. */
typedef struct CdcStreamConfig
{
	const char *dbname;
	const char *slot_name;
	int			noptions;		/* plugin options, as name/value pairs */
	const char *option_names[CDC_MAX_STREAM_OPTIONS];
	const char *option_values[CDC_MAX_STREAM_OPTIONS];
	XLogRecPtr	skip_lsn;		/* a refused record to leave out, or 0 */
	int			skip_index;
	bool		defer_decoding;	/* stream_start_decoding later */
	XLogRecPtr	careful_until;	/* one record per produce batch until confirmed here */
	int64		careful_job;	/* or until this snapshot's refused chunk is acknowledged */
} CdcStreamConfig;

struct CdcStream
{
	MemoryContext cxt;
	CdcWorkerStatus *ws;
	Oid			dboid;
	LogicalDecodingContext *ctx;
	CdcProducer *producer;
	MemoryContext tickets;		/* per-record CdcTickets (see stream.c) */
	StringInfoData scratch;

	/* what is in flight */
	Watermark	wm;
	TimestampTz *commit_times;	/* per watermark slot */
	bool		in_txn;
	bool		decoding;		/* inside LogicalDecodingProcessRecord */
	uint64		txn_seq;
	XLogRecPtr	last_lsn;		/* LSN of the last record, and its index there */
	int			lsn_index;
	int64		inflight_bytes;
	int64		inflight_records;
	int64		max_inflight_bytes;

	/* what is confirmed */
	XLogRecPtr	confirmed;
	XLogRecPtr	saved;
	XLogRecPtr	last_read;		/* read position when the context was freed */
	XLogRecPtr	standby_target;	/* read up to here once the standbys have it */
	TimestampTz standby_wait_since;	/* held back by them since; -1: logged */
	TimestampTz last_save;

	/* the worker's "should this session end?" (a reload, a command) */
	bool		(*should_stop) (void);
	bool		abandoned;		/* stopped while waiting: nothing more is sent */

	/* a record Kafka refused */
	bool		blocked;
	XLogRecPtr	blocked_lsn;
	int			blocked_index;
	Oid			blocked_relid;
	rd_kafka_resp_err_t blocked_err;
	char		blocked_reason[CDC_TEXT_LEN];	/* the registry's refusal, or empty */
	char		blocked_topic[256];
	char		blocked_key[CDC_TEXT_LEN];
	int64		blocked_job;	/* the incremental snapshot of a refused row, or 0 */
	uint64		blocked_key_hash;	/* and the hash of its whole key */
	XLogRecPtr	skip_lsn;
	int			skip_index;
	XLogRecPtr	careful_until;	/* records travel alone until confirmed here */
	int64		careful_job;	/* or until the worker clears careful_job */
	int64		frame_job;		/* the snapshot whose rows stream_produce_frame sends */

	/* figures */
	int64		records_sent;
	int64		bytes_sent;
	int64		base_records;	/* from earlier sessions */
	int64		base_bytes;
	int64		base_retries;
	int64		retries_seen;	/* transient errors already published */
	TimestampTz last_ack_time;
	TimestampTz last_stats_flush;
	XLogRecPtr	flushed_seen;	/* WAL flushed when stream_read last looked */
	TimestampTz last_wal_at;	/* when stream_read last found WAL to read */
	HTAB	   *table_counts;

	/* the snapshot side's ears (see CdcSnapshotHooks), or all NULL */
	CdcSnapshotHooks hooks;

	/* exactly_once: records travel in Kafka transactions (see stream.c) */
	bool		eos;
	char	   *txn_id;			/* transactional.id, and the offsets record's key */
	char	   *offsets_topic;
	bool		ktxn_open;
	int64		ktxn_records;
	int64		ktxn_bytes;
	TimestampTz ktxn_began;
	int64		unit_ktxn_records;	/* of the current unit, in the open transaction */
	int64		unit_ktxn_bytes;
	XLogRecPtr	unit_end;		/* the unit being decoded: its end LSN */
	int32		unit_records;	/* and its records so far */
	StreamPosition done;		/* what the open transaction reaches */
	XLogRecPtr	done_complete;	/* and the end of its last whole unit */
	StreamPosition committed;	/* what the offsets topic holds */
	XLogRecPtr	committed_complete;
	StreamPosition resume;		/* an earlier session committed up to here */
	int64		resume_skipped;
	int64		seq;			/* of the last position committed */
	int64		ktxns_committed;
	TimestampTz ktxn_committed_at;
	char	   *snapshot_progress;	/* the initial snapshot's, for the next commit */
	char	   *resumed_snapshot;	/* progress found in the offsets topic at start */
	char	   *resumed_incremental;
	bool		ktxn_failed;	/* a record failed: the transaction must abort */
	char		ktxn_reason[512];
};

extern void stream_plugin_options(CdcOptions *opts, const CdcStreamConfig *cfg);
extern CdcStream *stream_open(CdcWorkerStatus *ws, const CdcStreamConfig *cfg);
extern void stream_start_decoding(CdcStream *s, const CdcStreamConfig *cfg);
extern void stream_close(CdcStream *s, int flush_ms);
extern bool stream_read(CdcStream *s, int max_ms);
extern void stream_poll(CdcStream *s, int timeout_ms);
extern void stream_wait_for_wal(CdcStream *s, int timeout_ms);
extern void stream_confirm(CdcStream *s, bool force);
extern void stream_heartbeat(CdcStream *s, const CdcOptions *opts);
extern void stream_produce_frame(CdcStream *s, const StringInfo frame, bool tracked);
extern void stream_end_unit(CdcStream *s, XLogRecPtr end_lsn, TimestampTz commit_time);
extern void stream_drain(CdcStream *s);
extern void stream_publish_status(CdcStream *s, bool all);
extern void stream_set_snapshot_hooks(CdcStream *s, const CdcSnapshotHooks *hooks);
extern uint64 stream_key_hash(const char *key, size_t len);
extern const char *stream_frame_key(const StringInfo frame, size_t *len);
extern const char *stream_blocked_reason(const CdcStream *s);
extern bool stream_blocked_by_registry(const CdcStream *s);
extern void stream_commit_due(CdcStream *s, bool caught_up);
extern void stream_commit(CdcStream *s, const char *snapshot_progress);
extern bool stream_fenced(void);
extern bool stream_txn_full(CdcStream *s);

#endif							/* CDC_KAFKA_STREAM_H */
