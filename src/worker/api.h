/*-------------------------------------------------------------------------
 *
 * api.h
 *		What the SQL functions share: argument checks and the admin role.
 *
 * The SQL interface is api.c (status, slots, offsets, skipping) and
 * incremental.c (snapshot requests).
 *
 * src/worker/api.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_WORKER_API_H
#define CDC_WORKER_API_H

#include "fmgr.h"

/* api.c: the checks of the SQL functions' arguments */
extern void api_refuse_null_arg(FunctionCallInfo fcinfo, int argno, const char *argname,
								const char *func);
extern void api_check_table_arg(Oid relid, const char *verb);
extern Oid *api_table_args(FunctionCallInfo fcinfo, const char *func, const char *verb, int *n);

/* api.c: who may manage streaming (README: Delegation) */
extern void api_require_admin(const char *func);

#endif							/* CDC_WORKER_API_H */
