/*-------------------------------------------------------------------------
 *
 * plugin.h
 *		The output plugin's identity: its name, the Debezium release it reproduces.
 *
 * plugin.c registers the logical decoding callbacks that turn each decoded
 * change into Kafka records in the Debezium PostgreSQL connector's format;
 * the other modules of src/plugin/ do the work: options.c, relinfo.c,
 * pubfilter.c, typemap.c, typedefault.c, encoder.c and recout.c.
 *
 * src/plugin/plugin.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_PLUGIN_H
#define CDC_PLUGIN_PLUGIN_H

/* The Debezium release whose output we reproduce. */
#define CDC_DEBEZIUM_VERSION	"3.6.1.Final"

/* The plugin name as used in pg_create_logical_replication_slot. */
#define CDC_PLUGIN_NAME			"cdc_kafka"
/* The schema of the extension's objects (cdc_kafka.control): never captured. */
#define CDC_EXTENSION_SCHEMA	"cdc_kafka"

#endif							/* CDC_PLUGIN_PLUGIN_H */
