/*-------------------------------------------------------------------------
 *
 * worker.h
 *		The streaming worker of one database.
 *
 * Started by the launcher (launcher.c) as a background worker; it runs
 * snapshots (snapshot.c, incremental.c) and the stream (stream.c).
 *
 * src/worker/worker.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_WORKER_WORKER_H
#define CDC_WORKER_WORKER_H

#include "fmgr.h"

extern PGDLLEXPORT void cdc_kafka_worker_main(Datum arg);

#endif							/* CDC_WORKER_WORKER_H */
