/*-------------------------------------------------------------------------
 *
 * launcher.h
 *		The launcher: one streaming worker per database of cdc_kafka.databases.
 *
 * Registered by _PG_init (module.c) when the library is preloaded.
 *
 * src/worker/launcher.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_WORKER_LAUNCHER_H
#define CDC_WORKER_LAUNCHER_H

#include "fmgr.h"

extern void launcher_register(void);
extern PGDLLEXPORT void cdc_kafka_launcher_main(Datum arg);

#endif							/* CDC_WORKER_LAUNCHER_H */
