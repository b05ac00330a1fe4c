/*-------------------------------------------------------------------------
 *
 * module.c
 *		Module entry point of the cdc_kafka extension.
 *
 * The shared library holds the logical decoding output plugin (src/plugin/,
 * loaded by name when a slot uses plugin 'cdc_kafka') and the streaming side
 * (src/worker/): the launcher and workers (launcher.c, worker.c, stream.c,
 * producer.c, the snapshots) with their settings (settings.c) and shared
 * status (status.c), and the SQL interface (api.c, incremental.c).  Both use
 * the pure C of src/common/.
 *
 * src/worker/module.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "plugin/plugin.h"
#include "worker/launcher.h"
#include "worker/settings.h"
#include "worker/status.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(cdc_kafka_debezium_version);

void		_PG_init(void);

/*
 * Settings are defined in every process that loads the library, so that
 * they can be shown and checked anywhere; shared memory and the launcher
 * exist only when the library is preloaded, and not during pg_upgrade
 * (binary upgrade mode): workers would create publications and slots in
 * a cluster being restored, and stream from the old one.
 */
void
_PG_init(void)
{
	settings_define();
	if (!process_shared_preload_libraries_in_progress || IsBinaryUpgrade)
		return;
	status_request();
	launcher_register();
}

/* The Debezium release whose record format this build reproduces. */
Datum
cdc_kafka_debezium_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(CDC_DEBEZIUM_VERSION));
}
