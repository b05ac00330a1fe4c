/*-------------------------------------------------------------------------
 *
 * status.h
 *		The shared status of the streaming workers.
 *
 * One slot per database streamed, read by the SQL views (api.c) and
 * written by its worker; commands from the SQL API travel through it too.
 *
 * src/worker/status.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_WORKER_STATUS_H
#define CDC_WORKER_STATUS_H

#include "access/xlogdefs.h"
#include "datatype/timestamp.h"
#include "storage/lwlock.h"

#define CDC_MAX_WORKERS		32
#define CDC_TEXT_LEN		1024

typedef enum CdcWorkerState
{
	CDC_STATE_UNUSED = 0,
	CDC_STATE_STARTING,
	CDC_STATE_WAITING,			/* for the extension, a setting, the plugin allow-list */
	CDC_STATE_STOPPED,			/* cdc_kafka.stop() */
	CDC_STATE_SNAPSHOT,			/* the initial snapshot of a new slot */
	CDC_STATE_STREAMING,
	CDC_STATE_SNAPSHOTTING,		/* streaming waits: a snapshot chunk is being read */
	CDC_STATE_BLOCKED,			/* a record Kafka refused for good */
	CDC_STATE_SLOT_LOST,		/* slot invalidated: needs an operator */
	CDC_STATE_FENCED,			/* another producer took the transactional id: needs an operator */
	CDC_STATE_ERROR				/* stopped on an error; restarts after a pause */
} CdcWorkerState;

/* Commands from the SQL API to a worker. */
typedef enum CdcCommand
{
	CDC_CMD_NONE = 0,
	CDC_CMD_RELOAD,				/* re-read the enabled flag and settings */
	CDC_CMD_RESTART,			/* end the streaming session and start a new one */
	CDC_CMD_RELEASE_SLOT		/* release the slot until the command is cleared */
} CdcCommand;

/*
 * The status slot of one worker.  The identity fields are written by the
 * launcher under the array lock (CdcSharedState.lock), and read under it by
 * everyone else; everything after them is under the slot's own lock, shared
 * to read, exclusive to write.  No ereport (and so no palloc) while holding
 * either: a worker's exit callback takes the slot's lock.
 */
typedef struct CdcWorkerStatus
{
	/* identity */
	char		dbname[NAMEDATALEN];
	bool		in_use;

	LWLock	   *lock;			/* set at startup, never changes */
	pid_t		pid;			/* the worker's, 0 when it is not running */
	CdcWorkerState state;
	char		detail[CDC_TEXT_LEN];	/* why waiting/blocked, in words */
	char		slot_name[NAMEDATALEN];
	char		publication[NAMEDATALEN];
	char		topic_prefix[CDC_TEXT_LEN];
	char		broker[CDC_TEXT_LEN];
	XLogRecPtr	confirmed_lsn;
	XLogRecPtr	read_lsn;
	TimestampTz oldest_pending_commit;	/* 0 when nothing is in flight */
	TimestampTz last_ack_time;
	int64		records_sent;
	int64		bytes_sent;
	int64		inflight_records;
	int64		inflight_bytes;
	int64		retries;
	char		last_error[CDC_TEXT_LEN];
	TimestampTz last_error_time;
	/* the record Kafka refused (state BLOCKED) */
	char		blocked_table[CDC_TEXT_LEN];
	char		blocked_key[CDC_TEXT_LEN];
	XLogRecPtr	blocked_lsn;
	XLogRecPtr	skip_lsn;		/* set by skip_record(): skip the record there */
	int			skip_index;		/* which of the records at that LSN */
	XLogRecPtr	careful_until;	/* after a refusal: one record per batch up to here */
	/* a row of an incremental snapshot refused: its job and key (hashed) */
	int64		blocked_job;
	uint64		blocked_key_hash;
	int64		careful_job;	/* one record per batch until this job's chunk is acknowledged */
	/* the snapshot being read: initial, or the incremental one in progress */
	char		snapshot_table[CDC_TEXT_LEN];
	int64		snapshot_rows;
	int64		snapshot_rows_estimated;
	char		snapshot_wait[CDC_TEXT_LEN];	/* what an incremental chunk waits for */
	int64		reading_job;	/* the snapshot whose chunk is being read, or 0 */
	TimestampTz reading_since;	/* when that read began */
	CdcCommand	command;
	bool		command_done;
	/* delivery (exactly_once: the Kafka transactions) */
	bool		exactly_once;
	char		transactional_id[CDC_TEXT_LEN];
	int64		kafka_transactions;
	TimestampTz kafka_committed_at;
	XLogRecPtr	kafka_committed_lsn;
	int32		kafka_committed_index;
	uint32		fenced_config;	/* hash of the settings a FENCED worker was fenced with */
} CdcWorkerStatus;

typedef struct CdcSharedState
{
	LWLock	   *lock;			/* protects the identity fields of workers[] */
	CdcWorkerStatus workers[CDC_MAX_WORKERS];
} CdcSharedState;

extern CdcSharedState *status_state;

extern void status_request(void);
extern CdcWorkerStatus *status_find_worker(const char *dbname);
extern CdcWorkerStatus *status_claim_worker(const char *dbname);
extern void status_release_worker(CdcWorkerStatus *ws);
extern bool status_copy(int i, CdcWorkerStatus *copy);
extern CdcWorkerState status_get_state(CdcWorkerStatus *ws);
extern char *status_get_slot_name(CdcWorkerStatus *ws);
extern char *status_get_publication(CdcWorkerStatus *ws);
extern void status_set_state(CdcWorkerStatus *ws, CdcWorkerState state, const char *detail);
extern void status_set_error(CdcWorkerStatus *ws, const char *message);
extern void status_set_snapshot_progress(CdcWorkerStatus *ws, const char *table, int64 rows,
										 int64 estimated);
extern void status_set_snapshot_wait(CdcWorkerStatus *ws, const char *what);
extern void status_wake(CdcWorkerStatus *ws);
extern void status_table_stats_add(Oid dboid, Oid relid, int64 records, int64 bytes,
								   TimestampTz when);
extern int	status_table_stats_snapshot(Oid dboid, Oid **relids, int64 **records,
										int64 **bytes, TimestampTz **last);

#endif							/* CDC_WORKER_STATUS_H */
