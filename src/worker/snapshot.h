/*-------------------------------------------------------------------------
 *
 * snapshot.h
 *		The initial snapshot of a new slot (see snapshot.c).
 *
 * src/worker/snapshot.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_SNAPSHOT_H
#define CDC_KAFKA_SNAPSHOT_H

#include "worker/status.h"
#include "worker/stream.h"

/* Initial snapshot of a new slot (outside a transaction). */
extern CdcStream *snapshot_initial(CdcWorkerStatus *ws, CdcStreamConfig *cfg,
								   const char *publication, bool (*interrupted) (void));
extern bool snapshot_initial_pending(const char *slot);
extern void snapshot_forget_initial(const char *slot);
extern void snapshot_resume_initial(const char *slot);
extern void snapshot_adopt_progress(const char *slot, const char *committed, XLogRecPtr lsn);

#endif							/* CDC_KAFKA_SNAPSHOT_H */
