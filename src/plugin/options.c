/*-------------------------------------------------------------------------
 *
 * options.c
 *		Parse and validate the cdc_kafka output plugin's options.
 *
 * Options arrive as the DefElem list of pg_logical_slot_get_changes(...,
 * 'name', 'value', ...), pg_recvlogical -o name=value, or the streaming
 * worker.  Their names are Debezium's connector properties with '.' and '-'
 * written as '_' (decimal.handling.mode becomes decimal_handling_mode), and
 * their values and defaults are Debezium's.  An unknown option, a repeated
 * option or a bad value is an ERROR that names the option and lists what is
 * allowed, so that a typo never silently changes the output format.
 *
 * src/plugin/options.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "commands/dbcommands.h"
#include "utils/builtins.h"
#include "utils/varlena.h"

#include "common/nameadjust.h"
#include "plugin/colmask.h"
#include "plugin/keycols.h"
#include "plugin/options.h"
#include "plugin/optvalue.h"
#include "plugin/plugin.h"
#include "plugin/textenc.h"
#include "plugin/outbox.h"
#include "plugin/route.h"
#include "plugin/unwrap.h"

/*
 * The values of the enumerated options, as Debezium spells them.  The same
 * tables are the cdc_kafka.* settings' enum values (worker/settings.c), and
 * the worker passes its settings to the plugin by these names: one list of
 * words, so that a setting and an option never disagree.
 */
const struct config_enum_entry options_decimal_modes[] = {
	{"precise", CDC_DECIMAL_PRECISE, false},
	{"double", CDC_DECIMAL_DOUBLE, false},
	{"string", CDC_DECIMAL_STRING, false},
	{NULL, 0, false}
};

const struct config_enum_entry options_binary_modes[] = {
	{"bytes", CDC_BINARY_BYTES, false},
	{"base64", CDC_BINARY_BASE64, false},
	{"base64-url-safe", CDC_BINARY_BASE64_URL_SAFE, false},
	{"hex", CDC_BINARY_HEX, false},
	{NULL, 0, false}
};

const struct config_enum_entry options_time_modes[] = {
	{"adaptive", CDC_TIME_ADAPTIVE, false},
	{"adaptive_time_microseconds", CDC_TIME_ADAPTIVE_MICROSECONDS, false},
	{"connect", CDC_TIME_CONNECT, false},
	{NULL, 0, false}
};

const struct config_enum_entry options_interval_modes[] = {
	{"numeric", CDC_INTERVAL_NUMERIC, false},
	{"string", CDC_INTERVAL_STRING, false},
	{NULL, 0, false}
};

const struct config_enum_entry options_hstore_modes[] = {
	{"json", CDC_HSTORE_JSON, false},
	{"map", CDC_HSTORE_MAP, false},
	{NULL, 0, false}
};

static const struct config_enum_entry record_formats[] = {
	{"json", CDC_FORMAT_JSON, false},
	{"avro", CDC_FORMAT_AVRO, false},
	{NULL, 0, false}
};

/* schema.name.adjustment.mode and field.name.adjustment.mode */
/* The plugin's own: no setting has it (the worker always asks for binary). */
static const struct config_enum_entry output_formats[] = {
	{"value", CDC_OUTPUT_VALUE, false},
	{"record", CDC_OUTPUT_RECORD, false},
	{"binary", CDC_OUTPUT_BINARY, false},
	{NULL, 0, false}
};

#define DEFAULT_PLACEHOLDER "__debezium_unavailable_value"

static const char *const option_names[] = {
	"publication_names", "topic_prefix", "schemas", "decimal_handling_mode",
	"binary_handling_mode", "time_precision_mode", "interval_handling_mode",
	"hstore_handling_mode", "tombstones_on_delete", "skipped_operations",
	"provide_transaction_metadata", "unavailable_value_placeholder",
	"money_fraction_digits", "deterministic", "output_format",
	"extended_headers_enabled", "watermark_prefix",
	"transforms", "unwrap_add_fields", "unwrap_add_fields_prefix", "unwrap_add_headers",
	"unwrap_add_headers_prefix", "unwrap_delete_tombstone_handling_mode",
	"unwrap_drop_fields_header_name", "unwrap_drop_fields_from_key",
	"unwrap_drop_fields_keep_schema_compatible", "unwrap_replace_null_with_default",
	"unwrap_route_by_field",
	"message_key_columns", "column_mask_with_<n>_chars",
	"topic_delimiter", "topic_transaction", "topic_heartbeat_prefix",
	"message_prefix_include_list", "message_prefix_exclude_list",
	"schema_name_adjustment_mode", "field_name_adjustment_mode",
	"route_topic_regex", "route_topic_replacement", "route_key_field_name",
	"route_key_field_regex", "route_key_field_replacement", "route_key_enforce_uniqueness",
	"route_schema_name_adjustment_mode",
	"column_truncate_to_<n>_chars", "column_mask_hash_[v2_]<algorithm>_with_salt_<salt>",
	"column_propagate_source_type", "datatype_propagate_source_type",
	"format", "schema_registry_url",
	"outbox_table_field_event_id", "outbox_table_field_event_key",
	"outbox_table_field_event_type", "outbox_table_field_event_payload",
	"outbox_table_field_event_timestamp", "outbox_table_fields_additional_placement",
	"outbox_table_field_additional_missing", "outbox_table_field_event_schema_version",
	"outbox_route_by_field", "outbox_route_topic_regex", "outbox_route_topic_replacement",
	"outbox_route_tombstone_on_empty_payload", "outbox_table_op_invalid_behavior",
	"outbox_table_expand_json_payload", "outbox_table_json_payload_null_behavior",
	"outbox_field_name_adjustment_mode",
	"include_unknown_datatypes", NULL
};

/*
 * A random (version 4) UUID naming this decoding session, as Debezium's
 * runId header names a connector run.
 */
static void
new_run_id(char *out)
{
	uint8		b[16];

	if (!pg_strong_random(b, sizeof(b)))
		memset(b, 0, sizeof(b));
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
			 b[10], b[11], b[12], b[13], b[14], b[15]);
}

/*
 * The current database's name.  The startup callback runs outside any
 * transaction when a walsender (pg_recvlogical) or the worker decodes, so
 * it opens a short one to read the catalog; the name is copied into the
 * caller's memory context.
 */
static char *
current_database_name(void)
{
	MemoryContext cxt = CurrentMemoryContext;
	char	   *name;

	if (IsTransactionState())
		return get_database_name(MyDatabaseId);
	StartTransactionCommand();
	name = MemoryContextStrdup(cxt, get_database_name(MyDatabaseId));
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	return name;
}

/*
 * Set every option to Debezium's default; the topic prefix defaults to the
 * current database's name, sanitised as a topic name is (Debezium requires
 * a prefix of the characters Kafka allows).
 */
void
options_set_defaults(CdcOptions *opts)
{
	StringInfoData prefix;

	memset(opts, 0, sizeof(CdcOptions));
	opts->publication_names = NIL;
	opts->dbname = textenc_name_utf8(current_database_name());
	initStringInfo(&prefix);
	textenc_sanitize_topic_utf8(&prefix, opts->dbname);
	opts->topic_prefix = prefix.data;
	opts->schemas = true;
	opts->decimal_mode = CDC_DECIMAL_PRECISE;
	opts->binary_mode = CDC_BINARY_BYTES;
	opts->time_mode = CDC_TIME_ADAPTIVE;
	opts->interval_mode = CDC_INTERVAL_NUMERIC;
	opts->hstore_mode = CDC_HSTORE_JSON;
	opts->tombstones_on_delete = true;
	opts->skipped_ops = CDC_SKIP_TRUNCATE;
	opts->transaction_metadata = false;
	opts->placeholder = pstrdup(DEFAULT_PLACEHOLDER);
	opts->placeholder_len = strlen(DEFAULT_PLACEHOLDER);
	opts->money_fraction_digits = 2;
	opts->deterministic = false;
	opts->extended_headers = true;
	new_run_id(opts->run_id);
	opts->output_format = CDC_OUTPUT_VALUE;
	opts->topic_delimiter = pstrdup(".");
	opts->topic_transaction = pstrdup("transaction");
	opts->topic_heartbeat_prefix = pstrdup("__debezium-heartbeat");
	opts->schema_name_mode = NAMEADJUST_NONE;
	opts->field_name_mode = NAMEADJUST_NONE;
	opts->include_unknown_datatypes = false;
}

/* The name of value in one of the tables above (its first, unhidden one). */
const char *
options_value_name(const struct config_enum_entry *table, int value)
{
	for (int i = 0; table[i].name != NULL; i++)
	{
		if (table[i].val == value && !table[i].hidden)
			return table[i].name;
	}
	elog(ERROR, "no name for value %d of an enumerated option", value);
	return NULL;				/* keep compiler quiet */
}

/* The allowed words of an enumerated option, for the hint. */
static char *
allowed_words(const struct config_enum_entry *words)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; words[i].name != NULL; i++)
	{
		if (!words[i].hidden)
			appendStringInfo(&buf, "%s%s", buf.len > 0 ? ", " : "", words[i].name);
	}
	return buf.data;
}

static const char *
option_value(DefElem *elem)
{
	if (elem->arg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" of output plugin \"%s\" requires a value",
						elem->defname, CDC_PLUGIN_NAME)));
	return strVal(elem->arg);
}

static int
parse_word(DefElem *elem, const struct config_enum_entry *words)
{
	const char *value = option_value(elem);

	for (int i = 0; words[i].name != NULL; i++)
	{
		if (pg_strcasecmp(value, words[i].name) == 0)
			return words[i].val;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value \"%s\" for option \"%s\"", value, elem->defname),
			 errhint("Allowed values are: %s.", allowed_words(words))));
	return 0;					/* keep compiler quiet */
}

/* Booleans: a bare option name means true, as in test_decoding. */
static bool
parse_boolean(DefElem *elem)
{
	bool		result;

	if (elem->arg == NULL)
		return true;
	if (!parse_bool(strVal(elem->arg), &result))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value \"%s\" for option \"%s\"",
						strVal(elem->arg), elem->defname),
				 errhint("Use a boolean: true, false, on, off, 1 or 0.")));
	return result;
}

/*
 * skipped_operations: "none" or a comma list of c, u, d, t.  Returns the
 * CDC_SKIP_* bits, or -1 if the text is not such a list.
 */
int
options_parse_skipped(const char *value)
{
	char	   *copy = pstrdup(value);
	List	   *items = NIL;
	ListCell   *lc;
	int			result = 0;

	if (pg_strcasecmp(value, "none") == 0)
		return 0;
	if (!SplitIdentifierString(copy, ',', &items) || items == NIL)
		return -1;
	foreach(lc, items)
	{
		const char *op = lfirst(lc);

		if (strcmp(op, "c") == 0)
			result |= CDC_SKIP_CREATE;
		else if (strcmp(op, "u") == 0)
			result |= CDC_SKIP_UPDATE;
		else if (strcmp(op, "d") == 0)
			result |= CDC_SKIP_DELETE;
		else if (strcmp(op, "t") == 0)
			result |= CDC_SKIP_TRUNCATE;
		else
			return -1;
	}
	return result;
}

static int
parse_skipped_ops(DefElem *elem)
{
	int			result = options_parse_skipped(option_value(elem));

	if (result < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value \"%s\" for option \"%s\"",
						option_value(elem), elem->defname),
				 errhint("Use \"none\" or a comma-separated list of c, u, d and t.")));
	return result;
}

/* Topic prefixes may use only the characters Kafka allows in topic names. */
static char *
parse_topic_prefix(DefElem *elem)
{
	const char *value = option_value(elem);

	if (value[0] == '\0' || strlen(value) > 200 ||
		strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789._-") != strlen(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value \"%s\" for option \"%s\"", value, elem->defname),
				 errhint("A topic prefix is 1 to 200 of the characters A-Z, a-z, 0-9, '.', '_' and '-'.")));
	return pstrdup(value);
}

/*
 * Is value a valid part of a topic name: 1 or more of the characters Kafka
 * allows, as Debezium's validateTopicName wants of topic.delimiter,
 * topic.transaction and topic.heartbeat.prefix?
 */
bool
options_valid_topic_part(const char *value)
{
	return value[0] != '\0' &&
		strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789._-") == strlen(value);
}

static char *
parse_topic_part(DefElem *elem)
{
	const char *value = option_value(elem);

	if (!options_valid_topic_part(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value \"%s\" for option \"%s\"", value, elem->defname),
				 errhint("Give 1 or more of the characters A-Z, a-z, 0-9, '.', '_' and '-'.")));
	return pstrdup(value);
}

static List *
parse_publication_names(DefElem *elem)
{
	char	   *value = pstrdup(option_value(elem));
	List	   *names;

	if (!SplitIdentifierString(value, ',', &names) || names == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid value \"%s\" for option \"%s\"",
						option_value(elem), elem->defname),
				 errhint("Give a comma-separated list of publication names.")));
	return names;
}

/*
 * A "hex:" prefix makes the placeholder raw bytes, as Debezium's
 * unavailable.value.placeholder allows.
 */
static void
parse_placeholder(CdcOptions *opts, DefElem *elem)
{
	const char *value = option_value(elem);

	if (strncmp(value, "hex:", 4) == 0)
	{
		const char *hex = value + 4;
		size_t		hexlen = strlen(hex);
		char	   *bytes = palloc(hexlen / 2 + 1);

		if (hexlen % 2 != 0 || strspn(hex, "0123456789abcdefABCDEF") != hexlen)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value \"%s\" for option \"%s\"", value, elem->defname),
					 errhint("After \"hex:\" give an even number of hexadecimal digits.")));
		opts->placeholder_len = hex_decode(hex, hexlen, bytes);
		bytes[opts->placeholder_len] = '\0';
		opts->placeholder = bytes;
	}
	else
	{
		opts->placeholder = pstrdup(value);
		opts->placeholder_len = strlen(value);
	}
}

static int
parse_fraction_digits(DefElem *elem)
{
	const char *value = option_value(elem);
	char	   *end;
	long		digits = strtol(value, &end, 10);

	if (*value == '\0' || *end != '\0' || digits < 0 || digits > 16)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value \"%s\" for option \"%s\"", value, elem->defname),
				 errhint("Give a whole number from 0 to 16.")));
	return (int) digits;
}

/* An http:// or https:// URL, without the trailing slash. */
static char *
parse_registry_url(DefElem *elem)
{
	char	   *url = pstrdup(option_value(elem));
	size_t		len = strlen(url);

	if (pg_strncasecmp(url, "http://", 7) != 0 && pg_strncasecmp(url, "https://", 8) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value \"%s\" for option \"%s\"", url, elem->defname),
				 errhint("Give the schema registry's base URL, http://host:port or https://host:port, "
						 "with a path if its Confluent-compatible API has one.")));
	while (len > 0 && url[len - 1] == '/')
		url[--len] = '\0';
	return url;
}

/*
 * Avro records are made from the JsonConverter record with its schema, and
 * their schemas go to a registry: both have to be there.
 */
static void
check_record_format(CdcOptions *opts)
{
	if (opts->record_format != CDC_FORMAT_AVRO)
		return;
	if (opts->schema_registry_url == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("format \"avro\" needs option \"schema_registry_url\"")));
	if (!opts->schemas)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("format \"avro\" cannot be used with schemas off"),
				 errdetail("Avro records carry their schema's id in the registry; option \"schemas\" is for JSON.")));
}

static char *
option_list(void)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; option_names[i] != NULL; i++)
		appendStringInfo(&buf, "%s%s", i > 0 ? ", " : "", option_names[i]);
	return buf.data;
}

/* Apply one option; false if the name is not ours. */
static bool
apply_option(CdcOptions *opts, DefElem *elem)
{
	const char *name = elem->defname;

	if (strcmp(name, "publication_names") == 0)
		opts->publication_names = parse_publication_names(elem);
	else if (strcmp(name, "topic_prefix") == 0)
		opts->topic_prefix = parse_topic_prefix(elem);
	else if (strcmp(name, "schemas") == 0)
		opts->schemas = parse_boolean(elem);
	else if (strcmp(name, "decimal_handling_mode") == 0)
		opts->decimal_mode = parse_word(elem, options_decimal_modes);
	else if (strcmp(name, "binary_handling_mode") == 0)
		opts->binary_mode = parse_word(elem, options_binary_modes);
	else if (strcmp(name, "time_precision_mode") == 0)
		opts->time_mode = parse_word(elem, options_time_modes);
	else if (strcmp(name, "interval_handling_mode") == 0)
		opts->interval_mode = parse_word(elem, options_interval_modes);
	else if (strcmp(name, "hstore_handling_mode") == 0)
		opts->hstore_mode = parse_word(elem, options_hstore_modes);
	else if (strcmp(name, "tombstones_on_delete") == 0)
		opts->tombstones_on_delete = parse_boolean(elem);
	else if (strcmp(name, "skipped_operations") == 0)
		opts->skipped_ops = parse_skipped_ops(elem);
	else if (strcmp(name, "provide_transaction_metadata") == 0)
		opts->transaction_metadata = parse_boolean(elem);
	else if (strcmp(name, "unavailable_value_placeholder") == 0)
		parse_placeholder(opts, elem);
	else if (strcmp(name, "money_fraction_digits") == 0)
		opts->money_fraction_digits = parse_fraction_digits(elem);
	else if (strcmp(name, "deterministic") == 0)
		opts->deterministic = parse_boolean(elem);
	else if (strcmp(name, "output_format") == 0)
		opts->output_format = parse_word(elem, output_formats);
	else if (strcmp(name, "extended_headers_enabled") == 0)
		opts->extended_headers = parse_boolean(elem);
	else if (strcmp(name, "watermark_prefix") == 0)
		opts->watermark_prefix = pstrdup(option_value(elem));
	else if (strcmp(name, "transforms") == 0)
	{
		unwrap_parse_transforms(opts, option_value(elem));
		route_parse_transforms(opts, option_value(elem));
		outbox_parse_transforms(opts, option_value(elem));
	}
	else if (strncmp(name, "unwrap_", 7) == 0)
		return unwrap_parse_option(opts, name, option_value(elem));
	else if (strcmp(name, "message_key_columns") == 0)
		opts->message_key_columns = keycols_parse(name, option_value(elem));
	else if (strncmp(name, "column_mask_with_", 17) == 0 ||
			 strncmp(name, "column_truncate_to_", 19) == 0 ||
			 strncmp(name, "column_mask_hash_", 17) == 0 ||
			 strcmp(name, "column_propagate_source_type") == 0 ||
			 strcmp(name, "datatype_propagate_source_type") == 0)
		opts->column_masks = colmask_parse(opts->column_masks, name, option_value(elem));
	else if (strcmp(name, "topic_delimiter") == 0)
		opts->topic_delimiter = parse_topic_part(elem);
	else if (strcmp(name, "topic_transaction") == 0)
		opts->topic_transaction = parse_topic_part(elem);
	else if (strcmp(name, "topic_heartbeat_prefix") == 0)
		opts->topic_heartbeat_prefix = parse_topic_part(elem);
	else if (strcmp(name, "message_prefix_include_list") == 0)
		opts->message_prefix_include_list = pstrdup(option_value(elem));
	else if (strcmp(name, "message_prefix_exclude_list") == 0)
		opts->message_prefix_exclude_list = pstrdup(option_value(elem));
	else if (strcmp(name, "schema_name_adjustment_mode") == 0)
		opts->schema_name_mode = parse_word(elem, optvalue_name_adjustment_modes);
	else if (strcmp(name, "field_name_adjustment_mode") == 0)
		opts->field_name_mode = parse_word(elem, optvalue_name_adjustment_modes);
	else if (strncmp(name, "route_", 6) == 0)
		return route_parse_option(opts, name, option_value(elem));
	else if (strncmp(name, "outbox_", 7) == 0)
		return outbox_parse_option(opts, name, option_value(elem));
	else if (strcmp(name, "include_unknown_datatypes") == 0)
		opts->include_unknown_datatypes = parse_boolean(elem);
	else if (strcmp(name, "format") == 0)
		opts->record_format = parse_word(elem, record_formats);
	else if (strcmp(name, "schema_registry_url") == 0)
		opts->schema_registry_url = parse_registry_url(elem);
	else
		return false;
	return true;
}

/*
 * Parse the plugin's option list into opts (already holding the defaults).
 */
void
options_parse(CdcOptions *opts, List *options)
{
	List	   *seen = NIL;
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *elem = lfirst(lc);

		if (list_member(seen, makeString(elem->defname)))
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("option \"%s\" of output plugin \"%s\" is given more than once",
							elem->defname, CDC_PLUGIN_NAME)));
		seen = lappend(seen, makeString(elem->defname));

		if (!apply_option(opts, elem))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unrecognized option \"%s\" for output plugin \"%s\"",
							elem->defname, CDC_PLUGIN_NAME),
					 errhint("Valid options are: %s.", option_list())));
	}
	unwrap_finish(opts);
	route_finish(opts);
	outbox_finish(opts);
	check_record_format(opts);
}
