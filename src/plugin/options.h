/*-------------------------------------------------------------------------
 *
 * options.h
 *		The plugin options: how records are written.
 *
 * Parsed from the slot's options by options.c, or built from the
 * cdc_kafka.* settings by the streaming worker.
 *
 * src/plugin/options.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_OPTIONS_H
#define CDC_PLUGIN_OPTIONS_H

#include "nodes/pg_list.h"
#include "utils/guc.h"

typedef enum CdcDecimalMode
{
	CDC_DECIMAL_PRECISE,
	CDC_DECIMAL_DOUBLE,
	CDC_DECIMAL_STRING
} CdcDecimalMode;

typedef enum CdcBinaryMode
{
	CDC_BINARY_BYTES,
	CDC_BINARY_BASE64,
	CDC_BINARY_BASE64_URL_SAFE,
	CDC_BINARY_HEX
} CdcBinaryMode;

typedef enum CdcTimeMode
{
	CDC_TIME_ADAPTIVE,
	CDC_TIME_ADAPTIVE_MICROSECONDS,
	CDC_TIME_CONNECT
} CdcTimeMode;

typedef enum CdcIntervalMode
{
	CDC_INTERVAL_NUMERIC,
	CDC_INTERVAL_STRING
} CdcIntervalMode;

typedef enum CdcHstoreMode
{
	CDC_HSTORE_JSON,
	CDC_HSTORE_MAP
} CdcHstoreMode;

typedef enum CdcOutputFormat
{
	CDC_OUTPUT_VALUE,			/* one row = the record's value (default) */
	CDC_OUTPUT_RECORD,			/* one row = {"topic","key","value","headers"} */
	CDC_OUTPUT_BINARY			/* framed records for the streaming worker */
} CdcOutputFormat;

/* How a record's key and value are written (option format). */
typedef enum CdcRecordFormat
{
	CDC_FORMAT_JSON,			/* JsonConverter's JSON (default) */
	CDC_FORMAT_AVRO				/* Confluent wire format, schemas in a registry */
} CdcRecordFormat;

/* Bits of CdcOptions.skipped_ops. */
#define CDC_SKIP_CREATE		0x01
#define CDC_SKIP_UPDATE		0x02
#define CDC_SKIP_DELETE		0x04
#define CDC_SKIP_TRUNCATE	0x08

typedef struct CdcOptions
{
	List	   *publication_names;	/* NIL: every publishable table */
	char	   *topic_prefix;	/* ASCII: the characters of Kafka topic names */
	char	   *dbname;			/* UTF-8 */
	bool		schemas;
	CdcDecimalMode decimal_mode;
	CdcBinaryMode binary_mode;
	CdcTimeMode time_mode;
	CdcIntervalMode interval_mode;
	CdcHstoreMode hstore_mode;
	bool		tombstones_on_delete;
	int			skipped_ops;
	bool		transaction_metadata;
	char	   *placeholder;	/* unavailable.value.placeholder, decoded */
	int			placeholder_len;
	int			money_fraction_digits;
	bool		deterministic;
	bool		extended_headers;	/* __debezium.context.* on change records */
	char	   *watermark_prefix;	/* messages that are the worker's watermarks */
	char		run_id[37];		/* this decoding session's runId header */
	CdcOutputFormat output_format;
	struct CdcUnwrap *unwrap;	/* unwrap transform (unwrap.c); NULL: off */
	List	   *message_key_columns;	/* keycols.c rules; NIL: primary keys */
	List	   *column_masks;	/* colmask.c rules, in the order given */
	char	   *topic_delimiter;	/* topic.delimiter: between a topic's parts */
	char	   *topic_transaction;	/* topic.transaction: <prefix><delim><this> */
	char	   *topic_heartbeat_prefix; /* <this><delim><prefix>: heartbeats */
	char	   *message_prefix_include_list;	/* NULL: not given */
	char	   *message_prefix_exclude_list;	/* NULL: not given */
	int			schema_name_mode;	/* NameAdjustMode of schema names */
	int			field_name_mode;	/* NameAdjustMode of field names */
	struct CdcRoute *route;		/* route transform (route.c); NULL: off */
	struct CdcOutbox *outbox;	/* outbox transform (outbox.c); NULL: off */
	bool		include_unknown_datatypes;	/* types Debezium cannot map, as binary */
	CdcRecordFormat record_format;
	char	   *schema_registry_url;	/* format avro: the registry's base URL */
} CdcOptions;

/* The words of the enumerated options, shared with the cdc_kafka.* settings. */
extern const struct config_enum_entry options_decimal_modes[];
extern const struct config_enum_entry options_binary_modes[];
extern const struct config_enum_entry options_time_modes[];
extern const struct config_enum_entry options_interval_modes[];
extern const struct config_enum_entry options_hstore_modes[];

extern const char *options_value_name(const struct config_enum_entry *table, int value);
extern void options_set_defaults(CdcOptions *opts);
extern void options_parse(CdcOptions *opts, List *options);
extern int	options_parse_skipped(const char *value);
extern bool options_valid_topic_part(const char *value);

#endif							/* CDC_PLUGIN_OPTIONS_H */
