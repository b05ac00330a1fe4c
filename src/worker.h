/*-------------------------------------------------------------------------
 *
 * worker.h
 *		Declarations shared by the streaming side of cdc_kafka: settings,
 *		shared status, the launcher, the per-database worker, its decoding
 *		stream and its Kafka producer, and the SQL API.
 *
 * The launcher (launcher.c) keeps one worker (worker.c) running per
 * database of cdc_kafka.databases.  A worker decodes its slot in-process
 * with the output plugin in binary format (stream.c), hands the records to
 * librdkafka (producer.c), and confirms the slot behind Kafka's
 * acknowledgements (watermark.c).  Its state is published in shared memory
 * (shmem.c) for the SQL views and commands (api.c).
 *
 * src/worker.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_WORKER_H
#define CDC_KAFKA_WORKER_H

#include "access/xlogdefs.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "storage/lwlock.h"

/* ---- settings (guc.c) ---------------------------------------------------- */

typedef enum CdcPublicationMode
{
	CDC_PUBLICATION_ALL_TABLES,
	CDC_PUBLICATION_FILTERED,
	CDC_PUBLICATION_DISABLED
} CdcPublicationMode;

extern char *cdc_databases;
extern char *cdc_bootstrap_servers;
extern char *cdc_topic_prefix;
extern char *cdc_slot_name;
extern char *cdc_publication_name;
extern int	cdc_publication_autocreate;
extern char *cdc_table_include_list;
extern bool cdc_schemas;
extern int	cdc_decimal_mode;
extern int	cdc_binary_mode;
extern int	cdc_time_mode;
extern int	cdc_interval_mode;
extern int	cdc_hstore_mode;
extern bool cdc_tombstones_on_delete;
extern char *cdc_skipped_operations;
extern bool cdc_transaction_metadata;
extern char *cdc_unavailable_placeholder;
extern int	cdc_money_fraction_digits;
extern bool cdc_extended_headers;
extern char *cdc_kafka_properties;
extern char *cdc_kafka_secrets_file;
extern int	cdc_max_inflight_kb;
extern int	cdc_heartbeat_interval_ms;
extern int	cdc_slot_save_interval_ms;
extern int	cdc_poll_interval_ms;
extern int	cdc_restart_delay_s;

extern void cdcguc_define(void);
extern char *cdc_slot_name_for(const char *dbname);
extern char *cdcguc_topic_prefix(const char *dbname);
extern bool cdcguc_topic_prefix_valid(const char *prefix);

/* api.c: the checks of the SQL functions' arguments */
extern void cdc_refuse_null_arg(FunctionCallInfo fcinfo, int argno, const char *argname,
								const char *func);
extern void cdc_check_table_arg(Oid relid, const char *verb);
extern Oid *cdc_table_args(FunctionCallInfo fcinfo, const char *func, const char *verb, int *n);

/* api.c: who may manage streaming (README: Delegation) */
#define CDC_ADMIN_ROLE		"cdc_kafka_admin"
extern void cdc_require_admin(const char *func);

/* ---- shared status (shmem.c) ---------------------------------------------- */

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
} CdcWorkerStatus;

typedef struct CdcSharedState
{
	LWLock	   *lock;			/* protects the identity fields of workers[] */
	CdcWorkerStatus workers[CDC_MAX_WORKERS];
} CdcSharedState;

extern CdcSharedState *cdc_shared;

extern void cdcshm_request(void);
extern void cdcshm_startup(void);
extern CdcWorkerStatus *cdcshm_find_worker(const char *dbname);
extern CdcWorkerStatus *cdcshm_claim_worker(const char *dbname);
extern void cdcshm_release_worker(CdcWorkerStatus *ws);
extern bool cdcshm_copy(int i, CdcWorkerStatus *copy);
extern CdcWorkerState cdcshm_get_state(CdcWorkerStatus *ws);
extern char *cdcshm_get_slot_name(CdcWorkerStatus *ws);
extern char *cdcshm_get_publication(CdcWorkerStatus *ws);
extern void cdcshm_set_state(CdcWorkerStatus *ws, CdcWorkerState state, const char *detail);
extern void cdcshm_set_error(CdcWorkerStatus *ws, const char *message);
extern void cdcshm_set_snapshot_progress(CdcWorkerStatus *ws, const char *table, int64 rows,
										 int64 estimated);
extern void cdcshm_set_snapshot_wait(CdcWorkerStatus *ws, const char *what);
extern void cdcshm_wake(CdcWorkerStatus *ws);
extern void cdcshm_table_stats_add(Oid dboid, Oid relid, int64 records, int64 bytes,
								   TimestampTz when);
extern int	cdcshm_table_stats_snapshot(Oid dboid, Oid **relids, int64 **records,
										int64 **bytes, TimestampTz **last);

/* ---- producer (producer.c) ------------------------------------------------ */

extern bool producer_check_properties(const char *props, char *errbuf, size_t errlen);

/* ---- processes ------------------------------------------------------------------ */

extern void launcher_register(void);
extern PGDLLEXPORT void cdc_kafka_launcher_main(Datum arg);
extern PGDLLEXPORT void cdc_kafka_worker_main(Datum arg);

#endif							/* CDC_KAFKA_WORKER_H */
