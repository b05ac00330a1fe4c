/*-------------------------------------------------------------------------
 *
 * settings.h
 *		The cdc_kafka.* settings of the streaming worker.
 *
 * Defined by settings.c in every process that loads the library; read by
 * the launcher, the workers and the snapshots.
 *
 * src/worker/settings.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_WORKER_SETTINGS_H
#define CDC_WORKER_SETTINGS_H

typedef enum CdcPublicationMode
{
	CDC_PUBLICATION_ALL_TABLES,
	CDC_PUBLICATION_FILTERED,
	CDC_PUBLICATION_DISABLED
} CdcPublicationMode;

typedef enum CdcSnapshotMode
{
	CDC_SNAPSHOT_INITIAL,
	CDC_SNAPSHOT_INITIAL_ONLY,
	CDC_SNAPSHOT_NO_DATA,
	CDC_SNAPSHOT_ALWAYS,
	CDC_SNAPSHOT_WHEN_NEEDED
} CdcSnapshotMode;

typedef enum CdcDeliveryMode
{
	CDC_DELIVERY_AT_LEAST_ONCE,
	CDC_DELIVERY_EXACTLY_ONCE
} CdcDeliveryMode;

extern char *settings_databases;
extern char *settings_bootstrap_servers;
extern char *settings_topic_prefix;
extern char *settings_slot_name;
extern bool settings_slot_failover;
extern char *settings_publication_name;
extern int	settings_publication_autocreate;
extern char *settings_table_include_list;
extern bool settings_schemas;
extern int	settings_decimal_mode;
extern int	settings_binary_mode;
extern int	settings_time_mode;
extern int	settings_interval_mode;
extern int	settings_hstore_mode;
extern bool settings_tombstones_on_delete;
extern char *settings_skipped_operations;
extern bool settings_transaction_metadata;
extern char *settings_unavailable_placeholder;
extern int	settings_money_fraction_digits;
extern bool settings_extended_headers;
extern char *settings_transforms;
extern char *settings_outbox_table_field_event_id;
extern char *settings_outbox_table_field_event_key;
extern char *settings_outbox_table_field_event_type;
extern char *settings_outbox_table_field_event_payload;
extern char *settings_outbox_table_field_event_timestamp;
extern char *settings_outbox_table_fields_additional_placement;
extern char *settings_outbox_table_field_event_schema_version;
extern char *settings_outbox_route_by_field;
extern char *settings_outbox_route_topic_regex;
extern char *settings_outbox_route_topic_replacement;
extern bool settings_outbox_route_tombstone_on_empty_payload;
extern bool settings_outbox_table_expand_json_payload;
extern int	settings_outbox_table_field_additional_missing;
extern int	settings_outbox_table_op_invalid_behavior;
extern int	settings_outbox_table_json_payload_null_behavior;
extern int	settings_outbox_field_name_adjustment_mode;
extern char *settings_unwrap_add_fields;
extern char *settings_unwrap_add_fields_prefix;
extern char *settings_unwrap_add_headers;
extern char *settings_unwrap_add_headers_prefix;
extern int	settings_unwrap_delete_mode;
extern char *settings_unwrap_route_by_field;
extern char *settings_unwrap_drop_fields_header_name;
extern bool settings_unwrap_drop_fields_from_key;
extern bool settings_unwrap_drop_fields_keep_schema_compatible;
extern bool settings_unwrap_replace_null_with_default;
extern char *settings_route_topic_regex;
extern char *settings_route_topic_replacement;
extern char *settings_route_key_field_name;
extern char *settings_route_key_field_regex;
extern char *settings_route_key_field_replacement;
extern bool settings_route_key_enforce_uniqueness;
extern int	settings_route_schema_name_mode;
extern char *settings_kafka_properties;
extern char *settings_kafka_secrets_file;
extern int	settings_max_inflight_kb;
extern int	settings_heartbeat_interval_ms;
extern int	settings_slot_save_interval_ms;
extern int	settings_poll_interval_ms;
extern int	settings_restart_delay_s;
extern int	settings_delivery;
extern int	settings_txn_max_records;
extern int	settings_txn_max_kb;
extern int	settings_txn_max_ms;
extern char *settings_offsets_topic;
extern int	settings_snapshot_mode;
extern int	settings_snapshot_fetch_size;
extern int	settings_incremental_chunk_size;
extern bool settings_snapshot_chunked;
extern int	settings_snapshot_chunk_timeout_ms;
extern char *settings_message_key_columns;
extern char *settings_column_mask_with_chars;
extern char *settings_column_truncate_to_chars;
extern char *settings_column_mask_hash;
extern char *settings_column_propagate_source_type;
extern char *settings_datatype_propagate_source_type;
extern char *settings_topic_delimiter;
extern char *settings_topic_transaction;
extern char *settings_topic_heartbeat_prefix;
extern char *settings_message_prefix_include_list;
extern char *settings_message_prefix_exclude_list;
extern int	settings_schema_name_mode;
extern int	settings_field_name_mode;
extern bool settings_include_unknown_datatypes;
extern int	settings_record_format;
extern char *settings_schema_registry_url;
extern char *settings_schema_registry_ca_file;

extern void settings_define(void);
extern char *settings_slot_name_for(const char *dbname);
extern char *settings_topic_prefix_for(const char *dbname);
extern bool settings_topic_prefix_valid(const char *prefix);

#endif							/* CDC_WORKER_SETTINGS_H */
