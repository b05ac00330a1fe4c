/*-------------------------------------------------------------------------
 *
 * cdc_kafka.c
 *		Module entry point of the cdc_kafka extension.
 *
 * The shared library holds the logical decoding output plugin (plugin.c,
 * loaded by name when a slot uses plugin 'cdc_kafka') and the extension's
 * SQL-callable functions.
 *
 * src/cdc_kafka.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "cdc_kafka.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(cdc_kafka_debezium_version);

void		_PG_init(void);

void
_PG_init(void)
{
}

/* The Debezium release whose record format this build reproduces. */
Datum
cdc_kafka_debezium_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(CDC_DEBEZIUM_VERSION));
}
